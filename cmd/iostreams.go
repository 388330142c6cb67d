package cmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"strconv"

	"github.com/fatih/color"
	"github.com/mattn/go-isatty"
)

// iostreams is the seam between commands and the process: where input
// comes from, where output goes, and whether that is a terminal.
type iostreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	InTTY, OutTTY, ErrTTY bool
	// Columns is the width of the terminal standard output is, in cells:
	// COLUMNS when it is set, else what the terminal says, else 80. It
	// matters only when OutTTY is set.
	Columns int
	// NoColor is set when the NO_COLOR environment variable is non-empty.
	NoColor bool
	// ColorMode is the --color flag: auto, always or never.
	ColorMode string
	// NoProgress is the --no-progress flag.
	NoProgress bool

	// NoPager is the --no-pager flag.
	NoPager bool
	// pager is the running pager Out writes to, if any.
	pager *pager
	// stdout is the process's standard output, which a pager writes to
	// directly, so that it knows the terminal; nil in tests.
	stdout *os.File

	// jq, with --jq, filters what is written to Out; it must be closed
	// once the command is done.
	jq *jqWriter

	// ctx ends when the run must stop before its end, and stop ends it
	// with the cause (see stop.go); nil until run sets them.
	ctx  context.Context
	stop context.CancelCauseFunc
}

// defaultColumns is the width assumed of a terminal that does not say.
const defaultColumns = 80

// systemStreams returns the streams of this process.
//
// SNAPCTL_FORCE_TTY, as gh's GH_FORCE_TTY, makes standard output count as
// a terminal even when it is not (for tests and for `script`-like
// recorders); a number is then the terminal's width.
func systemStreams() *iostreams {
	tty := func(f *os.File) bool { return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()) }
	ios := &iostreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		InTTY: tty(os.Stdin), OutTTY: tty(os.Stdout), ErrTTY: tty(os.Stderr),
		NoColor:   os.Getenv("NO_COLOR") != "",
		ColorMode: "auto",
		stdout:    os.Stdout,
	}
	force, forced := os.LookupEnv("SNAPCTL_FORCE_TTY")
	if forced && force != "" {
		ios.OutTTY = true
	}
	ios.Columns = columns(os.Getenv("COLUMNS"), force, func() int { return terminalColumns(os.Stdout) })
	return ios
}

// columns decides the terminal width: COLUMNS first, as less and ls
// honour it, then a width given by SNAPCTL_FORCE_TTY, then the
// terminal's own, then 80.
func columns(env, force string, term func() int) int {
	for _, v := range []string{env, force} {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			return n
		}
	}
	if n := term(); n > 0 {
		return n
	}
	return defaultColumns
}

// FitWidth is the width that human output must fit: the terminal's, or 0
// when standard output is not a terminal or wide is set (-o wide), so
// that every value is written whole.
func (s *iostreams) FitWidth(wide bool) int {
	if !s.OutTTY || wide {
		return 0
	}
	return s.Columns
}

// testStreams returns in-memory streams that are not terminals.
func testStreams(in string) (*iostreams, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return &iostreams{In: bytes.NewBufferString(in), Out: out, ErrOut: errOut, ColorMode: "auto"}, out, errOut
}

// ColorEnabled says whether standard output gets colour: always with
// --color always, never with --color never, and otherwise only on a
// terminal and when NO_COLOR is not set.
func (s *iostreams) ColorEnabled() bool {
	switch s.ColorMode {
	case "always":
		return true
	case "never":
		return false
	}
	return s.OutTTY && !s.NoColor
}

// palette colours snapctl's own text. Its functions return their input
// unchanged when colour is off.
type palette struct {
	Green, Yellow, Red, Cyan, Magenta, Blue, Bold, Dim func(string) string
}

// palette returns the colours for standard output.
func (s *iostreams) palette() palette {
	on := s.ColorEnabled()
	mk := func(attrs ...color.Attribute) func(string) string {
		c := color.New(attrs...)
		if on {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
		return func(t string) string {
			if !on || t == "" {
				return t
			}
			return c.Sprint(t)
		}
	}
	return palette{
		Green: mk(color.FgGreen), Yellow: mk(color.FgYellow), Red: mk(color.FgRed),
		Cyan: mk(color.FgCyan), Magenta: mk(color.FgMagenta), Blue: mk(color.FgBlue),
		Bold: mk(color.Bold), Dim: mk(color.Faint),
	}
}

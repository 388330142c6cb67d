// Package iostreams is the seam between snapctl's commands and the
// process: where input comes from, where output goes, whether that is a
// terminal, how wide it is, whether it gets colour, the pager, the
// progress line, and the stop of a run that must end before its end.
package iostreams

import (
	"bytes"
	"context"
	"io"
	"os"
	"strconv"

	"github.com/fatih/color"
	"github.com/mattn/go-isatty"
)

// IOStreams is the seam between commands and the process: where input
// comes from, where output goes, and whether that is a terminal.
type IOStreams struct {
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

	// filter, when set, is what Out was made to write through (see
	// Filter); Close closes it.
	filter io.Closer

	// ctx ends when the run must stop before its end, and stop ends it
	// with the cause (see stop.go); nil until Stoppable sets them.
	ctx  context.Context
	stop context.CancelCauseFunc
}

// defaultColumns is the width assumed of a terminal that does not say.
const defaultColumns = 80

// System returns the streams of this process.
//
// SNAPCTL_FORCE_TTY, as gh's GH_FORCE_TTY, makes standard output count as
// a terminal even when it is not (for tests and for `script`-like
// recorders); a number is then the terminal's width.
func System() *IOStreams {
	ios := &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		InTTY: isTerminal(os.Stdin), OutTTY: isTerminal(os.Stdout), ErrTTY: isTerminal(os.Stderr),
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

// isTerminal says whether f is a terminal.
func isTerminal(f *os.File) bool { return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()) }

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
func (s *IOStreams) FitWidth(wide bool) int {
	if !s.OutTTY || wide {
		return 0
	}
	return s.Columns
}

// Test returns in-memory streams that are not terminals, reading in, and
// the buffers that standard output and standard error write to.
func Test(in string) (*IOStreams, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: bytes.NewBufferString(in), Out: out, ErrOut: errOut, ColorMode: "auto"}, out, errOut
}

// Stdout is the process's standard output, which a full-screen program
// writes to directly; nil for streams that are not the process's.
func (s *IOStreams) Stdout() *os.File { return s.stdout }

// ColorEnabled says whether standard output gets colour: always with
// --color always, never with --color never, and otherwise only on a
// terminal and when NO_COLOR is not set.
func (s *IOStreams) ColorEnabled() bool {
	switch s.ColorMode {
	case "always":
		return true
	case "never":
		return false
	}
	return s.OutTTY && !s.NoColor
}

// Palette colours snapctl's own text. Its functions return their input
// unchanged when colour is off.
type Palette struct {
	Green, Yellow, Red, Cyan, Magenta, Blue, Bold, Dim func(string) string
}

// Palette returns the colours for standard output.
func (s *IOStreams) Palette() Palette {
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
	return Palette{
		Green: mk(color.FgGreen), Yellow: mk(color.FgYellow), Red: mk(color.FgRed),
		Cyan: mk(color.FgCyan), Magenta: mk(color.FgMagenta), Blue: mk(color.FgBlue),
		Bold: mk(color.Bold), Dim: mk(color.Faint),
	}
}

// Filter makes what is written to Out go through f, which must write on
// to what Out was until now (a --jq filter); Close closes f.
func (s *IOStreams) Filter(f io.WriteCloser) {
	s.filter = f
	s.Out = f
}

// Close ends the output once the command is done: it closes the filter,
// which may write what it held, and then the pager's input, waiting for
// the user to quit the pager. It returns the filter's error, else the
// pager's failure (*PagerError).
func (s *IOStreams) Close() error {
	var err error
	if s.filter != nil {
		err = s.filter.Close()
		s.filter = nil
	}
	if perr := s.stopPager(); err == nil {
		err = perr
	}
	return err
}

package cmd

import (
	"bytes"
	"io"
	"os"

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
	// NoColor is set when the NO_COLOR environment variable is non-empty.
	NoColor bool
	// ColorMode is the --color flag: auto, always or never.
	ColorMode string
	// NoProgress is the --no-progress flag.
	NoProgress bool
}

// systemStreams returns the streams of this process.
func systemStreams() *iostreams {
	tty := func(f *os.File) bool { return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()) }
	return &iostreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		InTTY: tty(os.Stdin), OutTTY: tty(os.Stdout), ErrTTY: tty(os.Stderr),
		NoColor:   os.Getenv("NO_COLOR") != "",
		ColorMode: "auto",
	}
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

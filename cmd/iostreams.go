package cmd

import (
	"bytes"
	"io"
	"os"

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
	// NoColor is set when the NO_COLOR environment variable is non-empty.
	NoColor bool
	// ColorMode is the --color flag: auto, always or never.
	ColorMode string
	// NoProgress is the --no-progress flag.
	NoProgress bool
}

// System returns the streams of this process.
func System() *IOStreams {
	tty := func(f *os.File) bool { return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()) }
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		InTTY: tty(os.Stdin), OutTTY: tty(os.Stdout), ErrTTY: tty(os.Stderr),
		NoColor:   os.Getenv("NO_COLOR") != "",
		ColorMode: "auto",
	}
}

// TestStreams returns in-memory streams that are not terminals.
func TestStreams(in string) (*IOStreams, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: bytes.NewBufferString(in), Out: out, ErrOut: errOut, ColorMode: "auto"}, out, errOut
}

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

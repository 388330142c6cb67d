package cmd

import (
	"errors"
	"io"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
)

// writeOutFile is IOStreams.WriteOutFile, a file it could not make being
// bad usage (exit 2, as an unreadable capture).
func writeOutFile(ios *iostreams.IOStreams, name string, force bool, write func(w io.Writer, tty bool) error) error {
	err := ios.WriteOutFile(name, force, write)
	if oe := (*iostreams.OpenError)(nil); errors.As(err, &oe) {
		return &usageError{oe.Err}
	}
	return err
}

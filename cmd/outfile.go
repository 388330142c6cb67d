package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
)

// writeOutFile writes what write writes to the --out file name, "-" for
// standard output. Without force the file is created only if it does not
// exist, so that a file made while the capture was read is not replaced
// either; a failed write leaves no regular file.
func writeOutFile(ios *iostreams.IOStreams, name string, force bool, write func(io.Writer) error) error {
	if name == "-" {
		out := bufio.NewWriterSize(ios.Out, 64<<10)
		err := write(out)
		if err == nil {
			err = out.Flush()
		}
		if err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
		return nil
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if !force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_EXCL
	}
	f, err := os.OpenFile(name, flags, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return usageErrorf("%s exists: pass --force to replace it, or --out another file", name)
	}
	if err != nil {
		return &usageError{err}
	}
	out := bufio.NewWriterSize(f, 64<<10)
	err = write(out)
	if err == nil {
		err = out.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// Only a regular file is removed: with --force the name may be a
		// device, a fifo or a symlink (/dev/full, /dev/stdout), which
		// removing would destroy rather than clean up.
		if fi, lerr := os.Lstat(name); lerr == nil && fi.Mode().IsRegular() {
			os.Remove(name)
		}
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}

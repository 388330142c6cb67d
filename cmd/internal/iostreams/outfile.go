package iostreams

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// OpenError is WriteOutFile's error when the file could not be made: it
// exists and force is off, or opening it failed. Nothing was written.
type OpenError struct{ Err error }

func (e *OpenError) Error() string { return e.Err.Error() }
func (e *OpenError) Unwrap() error { return e.Err }

// CheckOutFile says, before anything is read, why a command's --out
// name (not "-") could not be written: a directory, with force or
// without; an existing file, without force. Nil otherwise; WriteOutFile
// checks again when it writes.
func CheckOutFile(name string, force bool) error {
	fi, err := os.Stat(name)
	if err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory: --out names the file to write, like --out %s", name, filepath.Join(name, "FILE"))
	}
	if _, lerr := os.Lstat(name); lerr == nil && !force {
		return fmt.Errorf("%s exists: pass --force to replace it, or --out another file", name)
	}
	return nil
}

// WriteOutFile writes what write writes to the file name (a command's
// --out), "-" for standard output. Without force the file is created only
// if it does not exist, so that a file made while the capture was read is
// not replaced either; a failed write leaves no regular file.
func (s *IOStreams) WriteOutFile(name string, force bool, write func(io.Writer) error) error {
	if name == "-" {
		out := bufio.NewWriterSize(s.Out, 64<<10)
		err := write(out)
		if err == nil {
			err = out.Flush()
		}
		if err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
		return nil
	}
	if err := CheckOutFile(name, true); err != nil {
		return &OpenError{err}
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if !force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_EXCL
	}
	f, err := os.OpenFile(name, flags, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return &OpenError{fmt.Errorf("%s exists: pass --force to replace it, or --out another file", name)}
	}
	if err != nil {
		return &OpenError{err}
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
		// Only a regular file is removed: with force the name may be a
		// device, a fifo or a symlink (/dev/full, /dev/stdout), which
		// removing would destroy rather than clean up.
		if fi, lerr := os.Lstat(name); lerr == nil && fi.Mode().IsRegular() {
			os.Remove(name)
		}
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}

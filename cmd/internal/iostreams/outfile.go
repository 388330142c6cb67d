package iostreams

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
)

// OpenError is WriteOutFile's error when the file could not be made: it
// exists and force is off, or opening it failed. Nothing was written.
type OpenError struct{ Err error }

func (e *OpenError) Error() string { return e.Err.Error() }
func (e *OpenError) Unwrap() error { return e.Err }

// CheckOutFile says, before anything is read, why a command's --out
// name (not "-") could not be written: a directory, with force or
// without; an existing regular file (or a name that would make one, a
// symlink to nothing), without force. A device or a fifo (/dev/null,
// /dev/stdout, a named pipe) is written to, not replaced, and needs no
// force. Nil otherwise; WriteOutFile checks again when it writes.
func CheckOutFile(name string, force bool) error {
	fi, err := os.Stat(name)
	if err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory: --out names the file to write, like --out %s", name, filepath.Join(name, "FILE"))
	}
	if force {
		return nil
	}
	if err == nil && fi.Mode().IsRegular() {
		return existsError(name)
	}
	if _, lerr := os.Lstat(name); err != nil && lerr == nil {
		// A symlink to nothing: writing would make the file it names.
		return existsError(name)
	}
	return nil
}

func existsError(name string) error {
	return fmt.Errorf("%s exists: pass --force to replace it, or --out another file", name)
}

// IsStdout says whether name, a command's --out, is the file standard
// output is open on already: /dev/stdout, /proc/self/fd/1, or the file
// the shell made for standard output with >, still empty. Writing it is
// writing standard output, as --out - does: the file is neither refused
// as existing nor replaced. A regular file that holds anything (standard
// output opened with >> or <> on an existing file) is not: writing it is
// writing over or after what it holds, which --out refuses without
// --force as for any existing file.
func (s *IOStreams) IsStdout(name string) bool {
	out, ok := s.sameAsStdout(name)
	return ok && (!out.Mode().IsRegular() || out.Size() == 0)
}

// CheckNotInput says why a command reading the captures files could not
// write standard output: it is open on one of them (standard input's
// file too, for "-"), which it would write into, as cat's "input file
// is output file". Nil otherwise.
func (s *IOStreams) CheckNotInput(files []string) error {
	if s.stdout == nil {
		return nil
	}
	out, err := s.stdout.Stat()
	if err != nil || !out.Mode().IsRegular() {
		return nil
	}
	if name, ok := s.input(files, out); ok {
		return fmt.Errorf("standard output is %s, the capture being read: a capture is never written to; redirect the output to another file", name)
	}
	return nil
}

// CheckOutNotInput says why --out could not name out: it is one of the
// captures being read (standard input's file too, for "-"), which is
// never written over, --force or not.
func (s *IOStreams) CheckOutNotInput(out string, files []string) error {
	fi, err := os.Stat(out)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	if _, ok := s.input(files, fi); ok {
		return fmt.Errorf("--out %s is the capture being read: a capture is never written over, --force or not; name another file", termsafe.String(out))
	}
	return nil
}

// input names, terminal-safe, the capture of files that is the file fi.
func (s *IOStreams) input(files []string, fi os.FileInfo) (string, bool) {
	for _, name := range files {
		if in, err := replay.StatCapture(name, s.In); err == nil && os.SameFile(in, fi) {
			if name == replay.StdinName {
				return replay.StdinLabel, true
			}
			return termsafe.String(name), true
		}
	}
	return "", false
}

func (s *IOStreams) sameAsStdout(name string) (os.FileInfo, bool) {
	if s.stdout == nil || name == "" || name == "-" {
		return nil, false
	}
	out, err := s.stdout.Stat()
	if err != nil {
		return nil, false
	}
	fi, err := os.Stat(name)
	return out, err == nil && os.SameFile(fi, out)
}

// WriteOutFile writes what write writes to the file name (a command's
// --out), "-" for standard output; write is told whether that is a
// terminal, where what it writes must be terminal-safe. Without force a
// regular file is created only if it does not exist, so that a file made
// while the capture was read is not replaced either, and a device or a
// fifo is written to as it is, neither truncated nor replaced; a failed
// write leaves no regular file.
func (s *IOStreams) WriteOutFile(name string, force bool, write func(w io.Writer, tty bool) error) error {
	if name == "-" {
		out := bufio.NewWriterSize(s.Out, 64<<10)
		err := write(out, s.OutTTY)
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
	f, regular, err := openOutFile(name, force)
	if err != nil {
		return &OpenError{err}
	}
	out := bufio.NewWriterSize(f, 64<<10)
	err = write(out, !regular && isTerminal(f))
	if err == nil {
		err = out.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// Only a regular file is removed: the name may be a device, a
		// fifo or a symlink (/dev/full, /dev/stdout), which removing
		// would destroy rather than clean up.
		if fi, lerr := os.Lstat(name); regular && lerr == nil && fi.Mode().IsRegular() {
			os.Remove(name)
		}
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}

// openOutFile opens name for WriteOutFile and says whether what it opened
// is a regular file. With force it is created or truncated. Without, as
// a shell's noclobber does: a name that is not there is created with
// O_EXCL, so that one made meanwhile is refused; one that is there and
// not a regular file (a device, a fifo, or a symlink to one) is opened
// as it is, without O_TRUNC, and refused if what was opened is a regular
// file after all, put there since it was looked at.
func openOutFile(name string, force bool) (*os.File, bool, error) {
	var f *os.File
	var err error
	before, serr := os.Stat(name)
	switch {
	case force:
		f, err = os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	case serr != nil:
		f, err = os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	case before.Mode().IsRegular():
		return nil, false, existsError(name)
	default:
		f, err = os.OpenFile(name, os.O_WRONLY, 0)
	}
	if errors.Is(err, fs.ErrExist) {
		return nil, false, existsError(name)
	}
	if err != nil {
		return nil, false, err
	}
	after, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, false, err
	}
	if !force && serr == nil && after.Mode().IsRegular() {
		f.Close()
		return nil, false, existsError(name)
	}
	return f, after.Mode().IsRegular(), nil
}

package replay

import (
	"errors"
	"fmt"
	"os"
)

// InputError is a capture that cannot be read at all: missing, a
// directory or unreadable. Open returns it before anything is read.
type InputError struct {
	Name string
	Err  error
}

func (e *InputError) Error() string {
	return fmt.Sprintf("%s: %v", e.Name, pathCause(e.Err))
}

func (e *InputError) Unwrap() error { return e.Err }

// DamageError is a capture that stopped before its end: a compressed
// stream that fails to decode, data after the last gzip member that is
// not gzip, a read that fails, or a file that could not be opened when
// the reader reached it. Every line before the damage was delivered;
// the reader goes on with the next capture.
type DamageError struct {
	Name string
	// Format is "gzip" or "zstd" for a compressed capture, "" otherwise.
	Format string
	// Offset is the byte of the capture as stored (compressed) where
	// reading stopped, or -1 when it never opened. For zstd it is where
	// the decoder had read to, which may be past the damage.
	Offset int64
	// Decoded is the number of bytes of lines (after decompression)
	// delivered before the damage.
	Decoded int64
	// Stopped is set when nothing was wrong with the capture: the reader
	// was told to stop before its end (Reader.Stop), and Err says why.
	Stopped bool
	Err     error
}

func (e *DamageError) Error() string {
	cause := pathCause(e.Err)
	switch {
	case e.Stopped:
		return fmt.Sprintf("%s: stopped at byte %d: %v", e.Name, e.Decoded, cause)
	case e.Offset < 0:
		return fmt.Sprintf("%s: cannot read: %v", e.Name, cause)
	case e.Format == "":
		return fmt.Sprintf("%s: read failed at byte %d: %v", e.Name, e.Offset, cause)
	}
	return fmt.Sprintf("%s: damaged %s data at byte %d (%d bytes decompressed before it): %v",
		e.Name, e.Format, e.Offset, e.Decoded, cause)
}

func (e *DamageError) Unwrap() error { return e.Err }

// ShrinkError is a regular file that was shorter when the reader reached
// its end than when it was opened: truncated while being read, so lines
// may be missing. It is a warning (Reader.Warnings), not damage.
type ShrinkError struct {
	Name      string
	Size, Now int64
}

func (e *ShrinkError) Error() string {
	return fmt.Sprintf("%s shrank from %d to %d bytes while being read: lines may be missing", e.Name, e.Size, e.Now)
}

// pathCause drops the operation and path an *os.PathError repeats: the
// messages above name the capture already.
func pathCause(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// moreDamage is the first damage of a run that saw several, with their
// number; errors.As still finds the first.
type moreDamage struct {
	first *DamageError
	more  int
}

func (e *moreDamage) Error() string {
	return fmt.Sprintf("%v (and %s)", e.first, plural(e.more, "more damaged capture", "more damaged captures"))
}

func (e *moreDamage) Unwrap() error { return e.first }

package replay

import (
	"hash"
	"io"
)

// StoredFile is one capture as stored, before decompression, as the
// reader hashed it while reading it (Reader.HashStored).
type StoredFile struct {
	// Name is the capture's name as given to Open (StdinName for the
	// standard input).
	Name string
	// Size is its size in bytes: every byte read of it, when Sum is set;
	// else its size when Open checked it, or the bytes read of it when
	// that is unknown (the standard input, a fifo).
	Size int64
	// Sum is the hash of its every byte, nil when they were not all read:
	// the reading was stopped (Reader.Stop) before its end, a read failed,
	// or it could not be opened.
	Sum []byte
}

// HashStored makes the reader hash each capture's bytes as stored with a
// hash from newHash, as it reads them: the one read of a capture gives
// both its events and its hash, and the standard input or a fifo, which
// cannot be read twice, is hashed as well as a file. A regular file whose
// reading ends before its end (damage in a compressed capture, the end of
// a HAR document) is read on to its end into the hash, so that the hash
// is always the whole file's. It must be called before the first Next.
func (r *Reader) HashStored(newHash func() hash.Hash) {
	r.newHash = newHash
	r.stored = make([]StoredFile, len(r.sources))
	for i, s := range r.sources {
		r.stored[i] = StoredFile{Name: s.name, Size: s.size}
	}
}

// Stored returns the captures as HashStored hashed them, in the order of
// the names given to Open, once the reading is over: after Next returned
// io.EOF, or Run returned without an error. A capture the reader did not
// reach has no Sum. It is nil without HashStored.
func (r *Reader) Stored() []StoredFile {
	return append([]StoredFile(nil), r.stored...)
}

// hashTo returns the hash of the capture being opened, and where its
// result goes, or nils without HashStored.
func (r *Reader) hashTo() (hash.Hash, *StoredFile) {
	if r.newHash == nil {
		return nil, nil
	}
	return r.newHash(), &r.stored[r.cur]
}

// hashed records the capture's hash once its stream closes. A regular
// file left before its end is read on to its end, unless the reading was
// stopped: a stop is meant to end the work, and the file may be large.
func (s *stream) hashed() {
	out, raw := s.stored, s.raw
	if out == nil {
		return
	}
	s.stored = nil
	if !raw.eof && raw.err == nil && !s.stopped && s.file != nil && s.src.size >= 0 && s.budget == nil {
		// Through raw, which reads on from where the decoder stopped:
		// every byte is read once, counted and hashed.
		raw.stopKeeping()
		io.Copy(io.Discard, raw) // a failure leaves raw.err set
	}
	switch {
	case raw.eof && raw.err == nil:
		out.Size, out.Sum = raw.n, raw.sum.Sum(nil)
	case s.src.size < 0:
		out.Size = raw.n
	}
}

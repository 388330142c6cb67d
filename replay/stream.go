package replay

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"hash"
	"io"
	"os"
	"sync/atomic"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
)

// maxRewind bounds what a stream keeps of a capture that looks compressed
// until its decoder delivers the first byte: the bytes it needs to read
// the capture again as plain lines if the decoder fails at once.
const maxRewind = 1 << 20

// source is one named capture, checked by Open but not yet opened.
type source struct {
	name  string
	size  int64 // from stat; -1 when unknown (standard input, a fifo)
	stdin bool
}

// rawReader counts the bytes read from a capture as stored, before
// decompression, and keeps them while a rewind may still be needed.
type rawReader struct {
	r     io.Reader
	total *atomic.Int64 // every capture, read by Progress on any goroutine
	n     int64         // this capture
	rec   []byte
	keep  bool
	err   error // the first error other than io.EOF
	// sum, when set, hashes every byte read (Reader.HashStored); eof is
	// set once a read has met the capture's end.
	sum hash.Hash
	eof bool
}

func (c *rawReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.sum != nil {
		c.sum.Write(p[:n])
	}
	if err == io.EOF {
		c.eof = true
	}
	c.total.Add(int64(n))
	if c.keep {
		if len(c.rec)+n > maxRewind {
			c.stopKeeping()
		} else {
			c.rec = append(c.rec, p[:n]...)
		}
	}
	if err != nil && err != io.EOF && c.err == nil {
		c.err = err
	}
	return n, err
}

func (c *rawReader) stopKeeping() { c.keep, c.rec = false, nil }

// stream is the capture being read: its file, open only while it is
// read, and the decoder of its lines.
type stream struct {
	src    source
	file   *os.File // nil for standard input
	raw    *rawReader
	br     *bufio.Reader
	in     io.ReadCloser // br, or a decoder reading br
	format string        // "gzip", "zstd" or "" for plain lines
	out    int64         // bytes of lines delivered
	budget *budget       // the reader's, if any
	// stored receives the capture's size and hash when it closes
	// (Reader.HashStored), nil when it is not hashed; stopped is set when
	// the reading was stopped before its end.
	stored  *StoredFile
	stopped bool
	// m is the capture mapped in memory (mapped.go), nil when it is read;
	// mo is the offset of its first byte not yet delivered, hp how far it
	// is counted and hashed, dropped how far its pages were given back.
	m               []byte
	mo, hp, dropped int
	// left is the mapping once the stream left it, until the reader
	// retires it.
	left []byte
}

// openStream opens s and recognises its format; b, when set, bounds what
// is read of it.
// sum and stored, when set, hash what is read of it (Reader.HashStored).
func openStream(s source, stdin io.Reader, total *atomic.Int64, b *budget, sum hash.Hash, stored *StoredFile) (*stream, error) {
	var in io.Reader = stdin
	var f *os.File
	if !s.stdin {
		var err error
		if f, err = os.Open(s.name); err != nil {
			return nil, err
		}
		in = f
	}
	st := &stream{src: s, file: f, raw: &rawReader{r: within(in, b, true), total: total, keep: true, sum: sum}, budget: b, stored: stored}
	// Small: it serves the first peek and a decoder's reads; the line
	// buffer's larger reads of plain lines go past it.
	st.br = bufio.NewReaderSize(st.raw, 16<<10)
	var err error
	st.in, st.format, err = decompress(st.br, st.pos)
	switch {
	case err != nil && !st.fallBack(err):
		st.close()
		return nil, st.damage(err)
	case st.format == "":
		st.raw.stopKeeping()
	}
	return st, nil
}

// pos is how far the decoder has read into the capture as stored.
func (s *stream) pos() int64 { return s.raw.n - int64(s.br.Buffered()) }

// fallBack reads the capture again from its start as plain lines when
// its decoder failed with err before delivering anything, and the capture
// is more likely plain lines whose first bytes only look like a
// compressed header: text follows its first line (at least 8 bytes of it
// when the decoder only ran out of input). A failed checksum is never
// that: the frame decoded, its content is damaged. It reports whether it
// did.
func (s *stream) fallBack(err error) bool {
	if errors.Is(err, zstd.ErrCRCMismatch) || errors.Is(err, gzip.ErrChecksum) {
		return false
	}
	least := 1
	if truncated(err) {
		least = 8
	}
	return looksPlain(s.raw.rec, least) && s.rewind()
}

// truncated tells whether a decoder failed because its input ended.
func truncated(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

// rewind switches to plain lines from the capture's start, unless that is
// no longer possible.
func (s *stream) rewind() bool {
	if s.format == "" || s.out > 0 || !s.raw.keep || s.raw.err != nil {
		return false
	}
	if s.in != nil {
		s.in.Close()
	}
	rec := s.raw.rec
	s.raw.stopKeeping()
	s.in = io.NopCloser(io.MultiReader(bytes.NewReader(rec), s.raw))
	s.format = ""
	return true
}

// Read reads lines' bytes. An error other than io.EOF is returned as a
// *DamageError, with any bytes delivered before it.
func (s *stream) Read(p []byte) (int, error) {
	if s.m != nil {
		return s.readMapped(p)
	}
	n, err := within(s.in, s.budget, false).Read(p)
	s.out += int64(n)
	if n > 0 && s.format != "" && s.raw.keep {
		s.raw.stopKeeping()
	}
	if err == nil || err == io.EOF {
		return n, err
	}
	if n == 0 && s.fallBack(err) {
		return 0, nil
	}
	return n, s.damage(err)
}

// damage describes err, which stopped the stream.
func (s *stream) damage(err error) *DamageError {
	d := &DamageError{Name: s.src.name, Format: s.format, Offset: s.out, Decoded: s.out, Err: err}
	if s.format != "" {
		d.Offset = s.pos()
		var je *junkError
		if errors.As(err, &je) {
			d.Offset = je.Offset
		}
	}
	return d
}

// close closes the decoder and the file, and reports a regular file that
// is now shorter than when it was checked.
func (s *stream) close() *ShrinkError {
	if s.in != nil {
		s.in.Close()
	}
	if s.m != nil && s.stored != nil && !s.stopped && s.raw.err == nil {
		// Left before its end: hashed on to it, as hashed reads on.
		s.advance(len(s.m))
		s.mapEnd()
	}
	s.leave()
	s.hashed()
	if s.file == nil {
		return nil
	}
	defer s.file.Close()
	if s.src.size < 0 {
		return nil
	}
	if fi, err := s.file.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() < s.src.size {
		return &ShrinkError{Name: s.src.name, Size: s.src.size, Now: fi.Size()}
	}
	return nil
}

// looksPlain tells whether a capture that looks compressed is more likely
// plain lines: after its first line come at least least bytes of text
// (valid UTF-8 without control characters other than tab, CR and LF),
// where compressed data would be noise.
func looksPlain(rec []byte, least int) bool {
	i := bytes.IndexByte(rec, '\n')
	if i < 0 {
		return false
	}
	rest := rec[i+1:]
	if len(rest) > 4096 {
		rest = rest[:4096]
		for k := 0; k < utf8.UTFMax && len(rest) > 0 && !utf8.Valid(rest); k++ {
			rest = rest[:len(rest)-1] // a character cut at the end
		}
	}
	if len(rest) < least || !utf8.Valid(rest) {
		return false
	}
	for _, c := range rest {
		if c < 0x20 && c != '\t' && c != '\r' && c != '\n' || c == 0x7f {
			return false
		}
	}
	return true
}

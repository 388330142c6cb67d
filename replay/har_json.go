package replay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// jsonScan reads a JSON document a byte at a time from its own buffer,
// keeping the offset of the next byte, so that a HAR reader can skip
// what it does not need without holding it (a 300 MB body, 100,000
// nested arrays) and come back to a value by its offset.
type jsonScan struct {
	in   io.Reader
	buf  []byte
	r, w int   // the unread bytes are buf[r:w]
	err  error // what in returned after its last bytes
	off  int64 // offset of the next byte in the document
	str  []byte
}

// jsonSyntaxError is a byte where the document stops being JSON.
type jsonSyntaxError struct{ off int64 }

func (e *jsonSyntaxError) Error() string { return fmt.Sprintf("not JSON at byte %d", e.off) }

func newJSONScan(r io.Reader, off int64) *jsonScan {
	return &jsonScan{in: r, buf: make([]byte, 64<<10), off: off}
}

// reset points the scanner at r, at offset off of the document.
func (s *jsonScan) reset(r io.Reader, off int64) {
	s.in, s.r, s.w, s.err, s.off = r, 0, 0, nil, off
}

// fill reads more of the document, keeping the unread bytes; false when
// there is no more.
func (s *jsonScan) fill() bool {
	if s.err != nil {
		return false
	}
	s.w = copy(s.buf, s.buf[s.r:s.w])
	s.r = 0
	for s.w < len(s.buf) {
		n, err := s.in.Read(s.buf[s.w:])
		s.w += n
		if err != nil {
			s.err = err
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	return true
}

// skipBOM steps over a UTF-8 byte order mark at the start of the
// document, as auto-detection does: some tools save a HAR with one, and
// offsets stay those of the document as stored.
func (s *jsonScan) skipBOM() {
	if s.ensure(len(utf8BOM)) && bytes.HasPrefix(s.buf[s.r:s.w], utf8BOM) {
		s.discard(len(utf8BOM))
	}
}

// ensure tells whether n bytes (at most the buffer) are there unread.
func (s *jsonScan) ensure(n int) bool {
	for s.w-s.r < n {
		if !s.fill() {
			return false
		}
	}
	return true
}

// failure is the error of a document that ends, or cannot be read.
func (s *jsonScan) failure() error {
	if s.err == nil || errors.Is(s.err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return s.err
}

func (s *jsonScan) discard(n int) {
	s.r += n
	s.off += int64(n)
}

func (s *jsonScan) syntax() error { return &jsonSyntaxError{s.off - 1} }

func (s *jsonScan) readByte() (byte, error) {
	if s.r == s.w && !s.fill() {
		return 0, s.failure()
	}
	c := s.buf[s.r]
	s.discard(1)
	return c, nil
}

// peek returns the next byte that is not white space, without reading it.
func (s *jsonScan) peek() (byte, error) {
	for {
		for s.r < s.w {
			if c := s.buf[s.r]; !isJSONSpace(c) {
				return c, nil
			}
			s.discard(1)
		}
		if !s.fill() {
			return 0, s.failure()
		}
	}
}

// next reads the next byte that is not white space.
func (s *jsonScan) next() (byte, error) {
	if _, err := s.peek(); err != nil {
		return 0, err
	}
	return s.readByte()
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// expect reads the byte c, after white space.
func (s *jsonScan) expect(c byte) error {
	got, err := s.next()
	if err != nil {
		return err
	}
	if got != c {
		return s.syntax()
	}
	return nil
}

// members reads the object that comes next, calling member with each
// key (cut to 64 bytes: the keys wanted are short) for it to read the
// value.
func (s *jsonScan) members(member func(key string) error) error {
	return s.list('{', '}', func() error {
		if c, err := s.peek(); err != nil || c != '"' {
			if err == nil {
				s.readByte()
				err = s.syntax()
			}
			return err
		}
		key, _, err := s.stringValue(64)
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		return member(key)
	})
}

// elements reads the array that comes next, calling element for it to
// read each value.
func (s *jsonScan) elements(element func() error) error {
	return s.list('[', ']', element)
}

// list reads a container from open to close whose items, separated by
// commas, item reads.
func (s *jsonScan) list(open, close byte, item func() error) error {
	if err := s.expect(open); err != nil {
		return err
	}
	if c, err := s.peek(); err != nil || c == close {
		if err == nil {
			s.readByte()
		}
		return err
	}
	for {
		if err := item(); err != nil {
			return err
		}
		c, err := s.next()
		if err != nil {
			return err
		}
		if c == close {
			return nil
		}
		if c != ',' {
			return s.syntax()
		}
	}
}

// maxTrackedDepth is how deep skip checks that each bracket closes the
// kind it opened; deeper, it only counts them, in constant memory.
const maxTrackedDepth = 1 << 20

// skip reads the value that comes next, however deep, in memory that
// does not grow with its size.
func (s *jsonScan) skip() error {
	var kinds []uint64 // bit set: an object at that depth
	depth := 0
	push := func(obj bool) {
		if depth < maxTrackedDepth {
			if depth/64 >= len(kinds) {
				kinds = append(kinds, 0)
			}
			if obj {
				kinds[depth/64] |= 1 << (depth % 64)
			} else {
				kinds[depth/64] &^= 1 << (depth % 64)
			}
		}
		depth++
	}
	// kind is 'o' when the innermost open container is an object, 'a'
	// for an array, and '?' past the tracked depth.
	kind := func() byte {
		d := depth - 1
		switch {
		case d >= maxTrackedDepth:
			return '?'
		case kinds[d/64]&(1<<(d%64)) != 0:
			return 'o'
		}
		return 'a'
	}
	for {
		// A value.
		c, err := s.next()
		if err != nil {
			return err
		}
		switch c {
		case '{', '[':
			close := byte(']')
			if c == '{' {
				close = '}'
			}
			n, err := s.peek()
			if err != nil {
				return err
			}
			if n == close {
				s.readByte()
				break
			}
			push(c == '{')
			if c == '{' {
				if err := s.key(); err != nil {
					return err
				}
			}
			continue
		case '"':
			if err := s.skipString(); err != nil {
				return err
			}
		default:
			if err := s.literal(c); err != nil {
				return err
			}
		}
		// After a value: the end of its containers, or the next member.
		if err := s.afterValue(&depth, kind); err != nil || depth == 0 {
			return err
		}
	}
}

// afterValue reads, after a value at depth, the closing brackets that
// follow it and the comma (and key) before the next value, if any.
func (s *jsonScan) afterValue(depth *int, kind func() byte) error {
	for *depth > 0 {
		c, err := s.next()
		if err != nil {
			return err
		}
		k := kind()
		switch {
		case c == ',' && k == 'o':
			return s.key()
		case c == ',' && k == 'a':
			return nil
		case c == ',':
			// Past the tracked depth, a string may be a key or a value.
			if n, err := s.peek(); err != nil || n != '"' {
				return err
			}
			s.readByte()
			if err := s.skipString(); err != nil {
				return err
			}
			if n, err := s.peek(); err != nil || n == ':' {
				if err == nil {
					s.readByte()
				}
				return err
			}
		case (c == '}' && k != 'a') || (c == ']' && k != 'o'):
			*depth--
		default:
			return s.syntax()
		}
	}
	return nil
}

// key reads an object's key and its colon.
func (s *jsonScan) key() error {
	if err := s.expect('"'); err != nil {
		return err
	}
	if err := s.skipString(); err != nil {
		return err
	}
	return s.expect(':')
}

// literal reads the rest of a number, true, false or null that starts
// with c.
func (s *jsonScan) literal(c byte) error {
	var word string
	switch c {
	case 't':
		word = "rue"
	case 'f':
		word = "alse"
	case 'n':
		word = "ull"
	default:
		return s.number(c)
	}
	for i := 0; i < len(word); i++ {
		b, err := s.readByte()
		if err != nil {
			return err
		}
		if b != word[i] {
			return s.syntax()
		}
	}
	return nil
}

// number reads the rest of a number that starts with c, as JSON has
// them: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *jsonScan) number(c byte) error {
	// next is the byte after the number so far, 0 at the document's end.
	next := func() byte {
		if !s.ensure(1) {
			return 0
		}
		return s.buf[s.r]
	}
	// bad is the error of the byte next, or of the document's end.
	bad := func() error {
		if s.r == s.w {
			return s.failure()
		}
		s.discard(1)
		return s.syntax()
	}
	digits := func() error { // one or more
		if c := next(); c < '0' || c > '9' {
			return bad()
		}
		for c := next(); c >= '0' && c <= '9'; c = next() {
			s.discard(1)
		}
		return nil
	}
	if c == '-' {
		if c = next(); c < '0' || c > '9' {
			return bad()
		}
		s.discard(1)
	}
	switch {
	case c == '0':
	case c >= '1' && c <= '9':
		for c := next(); c >= '0' && c <= '9'; c = next() {
			s.discard(1)
		}
	default:
		return s.syntax()
	}
	if next() == '.' {
		s.discard(1)
		if err := digits(); err != nil {
			return err
		}
	}
	if c := next(); c == 'e' || c == 'E' {
		s.discard(1)
		if c := next(); c == '+' || c == '-' {
			s.discard(1)
		}
		return digits()
	}
	return nil // what follows is the caller's to read
}

// skipString reads the rest of a string whose opening quote was read.
func (s *jsonScan) skipString() error {
	for {
		if !s.ensure(1) {
			return s.failure()
		}
		buf := s.buf[s.r:s.w]
		i := 0
		for i < len(buf) && buf[i] != '"' && buf[i] != '\\' && buf[i] >= 0x20 {
			i++
		}
		s.discard(i)
		if i == len(buf) {
			continue
		}
		c, _ := s.readByte()
		switch {
		case c == '"':
			return nil
		case c < 0x20:
			return s.syntax()
		}
		if err := s.escape(); err != nil {
			return err
		}
	}
}

// escape reads an escape, after its backslash.
func (s *jsonScan) escape() error {
	e, err := s.readByte()
	if err != nil {
		return err
	}
	switch e {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return nil
	case 'u':
		j := jsonString{s: s}
		_, err := j.hex4()
		return err
	}
	return s.syntax()
}

// ifNext reads the value that comes next with read when it starts with
// c, and skips it when not: a field of another type is no field.
func (s *jsonScan) ifNext(c byte, read func() error) error {
	got, err := s.peek()
	if err != nil {
		return err
	}
	if got != c {
		return s.skip()
	}
	return read()
}

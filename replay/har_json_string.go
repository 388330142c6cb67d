package replay

import (
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// stringValue reads the string that comes next, keeping its first max
// bytes; cut says whether there were more.
func (s *jsonScan) stringValue(max int) (v string, cut bool, err error) {
	if err := s.expect('"'); err != nil {
		return "", false, err
	}
	str := jsonString{s: s}
	b := s.str[:0]
	var chunk [512]byte
	for {
		n, err := str.Read(chunk[:])
		keep := min(n, max-len(b))
		b = append(b, chunk[:keep]...)
		cut = cut || keep < n
		if err == io.EOF {
			if cap(b) <= 64<<10 { // a long URL's buffer goes with it
				s.str = b
			}
			return string(b), cut, nil
		}
		if err != nil {
			return "", false, err
		}
	}
}

// jsonString reads the text of a string whose opening quote was read,
// its escapes decoded as encoding/json decodes them, up to the closing
// quote, where it returns io.EOF.
type jsonString struct {
	s       *jsonScan
	done    bool
	pending [utf8.UTFMax]byte // an escape's bytes that did not fit
	np      int
}

func (j *jsonString) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if j.np > 0 {
			c := copy(p[n:], j.pending[:j.np])
			copy(j.pending[:], j.pending[c:j.np])
			j.np -= c
			n += c
			continue
		}
		if j.done {
			break
		}
		if !j.s.ensure(1) {
			return n, j.s.failure()
		}
		buf := j.s.buf[j.s.r:j.s.w]
		i := 0
		for i < len(buf) && i < len(p)-n && buf[i] != '"' && buf[i] != '\\' && buf[i] >= 0x20 && buf[i] < utf8.RuneSelf {
			i++
		}
		n += copy(p[n:], buf[:i])
		j.s.discard(i)
		if i < len(buf) && n < len(p) {
			if err := j.special(); err != nil {
				return n, err
			}
		}
	}
	if j.done && j.np == 0 {
		if n == 0 {
			return 0, io.EOF
		}
	}
	return n, nil
}

// special reads a closing quote, an escape, a control byte, or a
// character past ASCII: invalid UTF-8 is U+FFFD, as encoding/json makes
// it.
func (j *jsonString) special() error {
	s := j.s
	if s.buf[s.r] >= utf8.RuneSelf {
		s.ensure(utf8.UTFMax)
		r, size := utf8.DecodeRune(s.buf[s.r:s.w])
		j.np = utf8.EncodeRune(j.pending[:], r)
		s.discard(size)
		return nil
	}
	c, _ := s.readByte()
	switch {
	case c == '"':
		j.done = true
		return nil
	case c < 0x20:
		return s.syntax()
	}
	e, err := s.readByte()
	if err != nil {
		return err
	}
	var r rune
	switch e {
	case '"', '\\', '/':
		r = rune(e)
	case 'b':
		r = '\b'
	case 'f':
		r = '\f'
	case 'n':
		r = '\n'
	case 'r':
		r = '\r'
	case 't':
		r = '\t'
	case 'u':
		if r, err = j.hex4(); err != nil {
			return err
		}
		if utf16.IsSurrogate(r) {
			r = j.lowSurrogate(r)
		}
	default:
		return s.syntax()
	}
	j.np = utf8.EncodeRune(j.pending[:], r)
	return nil
}

func (j *jsonString) hex4() (rune, error) {
	if !j.s.ensure(4) {
		return 0, j.s.failure()
	}
	r, ok := hex4(j.s.buf[j.s.r : j.s.r+4])
	if !ok {
		return 0, j.s.syntax()
	}
	j.s.discard(4)
	return r, nil
}

// hex4 is the value of four hexadecimal digits.
func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// lowSurrogate joins the high surrogate hi with the \u escape of a low
// one after it; without one, hi is U+FFFD as encoding/json makes it.
func (j *jsonString) lowSurrogate(hi rune) rune {
	if !j.s.ensure(6) {
		return utf8.RuneError
	}
	b := j.s.buf[j.s.r : j.s.r+6]
	if b[0] != '\\' || b[1] != 'u' {
		return utf8.RuneError
	}
	lo, ok := hex4(b[2:])
	if !ok {
		return utf8.RuneError
	}
	r := utf16.DecodeRune(hi, lo)
	if r == utf8.RuneError {
		return r
	}
	j.s.discard(6)
	return r
}

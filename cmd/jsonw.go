package cmd

import (
	"bufio"
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string. Control characters, and
// U+2028/U+2029, are escaped; bytes that are not UTF-8 become U+FFFD, so
// the output is always valid JSON.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += n
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += n
			start = i
			continue
		}
		i += n
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// jsonObj builds one JSON object by appending to a byte slice.
type jsonObj struct {
	b     []byte
	first bool
}

func (o *jsonObj) open() { o.b = append(o.b, '{'); o.first = true }

func (o *jsonObj) close() { o.b = append(o.b, '}') }

func (o *jsonObj) key(k string) {
	if !o.first {
		o.b = append(o.b, ',')
	}
	o.first = false
	o.b = appendJSONString(o.b, k)
	o.b = append(o.b, ':')
}

func (o *jsonObj) str(k, v string) { o.key(k); o.b = appendJSONString(o.b, v) }

func (o *jsonObj) int(k string, v int64) { o.key(k); o.b = strconv.AppendInt(o.b, v, 10) }

func (o *jsonObj) bool(k string, v bool) { o.key(k); o.b = strconv.AppendBool(o.b, v) }

func (o *jsonObj) raw(k string, v []byte) { o.key(k); o.b = append(o.b, v...) }

// jsonStream writes machine records as they become known: one per line
// (JSON Lines) when key is empty, otherwise one document {"KEY": [...]}
// whose array is written record by record, so memory does not grow with
// the capture either way.
type jsonStream struct {
	out *bufio.Writer
	key string
	n   int
	buf []byte
}

// record writes the record that add appends.
func (s *jsonStream) record(add func([]byte) []byte) error {
	s.buf = s.buf[:0]
	switch {
	case s.key == "":
	case s.n == 0:
		s.buf = appendJSONString(append(s.buf, '{'), s.key)
		s.buf = append(s.buf, ":[\n"...)
	default:
		s.buf = append(s.buf, ",\n"...)
	}
	s.n++
	s.buf = add(s.buf)
	if s.key == "" {
		s.buf = append(s.buf, '\n')
	}
	_, err := s.out.Write(s.buf)
	return err
}

// close ends the document; more, when set, writes further members (with
// their leading comma) after the array.
func (s *jsonStream) close(more func(*bufio.Writer) error) error {
	if s.key == "" {
		return nil
	}
	if s.n == 0 {
		s.out.WriteByte('{')
		s.out.Write(appendJSONString(nil, s.key))
		s.out.WriteString(":[]")
	} else {
		s.out.WriteString("\n]")
	}
	if more != nil {
		if err := more(s.out); err != nil {
			return err
		}
	}
	_, err := s.out.WriteString("}\n")
	return err
}

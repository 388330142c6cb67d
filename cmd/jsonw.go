package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agentskit/snapctl/internal/termsafe"
)

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string that is safe to print on a
// terminal: every character termsafe.Unsafe names (controls, DEL, U+0085,
// U+2028/U+2029, bidi and zero-width format characters) is escaped as
// \uXXXX, so the parsed value is unchanged; bytes that are not UTF-8
// become U+FFFD, so the output is always valid JSON.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < 0x7f {
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
				b = appendUnicodeEscape(b, rune(c))
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
		if termsafe.Unsafe(r) {
			b = append(b, s[start:i]...)
			b = appendUnicodeEscape(b, r)
			i += n
			start = i
			continue
		}
		i += n
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendUnicodeEscape appends r as \uXXXX, or as a surrogate pair of them
// outside the Basic Multilingual Plane.
func appendUnicodeEscape(b []byte, r rune) []byte {
	if r > 0xffff {
		hi, lo := utf16.EncodeRune(r)
		return appendUnicodeEscape(appendUnicodeEscape(b, hi), lo)
	}
	return append(b, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}

// appendSafeJSON appends the JSON text src with every raw character that
// termsafe.Unsafe names escaped as \uXXXX. Outside strings JSON holds only
// ASCII punctuation, digits and letters, so every such character is inside
// a string, where the escape keeps the value. It makes what encoding/json
// writes as terminal-safe as appendJSONString; a byte that is not UTF-8
// (which encoding/json never writes) becomes U+FFFD.
func appendSafeJSON(b, src []byte) []byte {
	start := 0
	for i := 0; i < len(src); {
		c := src[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' || c == '\r' || c == ' ' {
			i++
			continue
		}
		r, n := rune(c), 1
		if c >= utf8.RuneSelf {
			r, n = utf8.DecodeRune(src[i:])
		}
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, src[start:i]...)
			b = append(b, `\ufffd`...)
		case termsafe.Unsafe(r):
			b = append(b, src[start:i]...)
			b = appendUnicodeEscape(b, r)
		default:
			i += n
			continue
		}
		i += n
		start = i
	}
	return append(b, src[start:]...)
}

// writeSafeJSON encodes v with encoding/json, without HTML escaping (no
// \u003c for "<", so values read as in the capture), indented when indent
// is set, and writes it terminal-safe (see appendSafeJSON) with a final
// newline.
func writeSafeJSON(out io.Writer, v any, indent bool) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := out.Write(appendSafeJSON(make([]byte, 0, buf.Len()+64), buf.Bytes()))
	return err
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

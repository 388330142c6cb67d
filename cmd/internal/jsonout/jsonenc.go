// Package jsonout is the one path of snapctl's JSON output: a streaming
// encoder that every -o json and -o jsonl takes, and the --jq filter
// between it and standard output.
package jsonout

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/internal/termsafe"
)

// Encoder is the one path every JSON output takes, -o json and
// -o jsonl of every command and the events inspect shows up close. It
// writes values as they come, so a document never has to be held whole:
// records are written field by field (the fast path of replay and diff),
// and a value of a contract type, or JSON text from a capture, goes
// through the same layout token by token (see Value and RawJSON).
//
// Every string it writes for programs is safe on a terminal: each
// character that termsafe.Unsafe names (controls, DEL, U+0085,
// U+2028/U+2029, bidi and zero-width format characters) is escaped as
// \uXXXX, so the parsed value is unchanged, and a byte that is not UTF-8
// becomes U+FFFD, so the output is always valid JSON. (JSON shown to people,
// Style.Human, escapes its strings as all human output does.)
//
// Indentation and colour are options: indented output is laid out as
// encoding/json's MarshalIndent with two spaces; colour wraps keys,
// strings, numbers and literals in the colours of a palette.
type Encoder struct {
	out    io.Writer
	b      []byte
	indent bool
	colour *Colours
	human  bool
	// open holds, for each container being written, whether it is an
	// object and whether it has a member yet.
	open     []jsonLevel
	afterKey bool
	err      error

	scratch bytes.Buffer
	enc     *json.Encoder
	tok     []byte
	// file is the capture a document is of (OfCapture), written first
	// in its top-level object when named.
	file  string
	named bool
}

type jsonLevel struct{ object, members bool }

// Colours colour the tokens of JSON for people to read.
type Colours struct{ key, str, num, lit func(string) string }

// Style is how a command writes JSON.
type Style struct {
	// Indent lays the document out on indented lines; otherwise each
	// top-level value is one compact line.
	Indent bool
	// Colour, when set, colours tokens (for a terminal only).
	Colour *Colours
	// Human shows JSON text to people rather than to programs: its
	// strings are made terminal-safe as all human output is (termsafe:
	// \x1b, \u202e, and \xff for a byte that is not UTF-8), which is
	// not always JSON.
	Human bool
}

// The two layouts of machine output.
var (
	// Document is -o json: one indented document.
	Document = Style{Indent: true}
	// Lines is -o jsonl: one compact record per line.
	Lines = Style{}
)

// StyleFor is the layout of the output format name, json or jsonl.
func StyleFor(format string) Style {
	if format == "jsonl" {
		return Lines
	}
	return Document
}

// PaletteColours are the colours of JSON shown to people: keys blue,
// strings green, numbers yellow, true, false and null magenta.
func PaletteColours(pal iostreams.Palette) *Colours {
	return &Colours{key: pal.Blue, str: pal.Green, num: pal.Yellow, lit: pal.Magenta}
}

// NewEncoder returns an encoder that writes to out in the given style.
// When out is a capture's writer (OfCapture) and the style is Document,
// the document's top-level object begins with "file": the capture.
func NewEncoder(out io.Writer, style Style) *Encoder {
	e := &Encoder{out: out, indent: style.Indent, colour: style.Colour, human: style.Human}
	if c, ok := out.(*captureWriter); ok {
		e.out = c.Writer
		if style.Indent {
			e.file, e.named = c.file, true
		}
	}
	return e
}

// captureWriter is OfCapture's writer.
type captureWriter struct {
	io.Writer
	file string
}

// OfCapture is w for the JSON document of one capture of several (--each:
// each has its own document, one after another): an Encoder of the
// Document style writing to it begins the document with "file", the
// capture's name, as --each's JSON Lines rows name it, so that every
// document says which capture it is of, also one with no record to name
// it (JSON Lines records name their file in their positions).
func OfCapture(w io.Writer, file string) io.Writer { return &captureWriter{w, file} }

// Flush writes what is pending and reports the first write error.
func (e *Encoder) Flush() error {
	if e.err == nil && len(e.b) > 0 {
		_, e.err = e.out.Write(e.b)
	}
	e.b = e.b[:0]
	return e.err
}

// End ends a top-level value with a newline and writes it out.
func (e *Encoder) End() error {
	e.b = append(e.b, '\n')
	return e.Flush()
}

// newline starts the next line at the depth of the open containers.
func (e *Encoder) newline() {
	e.b = append(e.b, '\n')
	for range e.open {
		e.b = append(e.b, "  "...)
	}
}

// member places the next value: after its key, or after a comma and on a
// line of its own inside an array.
func (e *Encoder) member() {
	if e.afterKey {
		e.afterKey = false
		return
	}
	n := len(e.open)
	if n == 0 {
		return
	}
	if e.open[n-1].members {
		e.b = append(e.b, ',')
	}
	e.open[n-1].members = true
	if e.indent {
		e.newline()
	}
}

func (e *Encoder) begin(c byte, object bool) {
	e.member()
	e.b = append(e.b, c)
	e.open = append(e.open, jsonLevel{object: object})
	if e.named && object && len(e.open) == 1 {
		e.named = false
		e.Key("file")
		e.Str(e.file)
	}
}

func (e *Encoder) finish(c byte) {
	last := e.open[len(e.open)-1]
	e.open = e.open[:len(e.open)-1]
	if last.members && e.indent {
		e.newline()
	}
	e.b = append(e.b, c)
}

// BeginObject opens an object; its members follow as Key and a value.
func (e *Encoder) BeginObject() { e.begin('{', true) }

// EndObject closes the object last opened.
func (e *Encoder) EndObject() { e.finish('}') }

// BeginArray opens an array; its values follow.
func (e *Encoder) BeginArray() { e.begin('[', false) }

// EndArray closes the array last opened.
func (e *Encoder) EndArray() { e.finish(']') }

// Key writes an object member's key; its value comes next.
func (e *Encoder) Key(k string) {
	if !e.indent && e.colour == nil {
		// The path of every JSON Lines record, kept short.
		top := &e.open[len(e.open)-1]
		if top.members {
			e.b = append(e.b, ',')
		}
		top.members = true
		e.b = append(AppendString(e.b, k), ':')
		e.afterKey = true
		return
	}
	e.member()
	if e.colour != nil {
		e.coloured(e.colour.key, AppendString(e.tok[:0], k))
	} else {
		e.b = AppendString(e.b, k)
	}
	e.colon()
}

func (e *Encoder) colon() {
	if e.indent {
		e.b = append(e.b, ':', ' ')
	} else {
		e.b = append(e.b, ':')
	}
	e.afterKey = true
}

// coloured appends tok in colour; tok may be e.tok, which it keeps.
func (e *Encoder) coloured(colour func(string) string, tok []byte) {
	e.tok = tok
	e.b = append(e.b, colour(string(tok))...)
}

// Str writes the string s.
func (e *Encoder) Str(s string) {
	e.member()
	if e.colour != nil {
		e.coloured(e.colour.str, AppendString(e.tok[:0], s))
		return
	}
	e.b = AppendString(e.b, s)
}

// Int writes the number n.
func (e *Encoder) Int(n int64) {
	e.member()
	if e.colour != nil {
		e.coloured(e.colour.num, strconv.AppendInt(e.tok[:0], n, 10))
		return
	}
	e.b = strconv.AppendInt(e.b, n, 10)
}

// Bool writes true or false.
func (e *Encoder) Bool(v bool) { e.literal(strconv.AppendBool(e.tok[:0], v)) }

// Null writes null.
func (e *Encoder) Null() { e.literal(append(e.tok[:0], "null"...)) }

func (e *Encoder) literal(tok []byte) {
	e.member()
	if e.colour != nil {
		e.coloured(e.colour.lit, tok)
		return
	}
	e.b = append(e.b, tok...)
	e.tok = tok
}

// StringArray writes an array of n strings.
func (e *Encoder) StringArray(n int, item func(int) string) {
	e.BeginArray()
	for i := 0; i < n; i++ {
		e.Str(item(i))
	}
	e.EndArray()
}

// Value writes v as encoding/json marshals it (without HTML escaping, so
// values read as in the capture), laid out and made safe as the rest.
func (e *Encoder) Value(v any) error {
	src, err := e.marshal(v)
	if err != nil {
		return err
	}
	e.RawJSON(src)
	return nil
}

// Fields writes the members of the object v marshals to into the object
// being written, so that more members can follow them.
func (e *Encoder) Fields(v any) error {
	src, err := e.marshal(v)
	if err != nil {
		return err
	}
	src = bytes.TrimSpace(src)
	e.RawJSON(src[1 : len(src)-1])
	return nil
}

func (e *Encoder) marshal(v any) ([]byte, error) {
	if e.enc == nil {
		e.enc = json.NewEncoder(&e.scratch)
		e.enc.SetEscapeHTML(false)
	}
	e.scratch.Reset()
	if err := e.enc.Encode(v); err != nil {
		return nil, err
	}
	return e.scratch.Bytes(), nil
}

// RawJSON writes the JSON text src, which must be valid JSON, token by
// token: its own layout is dropped, its strings keep their escapes and
// get the ones this encoder adds.
func (e *Encoder) RawJSON(src []byte) {
	for i := 0; i < len(src); {
		switch c := src[i]; c {
		case ' ', '\t', '\n', '\r', ',', ':':
			i++
		case '{':
			e.BeginObject()
			i++
		case '[':
			e.BeginArray()
			i++
		case '}':
			e.EndObject()
			i++
		case ']':
			e.EndArray()
			i++
		case '"':
			j := stringEnd(src, i)
			isKey := len(e.open) > 0 && e.open[len(e.open)-1].object && !e.afterKey
			e.member()
			if isKey {
				e.rawToken(tokenKey, src[i:j])
				e.colon()
			} else {
				e.rawToken(tokenString, src[i:j])
			}
			i = j
		default:
			j := tokenEnd(src, i)
			e.member()
			if c == '-' || c >= '0' && c <= '9' {
				e.rawToken(tokenNumber, src[i:j])
			} else {
				e.rawToken(tokenLiteral, src[i:j])
			}
			i = j
		}
	}
}

// The kinds of token, each in its own colour.
const (
	tokenKey = iota
	tokenString
	tokenNumber
	tokenLiteral
)

// rawToken appends one token of JSON text, terminal-safe, in the colour
// of its kind.
func (e *Encoder) rawToken(kind int, tok []byte) {
	switch {
	case e.human:
		e.tok = append(e.tok[:0], termsafe.String(string(tok))...)
	case e.colour == nil:
		e.b = appendSafeJSON(e.b, tok)
		return
	default:
		e.tok = appendSafeJSON(e.tok[:0], tok)
	}
	if e.colour == nil {
		e.b = append(e.b, e.tok...)
		return
	}
	colour := [...]func(string) string{e.colour.key, e.colour.str, e.colour.num, e.colour.lit}[kind]
	e.coloured(colour, e.tok)
}

// tokenEnd returns the index just past the number or literal starting
// at i: the next space, comma, colon or closing bracket.
func tokenEnd(src []byte, i int) int {
	j := i
	for j < len(src) && !tokenStop[src[j]] {
		j++
	}
	return j
}

var tokenStop = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, ',': true, ':': true, ']': true, '}': true}

// stringEnd returns the index just past the JSON string starting at i
// (len(b) if it does not end): the first quote after it that an even
// number of backslashes precedes, found by IndexByte rather than byte by
// byte.
func stringEnd(b []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b)
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string that is safe to print on a
// terminal (see Encoder), its escapes those of encoding/json (\b and \f
// included) and then appendSafeJSON's: a string written by hand is
// written as Value writes it (FuzzStrAsValue).
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while none needs an escape.
		if i+8 <= len(s) && plainWord(s[i:i+8]) {
			i += 8
			continue
		}
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
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
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

// plainWord reports whether the eight bytes of s are all printable ASCII
// (0x20 to 0x7e) other than a quote or a backslash: bytes a JSON string
// holds as they are.
func plainWord(s string) bool {
	_ = s[7]
	w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	return (notPrintable(w)|zeroByte(w^(ones*'"'))|zeroByte(w^(ones*'\\')))&highs == 0
}

const ones, highs = 0x0101010101010101, 0x8080808080808080

// notPrintable sets, among others, the high bit of every byte of w below
// 0x20 or above 0x7e when there is one: nothing of it, masked by highs,
// when every byte is printable ASCII.
func notPrintable(w uint64) uint64 { return (w-ones*0x20)&^w | (w + ones) | w }

// zeroByte likewise sets the high bit of a zero byte of w.
func zeroByte(w uint64) uint64 { return (w - ones) &^ w }

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
// a string, where the escape keeps the value; a byte that is not UTF-8
// becomes U+FFFD.
func appendSafeJSON(b, src []byte) []byte {
	start := 0
	for i := 0; i < len(src); {
		// Eight bytes at a time while they are all printable ASCII
		// (0x20 to 0x7e), which nearly all output is.
		if i+8 <= len(src) {
			if notPrintable(binary.LittleEndian.Uint64(src[i:]))&highs == 0 {
				i += 8
				continue
			}
		}
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

// RecordStream writes records as JSON Lines, or as the array under key of
// one document whose records are written as they come: replay's events
// and diff's pairs.
type RecordStream struct {
	// Enc is the encoder of the records, for the members that follow
	// them.
	Enc *Encoder
	// Lines says the records are JSON Lines, not one document.
	Lines bool
}

// NewRecordStream returns a stream of records in format, json or
// jsonl; with json, it opens the document and its array under key.
func NewRecordStream(out io.Writer, format, key string) RecordStream {
	s := RecordStream{Enc: NewEncoder(out, StyleFor(format)), Lines: format == "jsonl"}
	if !s.Lines {
		s.Enc.BeginObject()
		s.Enc.Key(key)
		s.Enc.BeginArray()
	}
	return s
}

// Done ends the record just written: its line, or a flush of the document
// so far.
func (s RecordStream) Done() error {
	if s.Lines {
		return s.Enc.End()
	}
	return s.Enc.Flush()
}

package replay

import (
	"bytes"
	"encoding/base64"
)

// markerFinder looks for the turn marker in a text written to it a piece
// at a time, and whether the text starts as a server error body does.
type markerFinder struct {
	found bool
	tail  []byte // the last bytes written, shorter than the marker
	// head holds the text's first bytes past leading blanks, up to the
	// length of ErrorBodyPrefix; blanks says whether only blanks came.
	head   []byte
	blanks bool
}

func (m *markerFinder) reset() {
	m.found, m.tail, m.head, m.blanks = false, m.tail[:0], m.head[:0], true
}

// errorBody says whether the text starts with ErrorBodyPrefix.
func (m *markerFinder) errorBody() bool { return bytes.Equal(m.head, ErrorBodyPrefix) }

func (m *markerFinder) write(p []byte) {
	if len(m.head) < len(ErrorBodyPrefix) {
		q := p
		if m.blanks {
			q = bytes.TrimLeft(q, " \t\r\n")
			m.blanks = len(q) == 0
		}
		m.head = append(m.head, q[:min(len(q), len(ErrorBodyPrefix)-len(m.head))]...)
	}
	if m.found || len(p) == 0 {
		return
	}
	k := len(turnMarker) - 1
	joint := append(m.tail, p[:min(k, len(p))]...)
	if bytes.Contains(joint, turnMarker) || bytes.Contains(p, turnMarker) {
		m.found = true
		return
	}
	if len(p) >= k {
		m.tail = append(m.tail[:0], p[len(p)-k:]...)
	} else {
		m.tail = append(m.tail[:0], joint[max(0, len(joint)-k):]...)
	}
}

// b64Finder decodes base64 written to it a piece at a time into out,
// ignoring line breaks as encoding/base64 does, and tells whether it
// was base64.
type b64Finder struct {
	out    *markerFinder
	q      []byte // characters not yet decoded
	dec    []byte
	padded bool // the last quantum decoded was padded: nothing may follow
	bad    bool
}

func (b *b64Finder) reset(out *markerFinder) {
	b.out, b.q, b.padded, b.bad = out, b.q[:0], false, false
}

func (b *b64Finder) write(p []byte) {
	for _, c := range p {
		if b.bad {
			return
		}
		if c == '\r' || c == '\n' {
			continue
		}
		if b.padded || !isBase64Byte(c) {
			b.bad = true
			return
		}
		b.q = append(b.q, c)
		if len(b.q) == 4<<10 {
			b.flush()
		}
	}
}

func (b *b64Finder) flush() {
	if b.bad || len(b.q) == 0 {
		return
	}
	if len(b.dec) < base64.StdEncoding.DecodedLen(len(b.q)) {
		b.dec = make([]byte, base64.StdEncoding.DecodedLen(4<<10))
	}
	n, err := base64.StdEncoding.Decode(b.dec, b.q)
	if err != nil {
		b.bad = true
		return
	}
	b.padded = b.q[len(b.q)-1] == '='
	b.out.write(b.dec[:n])
	b.q = b.q[:0]
}

func (b *b64Finder) close() { b.flush() }

func isBase64Byte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
}

package wire

import (
	"encoding/binary"
	"unicode/utf16"
	"unicode/utf8"
)

// Object keys are compared the way JavaScript sees them after Node decodes
// the capture as UTF-8 and JSON.parse unescapes them: as UTF-16 code
// units. canonKey renders a raw key so that two keys are equal exactly when
// their bytes are: escapes decoded, a lone surrogate escape kept as its own
// code unit (encoded like UTF-8, "WTF-8", so it differs from U+FFFD), and
// bytes that are not UTF-8 replaced by U+FFFD the way Node's decoder does
// (one replacement per maximal invalid subsequence).
func canonKey(dst, raw []byte, esc bool) []byte {
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\' && esc:
			if raw[i+1] != 'u' {
				dst = appendUnescaped(dst, raw[i:i+2])
				i += 2
				continue
			}
			r := rune(hexVal(raw[i+2 : i+6]))
			i += 6
			if r >= 0xd800 && r < 0xdc00 && i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
				if r2 := rune(hexVal(raw[i+2 : i+6])); r2 >= 0xdc00 && r2 < 0xe000 {
					dst = utf8.AppendRune(dst, utf16.DecodeRune(r, r2))
					i += 6
					continue
				}
			}
			if utf16.IsSurrogate(r) {
				dst = append(dst, 0xe0|byte(r>>12), 0x80|byte(r>>6)&0x3f, 0x80|byte(r)&0x3f)
				continue
			}
			dst = utf8.AppendRune(dst, r)
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			if r, n := utf8.DecodeRune(raw[i:]); r != utf8.RuneError || n > 1 {
				dst = append(dst, raw[i:i+n]...)
				i += n
				continue
			}
			dst = append(dst, "\ufffd"...)
			i += invalidSpan(raw[i:])
		}
	}
	return dst
}

// invalidSpan is the length of the maximal subpart of an ill-formed UTF-8
// sequence at the start of b: the bytes a WHATWG decoder replaces with one
// U+FFFD. It is at least 1.
func invalidSpan(b []byte) int {
	lead := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xbf)
	switch {
	case lead >= 0xc2 && lead <= 0xdf:
		need = 1
	case lead >= 0xe0 && lead <= 0xef:
		need = 2
		if lead == 0xe0 {
			lo = 0xa0
		} else if lead == 0xed {
			hi = 0x9f
		}
	case lead >= 0xf0 && lead <= 0xf4:
		need = 3
		if lead == 0xf0 {
			lo = 0x90
		} else if lead == 0xf4 {
			hi = 0x8f
		}
	default:
		return 1
	}
	n := 1
	for ; n <= need && n < len(b); n++ {
		if b[n] < lo || b[n] > hi {
			break
		}
		lo, hi = 0x80, 0xbf
	}
	return n
}

// keyUnits is the length JavaScript reports for a key in canonKey form.
func keyUnits(k []byte) int {
	n := 0
	for i := 0; i < len(k); {
		if k[i] == 0xed && i+1 < len(k) && k[i+1] >= 0xa0 {
			n++ // a lone surrogate kept by canonKey
			i += 3
			continue
		}
		r, size := utf8.DecodeRune(k[i:])
		if r > 0xffff {
			n += 2
		} else {
			n++
		}
		i += size
	}
	return n
}

func isASCII(b []byte) bool {
	// Eight bytes at a time: a key is read twice for it (its node, and
	// the repeated-key check), and most are a word or two long.
	for ; len(b) >= 8; b = b[8:] {
		if binary.LittleEndian.Uint64(b)&msb != 0 {
			return false
		}
	}
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// keyLen is the JavaScript length of a member's key.
func (p *parser) keyLen(m *node) int {
	if m.keyPlain {
		return int(m.keyEnd - m.keyStart)
	}
	p.scratch = canonKey(p.scratch[:0], p.data[m.keyStart:m.keyEnd], m.keyEsc)
	return keyUnits(p.scratch)
}

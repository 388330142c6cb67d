package wire

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// unescaped is the raw JSON string content b itself when it has no
// escapes, or else its decoded form, kept in *buf.
func unescaped(b []byte, esc bool, buf *[]byte) []byte {
	if !esc {
		return b
	}
	*buf = appendUnescaped((*buf)[:0], b)
	return *buf
}

// appendUnescaped appends the decoded content of a JSON string (without
// quotes) to dst. Lone surrogates, which JavaScript keeps, become U+FFFD.
// The scanner checked the escapes, but the bytes may have changed since
// (a mapped capture written over while read): an escape cut short by the
// end is appended as it is, never read past s.
func appendUnescaped(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		if s[i] == '\\' && (i+1 == len(s) || (s[i+1] == 'u' && i+6 > len(s))) {
			return append(dst, s[i:]...)
		}
		c := s[i]
		if c != '\\' {
			j := i + 1
			for j < len(s) && s[j] != '\\' {
				j++
			}
			dst = append(dst, s[i:j]...)
			i = j
			continue
		}
		switch s[i+1] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := rune(hexVal(s[i+2 : i+6]))
			i += 6
			if utf16.IsSurrogate(r) && r < 0xdc00 && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
				r2 := rune(hexVal(s[i+2 : i+6]))
				if r2 >= 0xdc00 && r2 < 0xe000 {
					r = utf16.DecodeRune(r, r2)
					i += 6
				}
			}
			dst = utf8.AppendRune(dst, r) // a lone surrogate encodes as U+FFFD
			continue
		default: // " \ /
			dst = append(dst, s[i+1])
		}
		i += 2
	}
	return dst
}

func hexVal(b []byte) uint32 {
	var v uint32
	for _, c := range b[:4] {
		v <<= 4
		switch {
		case c <= '9':
			v |= uint32(c - '0')
		case c >= 'a':
			v |= uint32(c - 'a' + 10)
		default:
			v |= uint32(c - 'A' + 10)
		}
	}
	return v
}

// parseNumber converts a JSON number literal the way JSON.parse does:
// to the nearest float64, overflowing to ±Inf.
func parseNumber(b []byte) float64 {
	// Short integers are common (sequence, tokens): no strconv needed.
	if len(b) > 0 && len(b) <= 15 {
		neg := b[0] == '-'
		digits := b
		if neg {
			digits = b[1:]
		}
		var v int64
		ok := len(digits) > 0
		for _, c := range digits {
			if !isDigit(c) {
				ok = false
				break
			}
			v = v*10 + int64(c-'0')
		}
		if ok {
			if neg {
				return -float64(v)
			}
			return float64(v)
		}
	}
	f, _ := strconv.ParseFloat(string(b), 64)
	return f
}

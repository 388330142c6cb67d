// Package jsontest checks, for tests, what snapctl's JSON output must
// never hold, apart from the encoder that promises it.
package jsontest

import (
	"unicode"
	"unicode/utf8"
)

// Forbidden reports the first character of out that no JSON output
// may hold raw, or -1: controls other than the newline and indentation,
// DEL, C1 controls, line separators, format characters (bidi controls,
// zero-width spaces, U+FEFF) and bytes that are not UTF-8.
func Forbidden(out []byte) int {
	for i := 0; i < len(out); {
		r, n := utf8.DecodeRune(out[i:])
		bad := r < 0x20 && r != '\n' && r != ' ' || r == 0x7f || r >= 0x80 && r <= 0x9f ||
			r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r) || r == utf8.RuneError && n == 1
		if bad {
			return i
		}
		i += n
	}
	return -1
}

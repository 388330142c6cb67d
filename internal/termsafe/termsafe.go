// Package termsafe makes untrusted text safe to print on a terminal.
package termsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// String returns s with every character that could act on a terminal made
// visible as an escape: C0 and C1 controls (ESC, so no ANSI or OSC
// sequence survives), DEL, Unicode bidirectional controls, line and
// paragraph separators, and bytes that are not UTF-8. A backslash stays as it is. Text without such characters
// is returned unchanged, without allocating.
func String(s string) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if needsEscape(r, n) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80 && needsEscape(r, n):
			fmt.Fprintf(&b, `\x%02x`, r)
		case needsEscape(r, n):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func needsEscape(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n == 1:
		return true
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true // bidirectional controls can reorder what a line shows
	case r == 0x2028, r == 0x2029:
		return true // line and paragraph separators break lines on some terminals
	}
	return false
}

// Truncate shortens s to at most max runes, ending in "…" when cut. It
// looks at no more than max+1 runes of s, however long s is.
func Truncate(s string, max int) string {
	cut, runes := 0, 0
	for i := range s {
		if runes == max-1 {
			cut = i
		}
		if runes == max {
			return s[:cut] + "…"
		}
		runes++
	}
	return s
}

// Line is String for a one-line preview of at most max runes. Only the
// first max+1 runes are escaped: each makes at least one rune of the
// preview, so the rest could not show.
func Line(s string, max int) string {
	runes := 0
	for i := range s {
		if runes == max+1 {
			s = s[:i]
			break
		}
		runes++
	}
	return Truncate(String(s), max)
}

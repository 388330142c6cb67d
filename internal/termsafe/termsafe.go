// Package termsafe makes untrusted text safe to print on a terminal.
package termsafe

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// String returns s with every character that could act on a terminal, or
// hide from the reader, made visible as an escape: C0 and C1 controls
// (ESC, so no ANSI or OSC sequence survives), DEL, line and paragraph
// separators, bidirectional controls and the other invisible format
// characters (zero-width spaces and joiners, U+FEFF), and bytes that are
// not UTF-8 (as \xNN; characters as \uNNNN or \UNNNNNNNN). A backslash stays as it is. Text without such
// characters is returned unchanged, without allocating.
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
		case r < 0x80 && Unsafe(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case r > 0xffff && Unsafe(r):
			fmt.Fprintf(&b, `\U%08x`, r)
		case Unsafe(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Lines is String for text of several lines, such as a capture shown on
// a terminal: each line is escaped as String does, and the newlines that
// end them stay, so the text still reads one line to a line.
func Lines(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		line, rest, cut := strings.Cut(s, "\n")
		b.WriteString(String(line))
		if cut {
			b.WriteByte('\n')
		}
		s = rest
	}
	return b.String()
}

func needsEscape(r rune, n int) bool {
	return r == utf8.RuneError && n == 1 || Unsafe(r)
}

// Unsafe reports whether r must not reach a terminal as it is: a C0 or C1
// control (U+0085 among them), DEL, a line or paragraph separator, or a
// format character (Unicode category Cf: the bidirectional controls such
// as U+202E and U+2066–U+2069, zero-width spaces and joiners U+200B–U+200D,
// U+2060, U+FEFF, soft hyphens, tags), or a noncharacter (U+FDD0–U+FDEF,
// and the last two code points of every plane, U+FFFE and U+FFFF among
// them). Such characters either drive the terminal or change what a line
// seems to say without being seen; U+FFFE and U+FFFF also make an XML
// document, such as lineage -o svg, ill-formed. Every output of snapctl
// escapes them, JSON included.
func Unsafe(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r < 0xa0:
		return false
	case r == 0x2028, r == 0x2029:
		return true // line and paragraph separators break lines on some terminals
	case r >= 0xfdd0 && r <= 0xfdef, r&0xfffe == 0xfffe:
		return true // noncharacters
	}
	return unicode.Is(unicode.Cf, r)
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

// Package text lays out snapctl's human output: the width of a string on
// a terminal, columns sized and shortened to fit a width, tables streamed
// under tablewriter (Table says what it draws), and long lines wrapped.
// It knows nothing of commands or captures: cells come to it
// terminal-safe.
package text

import "github.com/charmbracelet/x/ansi"

// Width is the number of terminal cells s occupies: grapheme clusters as
// a terminal draws them (a CJK character or an emoji takes two), escape
// sequences (snapctl's colours) none. It is the one width function of
// the program: every column, pad and wrap is measured with it, so that
// what is measured is what is drawn.
func Width(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= ' ' && c <= '~':
			n++ // printable ASCII, the common case: one cell a byte
		case c == 0x1b && i+1 < len(s) && s[i+1] == '[':
			// A CSI sequence (a colour) takes no cell: skip its
			// parameters, intermediates and final byte, which is every
			// escape sequence snapctl writes.
			j := i + 2
			for j < len(s) && s[j] >= 0x30 && s[j] <= 0x3f {
				j++
			}
			for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
				j++
			}
			if j == len(s) || s[j] < 0x40 || s[j] > 0x7e {
				return ansi.StringWidth(s)
			}
			i = j
		default:
			return ansi.StringWidth(s)
		}
	}
	return n
}

// split cuts s after at most cells cells, between grapheme clusters and
// never inside an escape sequence; an escape at the cut stays in head.
func split(s string, cells int) (head, rest string) {
	var state byte
	n := 0
	for i := 0; i < len(s); {
		_, w, size, next := ansi.DecodeSequence(s[i:], state, nil)
		if n+w > cells {
			return s[:i], s[i:]
		}
		n += w
		i += size
		state = next
	}
	return s, ""
}

// tail is the longest end of s that takes at most cells cells, cut
// between grapheme clusters.
func tail(s string, cells int) string {
	left := Width(s)
	var state byte
	for i := 0; i < len(s); {
		if left <= cells {
			return s[i:]
		}
		_, w, size, next := ansi.DecodeSequence(s[i:], state, nil)
		left -= w
		i += size
		state = next
	}
	return ""
}

// Package runes counts the characters of strings as
// utf8.RuneCountInString does, but eight bytes at a time over ASCII,
// which the standard library reads a byte at a time. The streaming tail
// of a reply is counted on every snapshot, and most of its text is
// ASCII.
package runes

import "unicode/utf8"

// Count is utf8.RuneCountInString(s): each invalid byte counts as one.
// Text that is not ASCII is counted by the standard library a run at a
// time, cut only before an ASCII byte, which no multi-byte sequence
// holds: the counts of the pieces add up to the count of the whole.
func Count(s string) int {
	n, i := 0, 0
	for len(s)-i >= 8 {
		if word(s[i:i+8])&0x8080808080808080 == 0 {
			n, i = n+8, i+8
			continue
		}
		j := i + 8
		for j < len(s) && s[j] >= utf8.RuneSelf {
			j++
		}
		n, i = n+utf8.RuneCountInString(s[i:j]), j
	}
	return n + utf8.RuneCountInString(s[i:])
}

// word is the eight bytes of s as one little-endian word.
func word(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

package runes

import (
	"strings"
	"testing"
	"unicode/utf8"
)

var cases = []string{
	"", "a", "abcdefg", "abcdefgh", "abcdefghi",
	"é", "aaaaaaaé", "aaaaaaaaé", "日本語のテキスト", "mixed ascii and ünïcödé text, long enough to take words",
	"\xff", "abcdefg\xff", "\xe6\x97", "aaaaaaa\xe6\x97\xa5bbbbbbbbb", "\xed\xa0\x80", "\xf4\x90\x80\x80",
	strings.Repeat("greater a projection which ", 60),
}

func TestCount(t *testing.T) {
	for _, s := range cases {
		if got, want := Count(s), utf8.RuneCountInString(s); got != want {
			t.Errorf("Count(%q) = %d, want %d", s, got, want)
		}
	}
}

func FuzzCount(f *testing.F) {
	for _, s := range cases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Count(s), utf8.RuneCountInString(s); got != want {
			t.Errorf("Count(%q) = %d, want %d", s, got, want)
		}
	})
}

func BenchmarkCount(b *testing.B) {
	for _, s := range []string{strings.Repeat("greater a projection which ", 60), strings.Repeat("ünïcödé ", 200)} {
		b.Run(map[bool]string{true: "ascii", false: "utf8"}[s[1] < utf8.RuneSelf], func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				Count(s)
			}
		})
		b.Run(map[bool]string{true: "ascii", false: "utf8"}[s[1] < utf8.RuneSelf]+"/stdlib", func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				utf8.RuneCountInString(s)
			}
		})
	}
}

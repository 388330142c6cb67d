package termsafe

import (
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"plain text is unchanged", "hello, wörld → 😀", "hello, wörld → 😀"},
		{"ANSI colour", "\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"OSC title with BEL", "\x1b]0;owned\a", `\x1b]0;owned\x07`},
		{"newline, CR and tab", "a\nb\rc\td", `a\nb\rc\td`},
		{"NUL and DEL", "\x00\x7f", `\x00\x7f`},
		{"C1 CSI", "\u009b31m", `\u009b31m`},
		{"bidi override", "abc\u202edcba", `abc\u202edcba`},
		{"bidi isolate", "\u2066x\u2069", `\u2066x\u2069`},
		{"line separator", "a\u2028b", `a\u2028b`},
		{"noncharacter FFFE", "a\ufffeb\uffff", `a\ufffeb\uffff`},
		{"noncharacter FDD0", "\ufdd0", `\ufdd0`},
		{"noncharacter of plane 16", "\U0010fffe", `\U0010fffe`},
		{"private use stays", "\ue000\U000ffffd", "\ue000\U000ffffd"},
		{"invalid UTF-8", "a\xffb", `a\xffb`},
		{"backslash stays", `a\b`, `a\b`},
		{"NEL is a C1 control", "a\u0085b", `a\u0085b`},
		{"last C1 control", "\u009f", `\u009f`},
		{"first character after C1 stays", "\u00a0", "\u00a0"},
		{"zero-width space, joiners and word joiner", "a\u200bb\u200cc\u200dd\u2060e", `a\u200bb\u200cc\u200dd\u2060e`},
		{"byte order mark", "\ufeffx", `\ufeffx`},
		{"arabic letter mark and LRM/RLM", "\u061c\u200e\u200f", `\u061c\u200e\u200f`},
		{"soft hyphen is a format character", "co\u00adop", `co\u00adop`},
		{"tag character outside the BMP", "x\U000e0041", `x\U000e0041`},
		{"letters next to format characters stay", "\u200a\u2010\u2065\u206f\u2070", "\u200a\u2010\u2065\\u206f\u2070"},
		{"emoji stay", "👍🏽", "👍🏽"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := String(tc.in); got != tc.want {
				t.Fatalf("String(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestLine(t *testing.T) {
	if got := Line("\x1b[2Jabcdefghij", 8); got != `\x1b[2J…` {
		t.Fatalf("got %q", got)
	}
	if got := Line("short", 8); got != "short" {
		t.Fatalf("got %q", got)
	}
}

func FuzzString(f *testing.F) {
	f.Add("\x1b[31mred")
	f.Add("a\u202eb\xff")
	f.Fuzz(func(t *testing.T, s string) {
		out := String(s)
		if !utf8.ValidString(out) {
			t.Fatalf("String(%q) = %q is not UTF-8", s, out)
		}
		for _, r := range out {
			if Unsafe(r) {
				t.Fatalf("String(%q) kept %U", s, r)
			}
		}
	})
}

func TestUnsafe(t *testing.T) {
	cases := []struct {
		r    rune
		want bool
	}{
		{0x00, true}, {0x1f, true}, {' ', false}, {'~', false}, {0x7f, true},
		{0x80, true}, {0x85, true}, {0x9f, true}, {0xa0, false}, {'é', false},
		{0x061b, false}, {0x061c, true}, {0x200a, false}, {0x200b, true}, {0x200f, true},
		{0x2010, false}, {0x2027, false}, {0x2028, true}, {0x2029, true}, {0x202a, true},
		{0x202e, true}, {0x202f, false}, {0x205f, false}, {0x2060, true}, {0x2066, true},
		{0x2069, true}, {0xfefe, false}, {0xfeff, true}, {0xff00, false}, {0x1f600, false}, {0xe0001, true},
	}
	for _, tc := range cases {
		if got := Unsafe(tc.r); got != tc.want {
			t.Errorf("Unsafe(%U) = %v, want %v", tc.r, got, tc.want)
		}
	}
}

// TestLineHead checks Line against escaping the whole text and then
// cutting it, and that a preview of a long text costs what a short one
// does.
func TestLineHead(t *testing.T) {
	whole := func(s string, max int) string {
		e := []rune(String(s))
		if len(e) <= max {
			return string(e)
		}
		return string(e[:max-1]) + "…"
	}
	parts := []string{"a", "é", "\x1b", "\xff", "\u202e", "\n", " ", "\U0001F600"}
	x := uint32(5)
	for it := 0; it < 20000; it++ {
		var b strings.Builder
		x = x*1103515245 + 12345
		n := int(x>>8) % 14
		for i := 0; i < n; i++ {
			x = x*1103515245 + 12345
			b.WriteString(parts[int(x>>8)%len(parts)])
		}
		for max := 1; max <= 8; max++ {
			if got, want := Line(b.String(), max), whole(b.String(), max); got != want {
				t.Fatalf("Line(%q, %d) = %q, want %q", b.String(), max, got, want)
			}
		}
	}
	long := strings.Repeat("\x1b[31m", 1<<20)
	var m1, m2 runtime.MemStats
	runtime.ReadMemStats(&m1)
	Line(long, 60)
	runtime.ReadMemStats(&m2)
	if got := m2.TotalAlloc - m1.TotalAlloc; got > 64<<10 {
		t.Errorf("a preview of 5 MB of escapes allocates %d bytes", got)
	}
}

func TestLines(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"a\nb\n", "a\nb\n"},
		{"\x1b[2J\n\u202e\r\n\xff", `\x1b[2J` + "\n" + `\u202e\r` + "\n" + `\xff`},
		{"\n\n", "\n\n"},
	}
	for _, tc := range cases {
		if got := Lines(tc.in); got != tc.want {
			t.Errorf("Lines(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

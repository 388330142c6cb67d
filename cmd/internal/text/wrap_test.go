package text

import "testing"

func TestWrapLine(t *testing.T) {
	cases := []struct {
		name, in string
		width    int
		want     string
	}{
		{"fits", "  short", 20, "  short\n"},
		{"at words, indented", "  one two three four", 12, "  one two\n    three\n    four\n"},
		{"a long word broken", "abcdefghijkl", 5, "abcde\n  fgh\n  ijk\n  l\n"},
		{"colour takes no room", "\x1b[1mbold\x1b[0m word", 9, "\x1b[1mbold\x1b[0m word\n"},
		{"wide runes broken whole", "日本語のセッション", 5, "日本\n  語\n  の\n  セ\n  ッ\n  シ\n  ョ\n  ン\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := WrapLine(tc.in, tc.width); got != tc.want {
				t.Errorf("WrapLine(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
			}
		})
	}
}

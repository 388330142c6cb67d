package cmd

import (
	"slices"
	"testing"
)

func TestShorten(t *testing.T) {
	cases := []struct {
		name, in string
		width    int
		how      fit
		want     string
	}{
		{"fits", "turn-1", 13, fitMiddle, "turn-1"},
		{"id in the middle", "evt-session-0-1-777420", 13, fitMiddle, "evt-se…777420"},
		{"even width", "evt-session-0-1-777420", 12, fitMiddle, "evt-s…777420"},
		{"free text at the end", "sequence 3 < accepted 6", 12, fitTail, "sequence 3 …"},
		{"kept", "snapshot", 3, fitKeep, "snapshot"},
		{"a position keeps its line", "interleaved.jsonl:13", 12, fitPosition, "inte…sonl:13"},
		{"a position without room for its file", "c.jsonl:123456789012", 12, fitPosition, "c.jso…789012"},
		{"whole with width 0", "evt-session-0-1-777420", 0, fitMiddle, "evt-session-0-1-777420"},
		{"wide runes", "日本語のセッション", 9, fitMiddle, "日本…ョン"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := shorten(tc.in, tc.width, tc.how)
			if got != tc.want {
				t.Errorf("shorten(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
			}
			if tc.width > 0 && tc.how != fitKeep && displayWidth(got) > tc.width {
				t.Errorf("shorten(%q, %d) is %d cells wide", tc.in, tc.width, displayWidth(got))
			}
		})
	}
}

func TestFitWidths(t *testing.T) {
	cols := []column{{"ID", false, fitMiddle, 0}, {"KIND", false, fitKeep, 1}, {"DETAIL", false, fitTail, 0}}
	rows := [][]string{{"evt-session-0-1-777420", "snapshot", "sequence 3 < accepted 6, a long way back"}}
	cases := []struct {
		name  string
		width int
		want  []int
	}{
		{"whole", 0, []int{22, 8, 40}},
		{"room to spare: detail takes the rest", 120, []int{22, 8, 86}},
		{"ids shortened first", 70, []int{18, 8, 40}},
		{"then the detail cut", 40, []int{13, 8, 15}},
		{"then a column dropped", 30, []int{13, 0, 15}},
		{"then ids past reading", 22, []int{8, 0, 12}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := fitWidths(cols, rows, tc.width)
			if !slices.Equal(got, tc.want) {
				t.Errorf("fitWidths at %d = %v, want %v", tc.width, got, tc.want)
			}
		})
	}
}

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
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := wrapLine(tc.in, tc.width); got != tc.want {
				t.Errorf("wrapLine(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
			}
		})
	}
}

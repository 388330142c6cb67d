package text

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestShorten(t *testing.T) {
	cases := []struct {
		name, in string
		width    int
		how      Fit
		want     string
	}{
		{"fits", "turn-1", 13, FitMiddle, "turn-1"},
		{"id in the middle", "evt-session-0-1-777420", 13, FitMiddle, "evt-se…777420"},
		{"even width", "evt-session-0-1-777420", 12, FitMiddle, "evt-s…777420"},
		{"free text at the end", "sequence 3 < accepted 6", 12, FitTail, "sequence 3 …"},
		{"kept", "snapshot", 3, FitKeep, "snapshot"},
		{"a position keeps its line", "interleaved.jsonl:13", 12, FitPosition, "inte…sonl:13"},
		{"a position without room for its file keeps its line", "c.jsonl:123456789012", 12, FitPosition, "…:123456789012"},
		{"a bare line number is never cut", "10026", 4, FitPosition, "10026"},
		{"whole with width 0", "evt-session-0-1-777420", 0, FitMiddle, "evt-session-0-1-777420"},
		{"wide runes", "日本語のセッション", 9, FitMiddle, "日本…ョン"},
		{"wide runes, odd room", "日本語のセッション", 8, FitMiddle, "日…ョン"},
		{"wide runes cut at the end", "日本語のセッション", 6, FitTail, "日本…"},
		{"an emoji is one cluster", "👍🏽👍🏽👍🏽👍🏽", 6, FitTail, "👍🏽👍🏽…"},
		{"a value cut already keeps its start, one ellipsis", "会话-aaaaaaaaaaaa…", 11, FitMiddle, "会话-aaaaa…"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Shorten(tc.in, tc.width, tc.how)
			if got != tc.want {
				t.Errorf("Shorten(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
			}
			if tc.width > 0 && tc.how != FitKeep && tc.how != FitPosition && Width(got) > tc.width {
				t.Errorf("Shorten(%q, %d) is %d cells wide", tc.in, tc.width, Width(got))
			}
		})
	}
}

func TestFitWidths(t *testing.T) {
	cols := []Column{{Name: "ID", Fit: FitMiddle}, {Name: "KIND", Drop: 1}, {Name: "DETAIL", Fit: FitTail}}
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
			got := FitWidths(cols, rows, tc.width)
			if !slices.Equal(got, tc.want) {
				t.Errorf("FitWidths at %d = %v, want %v", tc.width, got, tc.want)
			}
		})
	}
}

// A position column gives way with the ids, but never below its line
// number and one cell of file name.
func TestFitWidthsKeepsLineNumbers(t *testing.T) {
	cols := []Column{{Name: "LINE", Right: true, Fit: FitPosition}, {Name: "ID", Fit: FitMiddle}}
	rows := [][]string{{"a-very-long-capture-name.jsonl:1234567", "evt-session-0-1-777420"}}
	got := FitWidths(cols, rows, 20)
	if want := Width("…:1234567"); got[0] != want {
		t.Errorf("LINE is %d cells at width 20, want %d: %v", got[0], want, got)
	}
	if cell := Shorten(rows[0][0], got[0], FitPosition); cell != "…:1234567" {
		t.Errorf("the position is shown as %q", cell)
	}
}

func TestWidth(t *testing.T) {
	cases := []struct {
		name, in string
		want     int
	}{
		{"ascii", "evt-1", 5},
		{"fullwidth", "ｅｖｔ－ｆｕｌｌ", 16},
		{"colour takes no room", "\x1b[31mred\x1b[0m", 3},
		{"an emoji with a skin tone is one cluster", "👍🏽", 2},
		{"an ellipsis is narrow", "…", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Width(tc.in); got != tc.want {
				t.Errorf("Width(%q) = %d, want %d", tc.in, got, tc.want)
			}
		})
	}
}

// Width counts printable ASCII and colour sequences itself, and must
// agree with ansi.StringWidth on them and on whatever it hands on.
func TestWidthAgreesWithANSI(t *testing.T) {
	cases := []string{
		"", "plain", "\x1b[1mbold\x1b[22m", "\x1b[38;5;196mred\x1b[m", "\x1b[0m",
		"\x1b[", "\x1b[31", "a\x1b", "a\x1bb", "\x1b[ q", "\x1b[1;2 @x",
		"\x1b]8;;https://x\x07link\x1b]8;;\x07", "\x1b[31m日本\x1b[0m", "tab\there",
	}
	// And strings drawn at random from the bytes that make them up.
	parts := []string{"a", " ", "~", "\x1b", "[", "\x1b[", "\x1b[31m", "3", ";", " ", "m", "@", "\x7f", "é", "\x07", "]"}
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		var b strings.Builder
		for range rnd.IntN(12) {
			b.WriteString(parts[rnd.IntN(len(parts))])
		}
		cases = append(cases, b.String())
	}
	for _, s := range cases {
		if got, want := Width(s), ansi.StringWidth(s); got != want {
			t.Errorf("Width(%q) = %d, ansi.StringWidth = %d", s, got, want)
		}
	}
}

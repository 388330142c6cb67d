package text

import (
	"io"
	"slices"
	"testing"
)

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

// writes records each write it is given.
type writes []string

func (w *writes) Write(p []byte) (int, error) {
	*w = append(*w, string(p))
	return len(p), nil
}

// FitLines writes the whole lines of each Write in one write, wrapped,
// and holds an unfinished line until its end comes.
func TestFitLinesWritesWholeLinesAtOnce(t *testing.T) {
	var got writes
	w := FitLines(&got, 10)
	for _, p := range []string{"one\n日本語の\n  a long line\nhal", "f a", " line\n"} {
		if _, err := w.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	want := writes{"one\n日本語の\n  a long\n    line\n", "half a\n  line\n"}
	if !slices.Equal(got, want) {
		t.Errorf("writes %q, want %q", got, want)
	}
}

// A line no longer in bytes than the width is written unmeasured and
// without a copy of its own.
func TestFitLinesAllocations(t *testing.T) {
	line := []byte("  123456  evt-session-123456  \x1b[32maccepted\x1b[0m  from 123455\n")
	w := FitLines(io.Discard, 120)
	if n := testing.AllocsPerRun(1000, func() { _, _ = w.Write(line) }); n > 0 {
		t.Errorf("%.0f allocations a line, want 0", n)
	}
}

// BenchmarkFitLines writes a row of replay's table, coloured, longer in
// bytes than the width and not in cells.
func BenchmarkFitLines(b *testing.B) {
	line := []byte("  123456  evt-session-123456  snapshot  session-reconnect  turn-12345  123456  \x1b[32maccepted\x1b[0m  \x1b[32madvanced\x1b[0m  from 123455\n")
	w := FitLines(io.Discard, 120)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := w.Write(line); err != nil {
			b.Fatal(err)
		}
	}
}

// Reflow fills paragraphs again at the width, wraps indented lines as
// WrapLine does, and leaves text that fits as it is.
func TestReflow(t *testing.T) {
	long := "Replay reads one or more\ncaptures as one stream.\n\n  a table row that is far too long\nLast."
	tests := []struct {
		name  string
		width int
		want  string
	}{
		{"fits", 40, long},
		{"filled", 20, "Replay reads one or\nmore captures as one\nstream.\n\n  a table row that\n    is far too long\nLast."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Reflow(long, tt.width); got != tt.want {
				t.Errorf("Reflow(%d) =\n%s\nwant\n%s", tt.width, got, tt.want)
			}
		})
	}
}

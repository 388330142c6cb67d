package replay

import (
	"strings"
	"testing"
)

// TestMixedMoreOneLine: one line left out of a Mixed's spans is "1 more
// line", not "1 more lines".
func TestMixedMoreOneLine(t *testing.T) {
	for more, want := range map[int]string{1: "; 1 more line so", 2: "; 2 more lines so"} {
		m := &Mixed{File: "c", Format: FormatNDJSON, Spans: []Span{{First: 1, Last: 1, Lines: 1, As: FormatSSE, What: "comment"}}, More: more}
		if got := m.Error(); !strings.HasSuffix(got, want) {
			t.Errorf("More %d: %q, want it to end %q", more, got, want)
		}
	}
}

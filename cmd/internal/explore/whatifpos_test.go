package explore

import (
	"strings"
	"testing"
)

// TestExploreWhatIfPositions checks that the Lineage tab of a what-if
// names the lines of the capture, not those of the kept lines: with line
// 3 off, real-timeout's turn-1 still timed out at line 22 and completed
// later at line 23, and turn-2 completed at line 35.
func TestExploreWhatIfPositions(t *testing.T) {
	m := newTestExplorer(t, 120, 40, "", "real-server/real-timeout.jsonl")
	press(m, ":", "3", "enter", "x", "4")
	if !m.x.isOff(m.selected()) || m.x.line(m.selected()) != 3 {
		t.Fatalf("line %d selected, off %v", m.x.line(m.selected()), m.x.isOff(m.selected()))
	}
	screen := strings.Join(m.lines, "\n")
	for _, want := range []string{"at line 22 (completed later at line 23", "turn-2  complete at line 35"} {
		if !strings.Contains(screen, want) {
			t.Errorf("no %q in the what-if's tree:\n%s", want, screen)
		}
	}
}

package explore

import (
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/text"
)

// TestExploreHARPositions checks that the lines of a HAR capture are
// named in the one form of a position, with their entry; that the Event
// and Projection tabs show the event, not the HAR document around it;
// that : goes to a line of an entry; and that the marks follow the
// findings' positions entry by entry.
func TestExploreHARPositions(t *testing.T) {
	m := newTestExplorer(t, 120, 40, "", "real-server/proxied.har")
	press(m, ":")
	typeText(m, "11:22")
	press(m, "enter", "1")
	i := m.selected()
	if e, l := m.x.entry(i), m.selectedLine(); e != 11 || l != 22 {
		t.Fatalf(": 11:22 selected entry %d line %d (status %q)", e, l, m.status)
	}
	event := strings.Join(m.lines, "\n")
	if !strings.HasPrefix(event, text.Position("", 11, 22)+"  ") || !strings.Contains(event, `"protocol": "agentskit.chat.turn"`) {
		t.Errorf("Event tab of entry 11 line 22:\n%s", event)
	}
	press(m, "2")
	if proj := strings.Join(m.lines, "\n"); !strings.Contains(proj, "accepted at entry ") {
		t.Errorf("Projection tab of entry 11 line 22:\n%s", proj)
	}
	cited := 0
	for _, f := range m.x.findings {
		for _, p := range f.Positions {
			if p.Entry == 0 {
				t.Errorf("finding %s cites %+v without its entry", f.ID, p)
			}
			found := false
			for r := range m.x.len() {
				if m.x.entry(r) == p.Entry && m.x.line(r) == p.Line {
					found = m.x.row(r).cited()
				}
			}
			if !found {
				t.Errorf("finding %s cites entry %d line %d, not marked", f.ID, p.Entry, p.Line)
			}
			cited++
		}
	}
	if cited == 0 {
		t.Errorf("no finding in proxied.har: the test proves nothing")
	}
	if res := m.x.result(i); res.Origin == nil || res.Origin.Entry != 11 {
		t.Errorf("result of entry 11 line 22: origin %+v", res.Origin)
	}
}

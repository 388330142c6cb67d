package explore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/render/redacttest"
)

// TestExploreRedactHidesEverySecret is TestRedactHidesEverySecret for the
// explorer: every tab of every line, with the line toggled off and back
// (what-if), the list, the timeline and the help screen, of the capture
// as NDJSON and as a HAR entry's body. The explorer shows no request URL,
// so no URL marker need show without --redact; none may with it.
func TestExploreRedactHidesEverySecret(t *testing.T) {
	const tag = "SeCrEt"
	dir := t.TempDir()
	ndjson, har := filepath.Join(dir, "secret.jsonl"), filepath.Join(dir, "secret.har")
	if err := os.WriteFile(ndjson, []byte(redacttest.Capture(tag)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(har, []byte(redacttest.HAR(tag)), 0o644); err != nil {
		t.Fatal(err)
	}
	c := redacttest.NewCanary(t, tag, redacttest.EventMarkers...)
	for _, run := range []struct {
		file   string
		redact bool
	}{{ndjson, false}, {ndjson, true}, {har, false}, {har, true}} {
		file, redact := run.file, run.redact
		m := newTestExplorerRedact(t, 160, 50, "", redact, file)
		look := func(what string) {
			c.Check("explore "+filepath.Base(file)+", "+what+",", m.render()+"\n"+strings.Join(m.detailLines(m.selected(), m.detailWidth()), "\n"), redact)
		}
		// Every tab of every line, as read, and (toggle) with the line
		// itself toggled off and back.
		every := func(when string, toggle bool) {
			for i := range m.x.len() {
				m.selectRow(i)
				for tab := range tabCount {
					m.tab = tab
					m.refresh()
					look(fmt.Sprintf("line %d tab %s%s", m.x.line(i), tabNames[tab], when))
					if toggle {
						press(m, "x")
						look(fmt.Sprintf("line %d tab %s toggled off", m.x.line(i), tabNames[tab]))
						press(m, "x")
					}
				}
			}
		}
		every("", true)
		// A what-if in play while another line shows its findings.
		m.selectRow(0)
		press(m, "x")
		every(", line 1 toggled off", false)
		press(m, "x")
		press(m, "?")
		look("help")
	}
	c.Done()
}

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
// (what-if), the list, the timeline and the help screen.
func TestExploreRedactHidesEverySecret(t *testing.T) {
	const tag = "SeCrEt"
	file := filepath.Join(t.TempDir(), "secret.jsonl")
	if err := os.WriteFile(file, []byte(redacttest.Capture(tag)), 0o644); err != nil {
		t.Fatal(err)
	}
	c := redacttest.NewCanary(t, tag)
	for _, redact := range []bool{false, true} {
		m := newTestExplorer(t, 160, 50, "", file)
		m.redact = redact
		look := func(what string) {
			c.Check("explore, "+what+",", m.render()+"\n"+strings.Join(m.detailLines(m.selected(), m.detailWidth()), "\n"), redact)
		}
		for i := range m.x.len() {
			m.selectRow(i)
			for tab := range tabCount {
				m.tab = tab
				m.refresh()
				look(fmt.Sprintf("line %d tab %s", m.x.line(i), tabNames[tab]))
				press(m, "x")
				look(fmt.Sprintf("line %d tab %s toggled off", m.x.line(i), tabNames[tab]))
				press(m, "x")
			}
		}
		press(m, "?")
		look("help")
	}
	c.Done()
}

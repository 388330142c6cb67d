package explore

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestExploreNumbersWhole checks, on a capture of more than 9,999 lines
// whose sequences are 13-digit Unix milliseconds in two sessions, that at
// 80x24 and 120x40 every listed row shows its line number and sequence
// whole, and its session id too: free text gives way, numbers never.
func TestExploreNumbersWhole(t *testing.T) {
	file, _ := writeMsCapture(t, 2, 5200, 40)
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := newTestExplorer(t, size[0], size[1], "", file)
			if m.x.len() < 10000 {
				t.Fatalf("%d lines, want more than 9,999", m.x.len())
			}
			for _, keys := range [][]string{{"G"}, {"g"}, {"n"}} {
				press(m, keys...)
				screen := strings.Split(m.render(), "\n")
				lw := m.listWidth()
				for k := 0; k < m.listHeight() && m.top+k < len(m.view); k++ {
					i := int(m.view[m.top+k])
					row := ansi.Strip(ansi.Truncate(screen[m.listTop()+k], lw, ""))
					r := m.x.row(i)
					for _, want := range []string{strconv.Itoa(int(r.line)), strconv.FormatInt(r.seq, 10), m.x.sessionID(r)} {
						if !regexp.MustCompile(`(^|[ !*>X])` + regexp.QuoteMeta(want) + `( |$)`).MatchString(row) {
							t.Errorf("after %v, line %d: %q not whole in %q", keys, r.line, want, row)
						}
					}
				}
			}
		})
	}
}

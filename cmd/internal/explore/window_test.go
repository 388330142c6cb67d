package explore

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/replay"
)

// TestExploreWindowCut: a window that ends on a submit whose snapshots
// are past it leaves the turn unanswered in the window, no problem, in
// explore's outcomes and verdict; and still so in a what-if with a line
// toggled off, whose run reads the window's lines again without it.
func TestExploreWindowCut(t *testing.T) {
	m := newTestExplorerWith(t, 200, 40, replay.Options{Window: &replay.Window{Lines: []replay.LineRange{{First: 1, Last: 6}}}}, false, "clean.jsonl")
	check := func(when string) {
		t.Helper()
		want := "turn-2  unanswered in the window at line 6 (the turn goes on past the window, at line 7)"
		if got := exploreOutcomes(m, 0); !slices.Contains(got, want) {
			t.Errorf("%s: outcomes\n%s\nwant %q", when, strings.Join(got, "\n"), want)
		}
		if v := m.x.verdicts["session-7f3a"]; !v.Clean() {
			t.Errorf("%s: verdict %+v, want clean", when, v)
		}
		for _, f := range m.x.findings {
			if f.ID == "orphan-submit" {
				t.Errorf("%s: orphan-submit", when)
			}
		}
	}
	check("as read")
	m.selectRow(2)
	press(m, "x")
	m.Update(m.x.whatIfCmd(m.gen)())
	check("line 3 off")
}

// TestExploreWindowGap: a sequence gap across lines the window left out
// is the window's (replay.Result.LeftOut), no sequence-gap, as read and
// in a what-if run without the window; the gap a toggled line leaves is
// one.
func TestExploreWindowGap(t *testing.T) {
	win := &replay.Window{Lines: []replay.LineRange{{First: 1, Last: 43}, {First: 45}}}
	m := newTestExplorerWith(t, 200, 40, replay.Options{Window: win}, false, filepath.Join("real-server", "real-alpha.jsonl"))
	gaps := func() (lines []int) {
		for _, f := range m.x.findings {
			if f.ID == "sequence-gap" {
				for _, p := range f.Positions {
					lines = append(lines, p.Line)
				}
			}
		}
		return lines
	}
	if g := gaps(); len(g) > 0 {
		t.Errorf("as read: sequence-gap at lines %v, want none", g)
	}
	row := -1
	for i := range m.x.len() {
		if m.x.line(i) == 100 {
			row = i
		}
	}
	m.selectRow(row)
	press(m, "x")
	m.Update(m.x.whatIfCmd(m.gen)())
	if g := gaps(); !slices.Equal(g, []int{101}) {
		t.Errorf("line 100 off: sequence-gap at lines %v, want [101] (the window's at 45 is none)", g)
	}
}

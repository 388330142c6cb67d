package inspect

import (
	"testing"

	"github.com/agentskit/snapctl/inspect/model"
)

// proxied.har is mitmproxy's HAR export of the proxied run
// (testdata/real-server/README.md): its lines count within each entry's
// body, so a position is only a position with its entry.

// TestHARFindingPositions: a finding's positions name the entry of each
// line: p-s-alpha's turns 2 and 3 start at line 1 of entries 3 and 5.
func TestHARFindingPositions(t *testing.T) {
	rep := run(t, Options{}, realCapture("proxied.har"))
	var got []Position
	for _, f := range findingsOf(rep, SequenceGap) {
		if f.SessionID == "p-s-alpha" {
			got = f.Positions
		}
	}
	file := realCapture("proxied.har")
	want := []Position{{File: file, Line: 1, Entry: 3}, {File: file, Line: 1, Entry: 5}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("p-s-alpha sequence-gap positions %+v, want %+v", got, want)
	}
}

// TestHAREndingPositions: how a turn ended names its entry too: p-s-fail's
// turn-2 failed at line 15 of entry 17; p-s-timeout's turn-1 timed out at
// line 22 of entry 11 and its reply shows complete at line 1 of entry 12.
func TestHAREndingPositions(t *testing.T) {
	rep := run(t, Options{}, realCapture("proxied.har"))
	file := realCapture("proxied.har")
	want := map[string]model.Position{
		"p-s-fail/turn-2":    {File: file, Line: 15, Entry: 17},
		"p-s-timeout/turn-1": {File: file, Line: 22, Entry: 11},
		"p-s-alpha/turn-3":   {File: file, Line: 43, Entry: 5},
	}
	seen := 0
	for _, s := range rep.Overview.Sessions {
		for _, e := range s.Endings() {
			w, ok := want[s.SessionID+"/"+e.TurnID]
			if !ok {
				if e.At.Entry == 0 {
					t.Errorf("%s %s ends at %+v: no entry", s.SessionID, e.TurnID, e.At)
				}
				continue
			}
			seen++
			if e.At != w {
				t.Errorf("%s %s ends at %+v, want %+v", s.SessionID, e.TurnID, e.At, w)
			}
			if e.TurnID == "turn-1" && s.SessionID == "p-s-timeout" {
				if l := e.Later; l == nil || l.At != (model.Position{File: file, Line: 1, Entry: 12}) {
					t.Errorf("p-s-timeout turn-1 completed later at %+v, want line 1 of entry 12", l)
				}
			}
		}
	}
	if seen != len(want) {
		t.Errorf("%d of the %d turns looked for", seen, len(want))
	}
}

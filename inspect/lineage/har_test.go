package lineage

import (
	"path/filepath"
	"testing"

	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/replay"
)

// TestHARNodePositions: on mitmproxy's HAR of the real server
// (testdata/real-server/proxied.har), a node's ending names the HAR entry
// of its line, whose lines count within each body: p-s-fail's turn-2
// failed at line 15 of entry 17, p-s-timeout's turn-1 timed out at line 22
// of entry 11 and its reply shows complete at line 1 of entry 12.
func TestHARNodePositions(t *testing.T) {
	file := filepath.Join("..", "..", "testdata", "real-server", "proxied.har")
	rd, err := replay.Open([]string{file}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	b := NewBuilder("")
	if _, err := replay.Run(rd, replay.Options{Messages: true}, func(res *replay.Result) error { b.Add(res); return nil }); err != nil {
		t.Fatal(err)
	}
	want := map[string]model.Position{
		"p-s-fail/turn-2":    {File: file, Line: 15, Entry: 17},
		"p-s-timeout/turn-1": {File: file, Line: 22, Entry: 11},
	}
	seen := 0
	for _, s := range b.Finish() {
		for _, n := range s.Turns {
			_, _, at := n.Ending()
			if at.Entry == 0 {
				t.Errorf("%s %s ends at %+v: no entry", s.SessionID, n.TurnID, at)
			}
			w, ok := want[s.SessionID+"/"+n.TurnID]
			if !ok {
				continue
			}
			seen++
			if at != w {
				t.Errorf("%s %s ends at %+v, want %+v", s.SessionID, n.TurnID, at, w)
			}
			if s.SessionID == "p-s-timeout" {
				if l := n.Later(); l == nil || l.At != (model.Position{File: file, Line: 1, Entry: 12}) {
					t.Errorf("p-s-timeout turn-1 completed later at %+v, want line 1 of entry 12", l)
				}
			}
		}
	}
	if seen != len(want) {
		t.Errorf("%d of the %d turns looked for", seen, len(want))
	}
}

package inspect

import (
	"strings"
	"testing"

	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/replay"
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

// TestHARRefusals: the server's error bodies in proxied.har's responses
// (entries 13 and 22 SESSION_BUSY, 19 REQUEST_INVALID_JSON, 20
// REQUEST_INVALID_EVENT, 21 the 415) reach the model as they do from
// proxied-mix.jsonl: malformed lines, counted by code, each code a
// request-refused finding at its entries.
func TestHARRefusals(t *testing.T) {
	rep := run(t, Options{}, realCapture("proxied.har"))
	mix := run(t, Options{}, realCapture("proxied-mix.jsonl"))
	if got, want := rep.Overview.Refused, mix.Overview.Refused; len(got) != 4 || len(got) != len(want) {
		t.Fatalf("refused %v, want %v as in proxied-mix.jsonl", got, want)
	} else {
		for code, n := range want {
			if got[code] != n {
				t.Errorf("refused %s: %d, want %d", code, got[code], n)
			}
		}
	}
	if got := rep.Overview.Counts.Reasons[replay.ReasonMalformed]; got != 5 {
		t.Errorf("malformed: %d, want the 5 error bodies", got)
	}
	file := realCapture("proxied.har")
	want := map[string][]int{"SESSION_BUSY": {13, 22}, "REQUEST_INVALID_JSON": {19}, "REQUEST_INVALID_EVENT": {20},
		"REQUEST_UNSUPPORTED_MEDIA_TYPE": {21}}
	fs := findingsOf(rep, RequestRefused)
	if len(fs) != len(want) {
		t.Fatalf("%d request-refused findings, want %d", len(fs), len(want))
	}
	for _, f := range fs {
		code := strings.Fields(strings.SplitN(f.Message, " with ", 2)[1])[0]
		code = strings.TrimSuffix(code, ":")
		entries, ok := want[code]
		if !ok || len(f.Positions) != len(entries) {
			t.Errorf("finding %q at %+v: want code of %v", f.Message, f.Positions, want)
			continue
		}
		for i, e := range entries {
			if p := f.Positions[i]; p != (Position{File: file, Line: 1, Entry: e}) {
				t.Errorf("%s position %d: %+v, want line 1 of entry %d", code, i, p, e)
			}
		}
	}
}

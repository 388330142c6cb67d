package inspect

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/replay"
)

// proxied.har is mitmproxy's HAR export of the proxied run
// (testdata/real-server/README.md): its lines count within each entry's
// body, so a position is only a position with its entry.

// TestHARFindingPositions: a finding's positions name the entry of each
// line: the two SESSION_BUSY bodies are line 1 of entries 13 and 22.
func TestHARFindingPositions(t *testing.T) {
	rep := run(t, Options{}, realCapture("proxied.har"))
	var got []Position
	for _, f := range findingsOf(rep, RequestRefused) {
		if strings.Contains(f.Message, "SESSION_BUSY") {
			got = f.Positions
		}
	}
	file := realCapture("proxied.har")
	want := []Position{{File: file, Line: 1, Entry: 13}, {File: file, Line: 1, Entry: 22}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("SESSION_BUSY request-refused positions %+v, want %+v", got, want)
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
	// The HAR holds each request too: a refused submit's body names its
	// session and turn (entries 13 and 22, and the 415 of entry 21); a
	// body that is no JSON (19) or no submit (20) names none.
	named := map[string]string{
		"SESSION_BUSY":                   "each answered a submit, first of turn turn-2 of session p-s-busy in its HTTP request",
		"REQUEST_UNSUPPORTED_MEDIA_TYPE": "it answered the submit of turn turn-1 of session p-s-bad in its HTTP request",
		"REQUEST_INVALID_JSON":           "an error body names no session or turn, only its position is known",
		"REQUEST_INVALID_EVENT":          "an error body names no session or turn, only its position is known",
	}
	for _, f := range fs {
		code := strings.Fields(strings.SplitN(f.Message, " with ", 2)[1])[0]
		code = strings.TrimSuffix(code, ":")
		if !strings.Contains(f.Message, named[code]+")") {
			t.Errorf("finding %q: want it to say %q", f.Message, named[code])
		}
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

// TestProxiedHARTruths: what testdata/real-server/README.md says of
// proxied.har and of the run it recorded, as the model tells it. Entries
// are in the order responses completed, but are read in the order
// requests started, so no turn is overtaken: every snapshot is accepted
// and nothing is out of order. The aborted request has no entry, so
// p-s-abort holds turn-2 alone. Each turn ended as the run made it end,
// every gap is the 2 of a turn boundary, and the handler wrote only
// submit lineage.
func TestProxiedHARTruths(t *testing.T) {
	rep := run(t, Options{}, realCapture("proxied.har"))
	want := map[string]string{
		"p-s-alpha":   "turn-1 complete, turn-2 complete, turn-3 complete",
		"p-s-bravo":   "turn-1 complete, turn-2 complete, turn-3 complete",
		"p-s-charlie": "turn-1 complete, turn-2 complete, turn-3 complete",
		"p-s-abort":   "turn-2 complete",
		"p-s-timeout": "turn-1 timed-out SERVER_TIMEOUT @11:22 completed later @12:1, turn-2 complete",
		"p-s-busy":    "turn-1 complete, turn-2 complete",
		"p-s-fail":    "turn-1 complete, turn-2 error CHAT_TURN_FAILED @17:15, turn-3 complete",
	}
	clean := map[string]bool{"p-s-alpha": true, "p-s-bravo": true, "p-s-charlie": true, "p-s-abort": true, "p-s-busy": true}
	if len(rep.Overview.Sessions) != len(want) {
		t.Fatalf("%d sessions, want %d", len(rep.Overview.Sessions), len(want))
	}
	for _, s := range rep.Overview.Sessions {
		var parts []string
		for _, e := range s.Endings() {
			p := e.TurnID + " " + e.Ending.String()
			if e.Code != "" {
				p += fmt.Sprintf(" %s @%d:%d", e.Code, e.At.Entry, e.At.Line)
			}
			if e.Later != nil {
				p += fmt.Sprintf(" completed later @%d:%d", e.Later.At.Entry, e.Later.At.Line)
			}
			parts = append(parts, p)
		}
		if got := strings.Join(parts, ", "); got != want[s.SessionID] {
			t.Errorf("%s:\n got %s\nwant %s", s.SessionID, got, want[s.SessionID])
		}
		if s.Reasons.Of(replay.ReasonStale)+s.Reasons.Of(replay.ReasonDuplicate) != 0 || s.Accepted() != s.Snapshots {
			t.Errorf("%s: %d of %d snapshots accepted, reasons %v", s.SessionID, s.Accepted(), s.Snapshots, s.Reasons)
		}
		if n := s.LineageTurns.Of(replay.OpSubmit); n != len(parts) {
			t.Errorf("%s: %d submit turns of %d", s.SessionID, n, len(parts))
		}
		if v := s.Verdict(); v.Clean() != clean[s.SessionID] {
			t.Errorf("%s: verdict %+v, clean %v", s.SessionID, v, v.Clean())
		}
	}
	for _, id := range []string{OutOfOrder, TurnNeverAccepted, StaleRedelivery, SequenceCollision, GluedLines} {
		if fs := findingsOf(rep, id); len(fs) > 0 {
			t.Errorf("%s: %+v", id, fs)
		}
	}
	// Every gap is the 2 of a turn boundary, the server's numbering:
	// no sequence-gap.
	if gaps := findingsOf(rep, SequenceGap); len(gaps) > 0 {
		t.Errorf("sequence-gap findings %+v, want none: every gap is a turn boundary's 2", gaps)
	}
}

// TestProxiedHAROrder: the document lists entries as responses completed
// (p-s-alpha's turn-2, entry 3, before p-s-charlie's turn-1, entry 4,
// which started first), and the reader reads them in the order requests
// started: the entries it reads do not come in document order.
func TestProxiedHAROrder(t *testing.T) {
	rd, err := replay.Open([]string{realCapture("proxied.har")}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var order []int
	if _, err := replay.Run(rd, replay.Options{}, func(res *replay.Result) error {
		if e := model.EntryOf(res); len(order) == 0 || order[len(order)-1] != e {
			order = append(order, e)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(order)
	// All 22 entries are read, each once, the error bodies' too: the
	// refusal of entry 13 completed while p-s-busy's turn-1, entry 14,
	// which started before it, was still streaming.
	if want := "[1 2 4 3 6 5 8 7 9 10 11 12 14 13 15 16 17 18 19 20 21 22]"; got != want {
		t.Errorf("entries read in the order %s, want %s", got, want)
	}
}

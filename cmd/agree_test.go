package cmd

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
)

// scriptedCapture turns fuzz bytes into a capture the cursor has work to
// do on: each byte picks a session, a turn, a sequence and a kind of line
// (snapshot, submit, diagnostic, broken snapshot, garbage), so duplicates,
// stale redeliveries, foreign sessions and malformed lines all occur.
func scriptedCapture(script []byte) string {
	var b strings.Builder
	for i, c := range script {
		session := fmt.Sprintf("s%d", c&1)
		turn := fmt.Sprintf("t%d", (c>>1)&1)
		seq := int(c>>2) & 7
		head := fmt.Sprintf(`{"protocol":"agentskit.chat.turn","version":1,"eventId":"e%d","sessionId":%q,"turnId":%q,"sequence":%d,"emittedAt":"2026-07-11T03:00:00Z",`, i, session, turn, seq)
		msg := fmt.Sprintf(`{"id":"m%d","role":"assistant","content":"c%d","status":"complete","createdAt":"2026-07-11T03:00:00.000Z"}`, seq, i)
		switch c >> 5 {
		case 0, 1, 2, 3:
			fmt.Fprintf(&b, `%s"event":"server.turn.snapshot","payload":{"status":"complete","usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"messages":[%s]}}`, head, msg)
		case 4:
			fmt.Fprintf(&b, `%s"event":"client.turn.submit","payload":{"input":"hi"}}`, head)
		case 5:
			fmt.Fprintf(&b, `%s"event":"server.turn.diagnostic","payload":{"version":1,"code":"X","message":"m","retryable":false}}`, head)
		case 6:
			fmt.Fprintf(&b, `%s"event":"server.turn.snapshot","payload":{"status":"complete","usage":{},"messages":[%s,%s]}}`, head, msg, msg)
		default:
			b.WriteString(`{"garbage":` + head)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func runJSON(t *testing.T, capture string, args ...string) string {
	t.Helper()
	ios, out, errOut := iostreams.Test(capture)
	if code := runOnce(ios, append(args, "-")); code != 0 {
		t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	return out.String()
}

// FuzzCommandsAgree checks that replay, inspect, diff and lineage agree on
// which lines the cursor accepted: each command reads the capture on its
// own, so a rule copied into one of them and changed would show here.
func FuzzCommandsAgree(f *testing.F) {
	f.Add([]byte{0, 4, 8, 4, 12, 1, 5, 2, 6, 200, 130, 160})
	f.Add([]byte("the quick brown fox jumps over the lazy dog"))
	f.Add([]byte{252, 0, 0, 28, 24, 20})
	f.Fuzz(func(t *testing.T, script []byte) {
		capture := scriptedCapture(script)
		// replay: the accepted lines and turns, per session.
		accepted := map[string][]int{}
		turns := map[string][]string{}
		total := 0
		for _, rec := range strings.Split(strings.TrimSpace(runJSON(t, capture, "replay", "-o", "jsonl")), "\n") {
			var r struct {
				Line      int    `json:"line"`
				Verdict   string `json:"verdict"`
				SessionID string `json:"sessionId"`
				TurnID    string `json:"turnId"`
			}
			if rec == "" {
				continue
			}
			if err := json.Unmarshal([]byte(rec), &r); err != nil {
				t.Fatalf("replay record %q: %v", rec, err)
			}
			if r.Verdict == "accepted" {
				accepted[r.SessionID] = append(accepted[r.SessionID], r.Line)
				if !slices.Contains(turns[r.SessionID], r.TurnID) {
					turns[r.SessionID] = append(turns[r.SessionID], r.TurnID)
				}
				total++
			}
		}
		// inspect: the same counts, overall and per session.
		var in struct {
			Overview struct {
				Accepted int `json:"accepted"`
				Sessions []struct {
					SessionID string `json:"sessionId"`
					Accepted  int    `json:"accepted"`
				} `json:"sessions"`
			} `json:"overview"`
		}
		if err := json.Unmarshal([]byte(runJSON(t, capture, "inspect", "-o", "json")), &in); err != nil {
			t.Fatal(err)
		}
		if in.Overview.Accepted != total {
			t.Fatalf("inspect counts %d accepted, replay %d", in.Overview.Accepted, total)
		}
		for _, s := range in.Overview.Sessions {
			if s.Accepted != len(accepted[s.SessionID]) {
				t.Fatalf("session %s: inspect counts %d accepted, replay %d", s.SessionID, s.Accepted, len(accepted[s.SessionID]))
			}
		}
		// diff: one pair per accepted snapshot after the first of its
		// session, from the previous accepted line to it.
		pairs := map[string][][2]int{}
		for _, rec := range strings.Split(strings.TrimSpace(runJSON(t, capture, "diff", "-o", "jsonl")), "\n") {
			if rec == "" {
				continue
			}
			var p struct {
				SessionID string `json:"sessionId"`
				FromLine  int    `json:"fromLine"`
				ToLine    int    `json:"toLine"`
			}
			if err := json.Unmarshal([]byte(rec), &p); err != nil {
				t.Fatalf("diff record %q: %v", rec, err)
			}
			pairs[p.SessionID] = append(pairs[p.SessionID], [2]int{p.FromLine, p.ToLine})
		}
		for s, lines := range accepted {
			var want [][2]int
			for i := 1; i < len(lines); i++ {
				want = append(want, [2]int{lines[i-1], lines[i]})
			}
			if !slices.Equal(pairs[s], want) {
				t.Fatalf("session %s: diff pairs %v, replay accepted lines %v", s, pairs[s], lines)
			}
		}
		// lineage: the turns of accepted snapshots, per session.
		var lin struct {
			Sessions []struct {
				SessionID string `json:"sessionId"`
				Turns     []struct {
					TurnID string `json:"turnId"`
				} `json:"turns"`
			} `json:"sessions"`
		}
		if err := json.Unmarshal([]byte(runJSON(t, capture, "lineage", "-o", "json")), &lin); err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, s := range lin.Sessions {
			var got []string
			for _, tr := range s.Turns {
				got = append(got, tr.TurnID)
			}
			slices.Sort(got)
			want := slices.Clone(turns[s.SessionID])
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("session %s: lineage turns %v, replay accepted turns %v", s.SessionID, got, want)
			}
			seen++
		}
		if seen != len(accepted) {
			t.Fatalf("lineage shows %d sessions, replay accepted snapshots in %d", seen, len(accepted))
		}
	})
}

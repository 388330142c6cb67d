package cmd

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/diff"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/inspect/lineage"
	"github.com/agentskit/snapctl/replay"
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

// readScript runs fn over capture as every command reads it: through
// replay.Run, on the caller's goroutine (Workers 1), as a fuzz worker
// with one thread would anyway.
func readScript(t *testing.T, capture string, opts replay.Options, fn func(*replay.Result) error) replay.Summary {
	t.Helper()
	rd, err := replay.Open([]string{"-"}, strings.NewReader(capture), replay.DefaultMaxLine)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	opts.Workers = 1
	sum, err := replay.Run(rd, opts, fn)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// FuzzCommandsAgree checks that replay, inspect, diff and lineage agree on
// which lines the cursor accepted, from the models the commands render:
// replay's verdicts from a read of its own, and inspect's overview,
// diff's pairs and lineage's turns from a second read with the options
// those commands decode with (messages, hashes), fed to all three as the
// report feeds them. A rule copied into one of them and changed, or a
// verdict that moved with the decoder's options, would show here. It
// works below cobra and the JSON views (FuzzJSONOutput and the scripts
// check those): four whole commands a script cost several times as much.
func FuzzCommandsAgree(f *testing.F) {
	f.Add([]byte{0, 4, 8, 4, 12, 1, 5, 2, 6, 200, 130, 160})
	f.Add([]byte("the quick brown fox jumps over the lazy dog"))
	f.Add([]byte{252, 0, 0, 28, 24, 20})
	defer fuzzSetup()()
	f.Fuzz(checkAgree)
}

// checkAgree is FuzzCommandsAgree's test of one script.
func checkAgree(t *testing.T, script []byte) {
	// A line a byte: 24 lines are room for every relation the cursor has
	// between lines (a duplicate, a stale redelivery, a foreign session, a
	// malformed line between accepted ones, each more than once); longer
	// scripts repeat them at a higher cost a run.
	script = fuzzCap(script, 24)
	capture := scriptedCapture(script)
	// replay: the accepted lines and turns, per session.
	accepted := map[string][]int{}
	turns := map[string][]string{}
	total := 0
	readScript(t, capture, replay.Options{}, func(r *replay.Result) error {
		if r.Verdict() == replay.Accepted {
			sid := r.Event.SessionID
			accepted[sid] = append(accepted[sid], r.Line)
			if !slices.Contains(turns[sid], r.Event.TurnID) {
				turns[sid] = append(turns[sid], r.Event.TurnID)
			}
			total++
		}
		return nil
	})
	// The inspector's model also draws a second builder, as lineage and
	// explore draw theirs: on these captures it must make the graphs a
	// builder with a model of its own makes, as the report's. (On a
	// record capture they may differ, rightly: a refusal the inspector
	// matches to a turn ends the turn in the shared model as inspect
	// reports it.)
	in := inspect.New(inspect.Options{Outcomes: true})
	shared := lineage.NewBuilderOn(in.Model())
	pairs := map[string][][2]int{}
	d := diff.NewDiffer(diff.Options{NoWords: true}, func(p *diff.PairDiff) error {
		pairs[p.SessionID] = append(pairs[p.SessionID], [2]int{p.From.Line, p.To.Line})
		return nil
	})
	b := lineage.NewBuilder("")
	sum := readScript(t, capture, inspect.ReplayOptions(replay.Options{}), func(r *replay.Result) error {
		shared.AddStep(r, in.ObserveStep(r))
		b.Add(r)
		return d.Add(r)
	})
	if err := d.Finish(); err != nil {
		t.Fatal(err)
	}
	// inspect: the same counts, overall and per session.
	rep := in.Finish(sum)
	if got := rep.Overview.Counts.Accepted(); got != total {
		t.Fatalf("inspect counts %d accepted, replay %d", got, total)
	}
	for _, s := range rep.Overview.Sessions {
		if got := s.Accepted(); got != len(accepted[s.SessionID]) {
			t.Fatalf("session %s: inspect counts %d accepted, replay %d", s.SessionID, got, len(accepted[s.SessionID]))
		}
	}
	// diff: one pair per accepted snapshot after the first of its
	// session, from the previous accepted line to it.
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
	seen := 0
	graphs := b.Finish()
	if got := shared.Finish(); !reflect.DeepEqual(got, graphs) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(graphs)
		t.Fatalf("lineage on the inspector's model:\n%s\non its own:\n%s", g, w)
	}
	for _, s := range graphs {
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
}

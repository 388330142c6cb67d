package inspect

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/internal/hostile"
	"github.com/agentskit/snapctl/replay"
)

// inspected runs the inspector over a capture held in memory and returns
// it, with everything it keeps.
func inspected(tb testing.TB, capture []byte) *Inspector {
	tb.Helper()
	in := New(Options{})
	hostile.Replay(tb, capture, in.replayOptions(), func(res *replay.Result) error {
		in.Observe(res)
		return nil
	})
	return in
}

// TestMemoryPerSession checks that what the inspector keeps per session
// does not depend on the size of its snapshots, where keeping a message
// id that shares the snapshot's buffer would add the whole snapshot.
func TestMemoryPerSession(t *testing.T) {
	hostile.PerSession(t, "the inspector", 2, 64<<10, 4<<10, func(capture []byte) any { return inspected(t, capture) })
}

// BenchmarkManySessions inspects 20,000 sessions of one small snapshot
// each: the per-session state, not the decoding, is what it measures.
func BenchmarkManySessions(b *testing.B) {
	capture := hostile.Sessions(20000, 1, 16)
	b.SetBytes(int64(len(capture)))
	b.ReportAllocs()
	for b.Loop() {
		in := inspected(b, capture)
		in.Report(replay.Summary{})
	}
}

// BenchmarkHugeSnapshots inspects 20 sessions of two 1 MiB snapshots.
func BenchmarkHugeSnapshots(b *testing.B) {
	capture := hostile.Sessions(20, 2, 1<<20)
	b.SetBytes(int64(len(capture)))
	b.ReportAllocs()
	for b.Loop() {
		inspected(b, capture)
	}
}

// TestTrackedBudget checks that the fingerprints kept for event ids and
// past sequences and the sequences kept between snapshots stay within one
// budget for all sessions together, and that the checks they serve still
// work on what was tracked before the budget ran out.
func TestTrackedBudget(t *testing.T) {
	const at = "2026-07-11T03:00:00.000Z"
	var b bytes.Buffer
	for s := 0; s < 50; s++ {
		for seq := int64(1); seq <= 10; seq++ {
			session := fmt.Sprintf("s%d", s)
			b.WriteString(line("client.turn.submit", fmt.Sprintf("u%d-%d", s, seq), session, "t", seq*2, at, `{"input":"hi"}`) + "\n")
			p := `{"status":"complete","usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"messages":[]}`
			b.WriteString(line("server.turn.snapshot", fmt.Sprintf("e%d-%d", s, seq), session, "t", seq*2+1, at, p) + "\n")
		}
	}
	// The first session reuses an event id with other content, within
	// the budget.
	b.WriteString(line("client.turn.submit", "u0-1", "s0", "t", 99, at, `{"input":"other"}`) + "\n")
	rd, err := replay.Open([]string{replay.StdinName}, bytes.NewReader(b.Bytes()), 0)
	if err != nil {
		t.Fatal(err)
	}
	in := New(Options{})
	in.budget = 100
	sum, err := replay.Run(rd, in.replayOptions(), func(res *replay.Result) error {
		in.Observe(res)
		if in.tracked > in.budget {
			t.Fatalf("line %d: %d entries tracked, budget %d", res.Line, in.tracked, in.budget)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(in.events) + len(in.bySeq); n > in.budget {
		t.Errorf("%d fingerprints kept, budget %d", n, in.budget)
	}
	rep := in.Report(sum)
	if got := brief(rep.Findings); len(got) != 1 || !strings.Contains(got[0], "duplicate-event-id s0") {
		t.Errorf("findings = %q, want the duplicate event id of s0", got)
	}
}

// TestWorkLinear counts the allocations of inspecting doubling captures,
// of many sessions and of one session of many turns: they must grow
// linearly, which a step per line that grows with the sessions or turns
// seen so far would break.
func TestWorkLinear(t *testing.T) {
	for _, tt := range []struct {
		name    string
		capture func(n int) []byte
	}{
		{"sessions", func(n int) []byte { return hostile.Sessions(n, 2, 64) }},
		{"turns", hostile.Turns},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var costs []uint64
			for n := 1000; n <= 8000; n *= 2 {
				capture := tt.capture(n)
				costs = append(costs, hostile.Mallocs(func() {
					rd, err := replay.Open([]string{replay.StdinName}, bytes.NewReader(capture), 0)
					if err != nil {
						t.Fatal(err)
					}
					defer rd.Close()
					if _, err := Run(rd, Options{}); err != nil {
						t.Fatal(err)
					}
				}))
			}
			t.Logf("allocations for 1000, 2000, 4000, 8000: %v", costs)
			if !hostile.Linear(costs, 1.15) {
				t.Errorf("allocations grow faster than the input: %v", costs)
			}
		})
	}
}

// TestCloseupBytes checks that the lines Examine keeps for close-ups stay
// within maxCloseupBytes after the first, and keep no snapshot's messages,
// however large the matching lines: every match is still counted.
func TestCloseupBytes(t *testing.T) {
	const size = 4 << 20
	var b bytes.Buffer
	for i := 0; i < 12; i++ {
		// Every line reuses one event id, as a redelivering server would.
		line := hostile.Sessions(1, 1, size)
		b.Write(bytes.Replace(line, []byte(`"eventId":"e0-0"`), []byte(`"eventId":"same"`), 1))
	}
	rd, err := replay.Open([]string{replay.StdinName}, bytes.NewReader(b.Bytes()), 0)
	if err != nil {
		t.Fatal(err)
	}
	x, err := Examine(rd, Options{}, Target{EventID: "same"})
	if err != nil {
		t.Fatal(err)
	}
	kept := 0
	for _, c := range x.Closeups {
		kept += len(c.Raw)
		if c.Event == nil || c.Event.Snapshot.Messages != nil {
			t.Errorf("line %d: the close-up keeps the snapshot's messages", c.Line)
		}
	}
	if x.Matches != 12 || len(x.Closeups) == 0 || kept > maxCloseupBytes {
		t.Errorf("%d matches, %d close-ups of %d bytes; want 12 matches, close-ups within %d bytes", x.Matches, len(x.Closeups), kept, maxCloseupBytes)
	}
}

// TestManySessions checks the state inspect keeps per session on a
// capture of many one-line sessions against the README's 1 KiB: while
// it reads (the inspector and the run's summary) and once it reports
// (the report and the summary, Finish letting go of the rest).
func TestManySessions(t *testing.T) {
	run := func(capture []byte) (*Inspector, replay.Summary) {
		in := New(Options{})
		sum := hostile.Replay(t, capture, in.replayOptions(), func(res *replay.Result) error {
			in.Observe(res)
			return nil
		})
		return in, sum
	}
	hostile.ManySessions(t, "inspect while reading", 832, func(capture []byte) any {
		in, sum := run(capture)
		return []any{in, sum}
	})
	hostile.ManySessions(t, "inspect's report", 480, func(capture []byte) any {
		in, sum := run(capture)
		return []any{in.Finish(sum), sum}
	})
}

package lineage

import (
	"testing"

	"github.com/agentskit/snapctl/internal/hostile"
	"github.com/agentskit/snapctl/replay"
)

// built runs a builder over a capture held in memory and returns it,
// with everything it keeps.
func built(tb testing.TB, capture []byte) *Builder {
	tb.Helper()
	b := NewBuilder("")
	hostile.Replay(tb, capture, replay.Options{Messages: true}, func(res *replay.Result) error {
		b.Add(res)
		return nil
	})
	return b
}

// TestMemoryPerSession checks that what the builder keeps per session
// does not depend on the size of its snapshots, where keeping each
// session's last projection would add a snapshot.
func TestMemoryPerSession(t *testing.T) {
	hostile.PerSession(t, "the builder", 2, 64<<10, 4<<10, func(capture []byte) any { return built(t, capture) })
}

// BenchmarkManySessions builds the graphs of 20,000 sessions of one small
// snapshot each.
func BenchmarkManySessions(b *testing.B) {
	capture := hostile.Sessions(20000, 1, 16)
	b.SetBytes(int64(len(capture)))
	b.ReportAllocs()
	for b.Loop() {
		built(b, capture).Sessions()
	}
}

// BenchmarkHugeSnapshots builds the graphs of 20 sessions of two 1 MiB
// snapshots.
func BenchmarkHugeSnapshots(b *testing.B) {
	capture := hostile.Sessions(20, 2, 1<<20)
	b.SetBytes(int64(len(capture)))
	b.ReportAllocs()
	for b.Loop() {
		built(b, capture).Sessions()
	}
}

// TestWorkLinear counts the allocations of building the graphs of
// doubling captures, of many sessions and of one session whose turns
// chain n deep: they must grow linearly.
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
					for _, s := range built(t, capture).Sessions() {
						if p := s.Problems(); p != 0 {
							t.Fatalf("session %s: %d problems", s.SessionID, p)
						}
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

// TestManySessions checks the state lineage keeps per session on a
// capture of many one-line sessions against the README's 1 KiB: while
// it reads (the builder and the run's summary) and once it draws (the
// graphs and the summary, Finish letting go of the rest).
func TestManySessions(t *testing.T) {
	run := func(capture []byte) (*Builder, replay.Summary) {
		b := NewBuilder("")
		sum := hostile.Replay(t, capture, replay.Options{Messages: true}, func(res *replay.Result) error {
			b.Add(res)
			return nil
		})
		return b, sum
	}
	// The state at 5,000 and 10,000 sessions, as measured when last
	// shrunk; and issue 24's 1 KiB a session at 20,000 and 40,000.
	for _, c := range []struct {
		n                int
		reading, written int64
	}{{5000, 800, 784}, {20000, 1 << 10, 1 << 10}} {
		if c.n > 5000 && testing.Short() {
			continue
		}
		hostile.ManySessionsOf(t, c.n, "lineage while reading", c.reading, func(capture []byte) any {
			b, sum := run(capture)
			return []any{b, sum}
		})
		hostile.ManySessionsOf(t, c.n, "lineage's graphs", c.written, func(capture []byte) any {
			b, sum := run(capture)
			return []any{b.Finish(), sum}
		})
	}
}

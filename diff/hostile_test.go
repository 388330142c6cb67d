package diff

import (
	"bytes"
	"testing"

	"github.com/agentskit/snapctl/internal/hostile"
	"github.com/agentskit/snapctl/replay"
)

// differ runs a Differ over a capture held in memory, giving each pair to
// emit, and returns it with everything it keeps.
func differ(tb testing.TB, capture []byte, opts Options, emit func(*PairDiff) error) *Differ {
	tb.Helper()
	rd, err := replay.Open([]string{replay.StdinName}, bytes.NewReader(capture), 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer rd.Close()
	d := NewDiffer(opts, emit)
	if _, err := replay.Run(rd, replay.Options{Session: opts.Session, Messages: true}, d.Add); err != nil {
		tb.Fatal(err)
	}
	return d
}

// TestNoWords checks that the word diff is computed only when asked for:
// the reworded content of every pair is diffed by word by default, and
// with NoWords only named as changed.
func TestNoWords(t *testing.T) {
	capture := hostile.Sessions(3, 2, 200)
	for _, noWords := range []bool{false, true} {
		pairs := 0
		differ(t, capture, Options{NoWords: noWords}, func(p *PairDiff) error {
			pairs++
			if len(p.Changed) != 1 || !p.Changed[0].Has(FieldContent) {
				t.Fatalf("pair %s: changed %+v, want the content of one message", p.SessionID, p.Changed)
			}
			c := p.Changed[0]
			if words := c.Words != nil || c.Replaced; words == noWords {
				t.Errorf("NoWords %v: Words %v, Replaced %v", noWords, c.Words != nil, c.Replaced)
			}
			return nil
		})
		if pairs != 3 {
			t.Errorf("NoWords %v: %d pairs, want 3", noWords, pairs)
		}
	}
}

// BenchmarkHugeMessages diffs two snapshots of one 8 MiB message reworded
// all along: past MaxWordBytes the word diff gives up after a byte scan.
func BenchmarkHugeMessages(b *testing.B) {
	capture := hostile.Sessions(1, 2, 8<<20)
	b.SetBytes(int64(len(capture)))
	b.ReportAllocs()
	for b.Loop() {
		differ(b, capture, Options{}, func(*PairDiff) error { return nil })
	}
}

// BenchmarkManySessions diffs 20,000 sessions of two small snapshots each.
func BenchmarkManySessions(b *testing.B) {
	capture := hostile.Sessions(20000, 2, 16)
	b.SetBytes(int64(len(capture)))
	b.ReportAllocs()
	for b.Loop() {
		differ(b, capture, Options{}, func(*PairDiff) error { return nil })
	}
}

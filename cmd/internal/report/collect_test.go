package report

import (
	"runtime"
	"testing"

	"github.com/agentskit/snapctl/diff"
	"github.com/agentskit/snapctl/internal/hostile"
	"github.com/agentskit/snapctl/replay"
)

// collected is what the collector keeps of a run over capture, with the
// differ the report gives it; held caps the events it holds.
func collected(t *testing.T, capture []byte, held int) *Collector {
	col := NewCollector(false, false, "")
	col.heldCap = held
	d := diff.NewDiffer(diff.Options{NoWords: true}, col.AddPair)
	hostile.Replay(t, capture, replay.Options{Messages: true, Hash: true}, func(res *replay.Result) error {
		col.Add(res)
		return d.Add(res)
	})
	if err := d.Finish(); err != nil {
		t.Fatal(err)
	}
	if len(col.sessions) != 4 || len(col.sessions[0].Diffs.Turns) != 1 || len(col.sessions[0].Diffs.Turns[0].Items) < 20 {
		t.Fatal("the run did not give the collector the changes of every session")
	}
	return col
}

// keptBy is the heap the collector keeps of a capture of 4 sessions of k
// snapshots whose assistant message of size bytes changes in each.
func keptBy(t *testing.T, k, size, held int) int64 {
	capture := hostile.Sessions(4, k, size)
	n := hostile.Retained(func() any { return collected(t, capture, held) })
	runtime.KeepAlive(capture)
	return n
}

// TestCollectorKeepsNoMessage checks that what the collector keeps of a
// run, its rows and its diffs' heads of messages, does not grow with the
// messages' size: 8 times longer messages leave the collector as large. A
// head that was a slice of the decoder's copy of a snapshot's messages
// kept that whole copy alive, for each of the changes listed.
func TestCollectorKeepsNoMessage(t *testing.T) {
	small, large := keptBy(t, 30, 2<<10, reportHeld), keptBy(t, 30, 16<<10, reportHeld)
	t.Logf("the collector keeps %d bytes with messages of 2 KiB, %d with 16 KiB", small, large)
	if large > small+small/2 {
		t.Errorf("the collector keeps %d bytes with messages of 16 KiB, %d with 2 KiB: it keeps the messages", large, small)
	}
}

// TestCollectorBoundedByLength checks that what the collector keeps does
// not grow with the capture's length once past its caps (held events,
// chart points, changes per turn): twice the snapshots, as much memory.
func TestCollectorBoundedByLength(t *testing.T) {
	short, long := keptBy(t, 2*chartBuckets, 64, 100), keptBy(t, 4*chartBuckets, 64, 100)
	t.Logf("the collector keeps %d bytes of %d snapshots a session, %d of %d", short, 2*chartBuckets, long, 4*chartBuckets)
	if long > short+short/4 {
		t.Errorf("the collector keeps %d bytes of %d snapshots a session, %d of %d: it grows with the capture", long, 4*chartBuckets, short, 2*chartBuckets)
	}
}

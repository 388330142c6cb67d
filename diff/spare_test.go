package diff

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/agentskit/snapctl/replay"
)

// TestSpareWithinBudget checks that the arrays of messages a Differ of
// borrowed messages keeps (its bases' and the spares own reuses) do not
// outgrow what its budget counts: sessions that once had a large
// snapshot and then small ones must not each keep an array the size of
// the large one, which the budget stopped counting when it went.
func TestSpareWithinBudget(t *testing.T) {
	const sessions, big, small = 40, 2000, 6
	// Large then small: the old base's array must not become the spare
	// (rebase). Two large then one small: the spare, the first large
	// array, must not become the small base's array (own).
	for _, sizes := range [][]int{{big, small, small, small}, {big, big, small}} {
		spareWithinBudget(t, sessions, sizes)
	}
}

func spareWithinBudget(t *testing.T, sessions int, sizes []int) {
	d := NewDiffer(Options{Borrowed: true}, func(*PairDiff) error { return nil })
	line := 0
	add := func(session string, n int) {
		line++
		ev := &replay.Event{Kind: replay.KindSnapshot, SessionID: session, TurnID: "t", Sequence: int64(line),
			EventID: fmt.Sprint("e", line), EmittedAt: "2026-07-11T03:00:00.000Z"}
		ev.Snapshot.Status = "streaming"
		for k := 0; k < n; k++ {
			ev.Snapshot.Messages = append(ev.Snapshot.Messages, replay.Message{ID: fmt.Sprint("m", k), Role: "assistant",
				Content: fmt.Sprint("reply ", line), Status: "streaming"})
		}
		if err := d.Add(&replay.Result{File: "f", Line: line, Event: ev, Reason: replay.ReasonAdvanced}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < sessions; i++ {
		for _, n := range sizes {
			add(fmt.Sprint("s", i), n)
		}
	}
	held, counted := 0, 0
	for _, s := range d.sessions {
		held += (cap(s.base.Messages) + cap(s.spare)) * int(unsafe.Sizeof(replay.Message{}))
		counted += len(s.base.Messages)
	}
	if held > d.budget {
		t.Errorf("snapshots of %v messages: %d sessions hold %d bytes of message arrays for %d messages kept whole (%d bytes counted), budget %d",
			sizes, len(d.sessions), held, counted, d.kept, d.budget)
	}
}

// TestCopierLetsGo checks that a copier used again (Differ.own keeps
// one) holds nothing of the strings it copied, nor of where it wrote
// them, once copy returns, and that a use after one of many strings
// keeps no lists of that size.
func TestCopierLetsGo(t *testing.T) {
	var c copier
	for _, n := range []int{3, 2, copierKeep + 1, 1} {
		dst := make([]string, n)
		src := make([]byte, n)
		for i := range dst {
			src[i] = byte('a' + i%26)
			c.add(&dst[i], unsafe.String(&src[i], 1))
		}
		c.copy()
		for i := range dst {
			if dst[i] != string(rune('a'+i%26)) {
				t.Fatalf("%d strings: copy %d is %q", n, i, dst[i])
			}
			if unsafe.StringData(dst[i]) == &src[i] {
				t.Fatalf("%d strings: copy %d still points at its source", n, i)
			}
		}
		if c.n != 0 || len(c.dst) != 0 || len(c.src) != 0 {
			t.Fatalf("%d strings: the copier still has %d bytes, %d destinations, %d sources", n, c.n, len(c.dst), len(c.src))
		}
		for i, s := range c.src[:cap(c.src)] {
			if s != "" || c.dst[:cap(c.dst)][i] != nil {
				t.Fatalf("%d strings: the copier still holds entry %d", n, i)
			}
		}
		if cap(c.src) > copierKeep {
			t.Fatalf("%d strings: the copier keeps room for %d", n, cap(c.src))
		}
	}
}

// TestKeptTextWithinBudget checks that the text a Differ of borrowed
// messages keeps of its bases is what its budget counts: a message kept
// from an older base (one the pair found the same) must not keep alive
// the text of the messages copied with it, which are gone. Each snapshot
// of this session removes the large message of the one before and keeps
// the small message that came with it, so that a small message sharing
// one allocation with a large one would keep every large one alive.
func TestKeptTextWithinBudget(t *testing.T) {
	const snapshots, big = 64, 64 << 10
	d := NewDiffer(Options{Borrowed: true}, func(*PairDiff) error { return nil })
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 1; i <= snapshots; i++ {
		ev := &replay.Event{Kind: replay.KindSnapshot, SessionID: "s", TurnID: "t", Sequence: int64(i),
			EventID: fmt.Sprint("e", i), EmittedAt: "2026-07-11T03:00:00.000Z"}
		ev.Snapshot.Status = "streaming"
		for k := 1; k <= i; k++ {
			ev.Snapshot.Messages = append(ev.Snapshot.Messages, replay.Message{ID: fmt.Sprint("small", k), Role: "user",
				Content: fmt.Sprint("question ", k), Status: "complete"})
		}
		ev.Snapshot.Messages = append(ev.Snapshot.Messages, replay.Message{ID: fmt.Sprint("big", i), Role: "assistant",
			Content: strings.Repeat(string(rune('a'+i%26)), big), Status: "streaming"})
		if err := d.Add(&replay.Result{File: "f", Line: i, Event: ev, Reason: replay.ReasonAdvanced}); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(d)
	if held := int64(after.HeapAlloc) - int64(before.HeapAlloc); held > int64(2*d.kept+big) {
		t.Errorf("%d snapshots: the differ holds %d bytes of heap, its budget counts %d", snapshots, held, d.kept)
	}
}

package diff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/replay"
)

// benchProjections builds two ~20 KB projections that differ the way a
// streaming turn does: most messages equal, one grown, one reworded, one
// with changed metadata and tool calls, one added and one removed.
func benchProjections() (Projection, Projection) {
	var old, new []replay.Message
	text := strings.Repeat("the gateway restarted and clients reconnected ", 4)
	for i := 0; i < 100; i++ {
		m := replay.Message{ID: fmt.Sprintf("m%d", i), Role: "assistant", Content: text, Status: "complete",
			CreatedAt: "2026-07-11T09:00:00.000Z", Metadata: fmt.Sprintf(`{"i":%d,"tags":["a","b"]}`, i)}
		old = append(old, m)
		switch i {
		case 10:
			m.Content += "and more"
		case 20:
			m.Content = strings.Replace(m.Content, "gateway", "proxy", 2)
		case 30:
			m.Metadata = fmt.Sprintf(`{"i":%d,"tags":["a","c"]}`, i)
			m.ToolCalls = []replay.ToolCall{{ID: "c", Name: "n", Status: "complete", Args: `{"q":1}`}}
		case 40:
			continue
		}
		new = append(new, m)
	}
	new = append(new, replay.Message{ID: "added", Role: "assistant", Content: "hi", Status: "streaming"})
	return Projection{Messages: old}, Projection{Messages: new}
}

func BenchmarkCompare(b *testing.B) {
	old, new := benchProjections()
	b.SetBytes(int64(old.Size() + new.Size()))
	b.ReportAllocs()
	for b.Loop() {
		p := Compare(old, new)
		if len(p.Changed) != 3 || len(p.Added) != 1 || len(p.Removed) != 1 {
			b.Fatalf("unexpected diff: %d changed, %d added, %d removed", len(p.Changed), len(p.Added), len(p.Removed))
		}
	}
}

// BenchmarkWordsCap measures the worst case the cap allows: two long texts
// with nothing in common.
func BenchmarkWordsCap(b *testing.B) {
	x := strings.Repeat("x ", 50000)
	y := strings.Repeat("y ", 50000)
	b.SetBytes(int64(len(x) + len(y)))
	for b.Loop() {
		if _, ok := Words(x, y); ok {
			b.Fatal("diffed beyond the cap")
		}
	}
}

// BenchmarkWordsShuffled measures the worst case past the cheap bound:
// the same words in an order Myers needs the whole cap to give up on.
func BenchmarkWordsShuffled(b *testing.B) {
	var x, y []string
	for i := 0; i < 50000; i++ {
		x = append(x, fmt.Sprint(i))
		y = append(y, fmt.Sprint(50000-i))
	}
	xs, ys := strings.Join(x, " "), strings.Join(y, " ")
	b.SetBytes(int64(len(xs) + len(ys)))
	for b.Loop() {
		if _, ok := Words(xs, ys); ok {
			b.Fatal("diffed beyond the cap")
		}
	}
}

// BenchmarkDifferStream measures a Differ of borrowed messages on one
// session streaming the way the benchmark capture does: 18 messages of
// history in every snapshot, the last one a reply growing a few words at
// a time, a new turn every 30 snapshots.
func BenchmarkDifferStream(b *testing.B) {
	words := strings.Repeat("the gateway restarted and clients reconnected ", 8)
	var rs []*replay.Result
	for i := 1; i <= 300; i++ {
		ev := &replay.Event{Kind: replay.KindSnapshot, SessionID: "s", TurnID: fmt.Sprint("t", i/30),
			Sequence: int64(i), EventID: fmt.Sprint("e", i), EmittedAt: "2026-07-11T03:00:00.000Z"}
		ev.Snapshot.Status = "streaming"
		n := 16 + 2*(i/30)
		for k := 0; k < n; k++ {
			m := replay.Message{ID: fmt.Sprintf("m%d", k), Role: "user", Content: words, Status: "complete",
				CreatedAt: "2026-07-11T03:00:00.000Z"}
			if k == n-1 {
				m.Role, m.Status, m.Content = "assistant", "streaming", words[:(i%30)*12]
			}
			ev.Snapshot.Messages = append(ev.Snapshot.Messages, m)
		}
		rs = append(rs, &replay.Result{File: "f", Line: i, Event: ev, Reason: replay.ReasonAdvanced})
	}
	size := 0
	for _, res := range rs {
		p := ProjectionOf(res)
		size += p.Size()
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		pairs := 0
		d := NewDiffer(Options{Borrowed: true, NoWords: true}, func(*PairDiff) error { pairs++; return nil })
		for _, res := range rs {
			if err := d.Add(res); err != nil {
				b.Fatal(err)
			}
		}
		if pairs != len(rs)-1 {
			b.Fatalf("%d pairs of %d snapshots", pairs, len(rs))
		}
	}
}

package diff

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/agentskit/snapctl/replay"
)

// TestBorrowedEveryBase checks that a Differ of borrowed messages
// (Options.Borrowed) keeps nothing of a result past Add, whichever way it
// keeps the older projection: whole, packed (small) or compact (past the
// budget), and whichever messages stay, move or go. Each result's
// strings point into one buffer, overwritten once Add returns; the pairs
// must be those of a Differ given copies.
func TestBorrowedEveryBase(t *testing.T) {
	long := strings.Repeat("a reply long enough to be cut in a compact projection ", 8)
	snapshots := func() []*replay.Result {
		var rs []*replay.Result
		for i := 1; i <= 40; i++ {
			ev := &replay.Event{Kind: replay.KindSnapshot, SessionID: fmt.Sprint("s", i%3), TurnID: fmt.Sprint("t", i/6),
				Sequence: int64(i), EventID: fmt.Sprint("e", i), EmittedAt: "2026-07-11T03:00:00.000Z"}
			ev.Snapshot.Status = "streaming"
			for k := 0; k < 1+i%5; k++ {
				// Short and long texts, some the same in every snapshot
				// (m1), some growing (m3).
				content := fmt.Sprint("short ", k)
				switch k {
				case 1:
					content = long
				case 3:
					content = long + strings.Repeat("more ", i%7)
				}
				m := replay.Message{ID: fmt.Sprintf("m%d", k), Role: "assistant", Content: content, Status: "streaming",
					CreatedAt: "2026-07-11T03:00:00.000Z", Metadata: `{"k":1}`}
				if k == 2 {
					m.HasToolCalls, m.ToolCalls = true, []replay.ToolCall{{ID: "c", Name: "n", Status: "complete", Args: `{"q":1}`, Result: long, HasResult: true}}
				}
				ev.Snapshot.Messages = append(ev.Snapshot.Messages, m)
			}
			// Messages gone from the middle, and moved: a message
			// equal to one kept then sits at another index.
			ms := ev.Snapshot.Messages
			if i%4 == 0 && len(ms) > 2 {
				ms = append(ms[:1], ms[2:]...)
			}
			if i%7 < 2 {
				slices.Reverse(ms)
			}
			ev.Snapshot.Messages = ms
			rs = append(rs, &replay.Result{File: "f", Line: i, Event: ev, Reason: replay.ReasonAdvanced})
		}
		return rs
	}
	for _, budget := range []int{keptBudget, 0} {
		run := func(borrow bool) ([]string, []*PairDiff) {
			return runPairs(t, Options{Borrowed: borrow}, budget, snapshots(), borrow)
		}
		got, pairs := run(true)
		if want, _ := run(false); !reflect.DeepEqual(got, want) {
			t.Errorf("budget %d: borrowed messages give other pairs:\n got %v\nwant %v", budget, got, want)
		}
		coarse := 0
		for _, p := range pairs {
			if p.Coarse {
				coarse++
			}
		}
		if (coarse > 0) != (budget == 0) {
			t.Errorf("budget %d: %d pairs against a compact projection", budget, coarse)
		}
	}
}

// runPairs gives rs to a Differ with opts and budget, and returns its
// pairs, each also as JSON when it was emitted. With poison, every string
// of a result points into one buffer (poisonable), overwritten once Add
// returns.
func runPairs(t *testing.T, opts Options, budget int, rs []*replay.Result, poison bool) ([]string, []*PairDiff) {
	t.Helper()
	var out []string
	var kept []*PairDiff
	d := NewDiffer(opts, func(p *PairDiff) error {
		b, err := json.Marshal(p)
		out = append(out, string(b))
		kept = append(kept, p)
		return err
	})
	d.budget = budget
	for _, res := range rs {
		var buf []byte
		if poison {
			buf = poisonable(res)
		}
		if err := d.Add(res); err != nil {
			t.Fatal(err)
		}
		for i := range buf {
			buf[i] = '#'
		}
	}
	return out, kept
}

// poisonable points every string of res into one buffer, returned for
// overwriting.
func poisonable(res *replay.Result) []byte {
	var buf []byte
	var at []*string
	for i := range res.Event.Snapshot.Messages {
		eachString(&res.Event.Snapshot.Messages[i], func(s *string) { buf = append(buf, *s...); at = append(at, s) })
	}
	off := 0
	for _, s := range at {
		n := len(*s)
		if n > 0 {
			*s = unsafe.String(&buf[off], n)
		}
		off += n
	}
	return buf
}

package diff

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/replay"
)

// TestBorrowedKeepsNewerText checks that a Differ of borrowed messages
// keeps the older copy of a message only when it equals the newer one in
// every field, not when the pair merely finds no change in it: JSON
// whose keys were reordered, or tool calls whose order changed. The next
// pair shows the kept text (MessageChange.Old), which must be the newer
// snapshot's, as a Differ given copies shows it.
func TestBorrowedKeepsNewerText(t *testing.T) {
	call := func(id string) replay.ToolCall { return replay.ToolCall{ID: id, Name: "n", Args: `{"q":1}`} }
	for _, tt := range []struct {
		name      string
		parts     [2]string
		toolCalls [2][]replay.ToolCall
	}{
		{name: "parts", parts: [2]string{`{"a":1,"b":2}`, `{"b":2,"a":1}`}},
		{name: "tool calls", toolCalls: [2][]replay.ToolCall{{call("c1"), call("c2")}, {call("c2"), call("c1")}}},
	} {
		run := func(borrow bool) []string {
			var rs []*replay.Result
			for i, content := range []string{"x", "x", "y"} {
				ev := &replay.Event{Kind: replay.KindSnapshot, SessionID: "s", TurnID: "t", Sequence: int64(i + 1), EventID: fmt.Sprint("e", i)}
				ev.Snapshot.Status = "streaming"
				// The first message makes the projection too large to
				// be packed: it is kept whole.
				m := replay.Message{ID: "m1", Role: "assistant", Content: content, Parts: tt.parts[min(i, 1)]}
				if tcs := tt.toolCalls[min(i, 1)]; tcs != nil {
					m.HasToolCalls, m.ToolCalls = true, slices.Clone(tcs)
				}
				ev.Snapshot.Messages = []replay.Message{{ID: "m0", Role: "user", Content: strings.Repeat("hi ", 500)}, m}
				rs = append(rs, &replay.Result{File: "f", Line: i + 1, Event: ev, Reason: replay.ReasonAdvanced})
			}
			out, _ := runPairs(t, Options{Borrowed: borrow}, keptBudget, rs, borrow)
			return out
		}
		if got, want := run(true), run(false); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: borrowed messages give other pairs:\n got %v\nwant %v", tt.name, got, want)
		}
	}
}

// randResults is a random stream of snapshots for TestBorrowedRandom.
func randResults(r *rand.Rand) []*replay.Result {
	var rs []*replay.Result
	prev := map[string][]replay.Message{}
	long := strings.Repeat("long text ", 60)
	for i := 1; i <= 60; i++ {
		sid := fmt.Sprint("s", r.Intn(3))
		ms := append([]replay.Message(nil), prev[sid]...)
		for k := range ms {
			ms[k].ToolCalls = append([]replay.ToolCall(nil), ms[k].ToolCalls...)
		}
		switch op := r.Intn(10); {
		case op < 3 || len(ms) == 0:
			n := 1 + r.Intn(4)
			for k := 0; k < n; k++ {
				id := fmt.Sprint("m", r.Intn(8))
				m := replay.Message{ID: id, Role: "assistant", Content: fmt.Sprint("c", r.Intn(3))}
				if r.Intn(3) == 0 {
					m.Content = long + m.Content
				}
				ms = append(ms, m)
			}
		case op == 3:
			k := r.Intn(len(ms))
			ms = append(ms[:k], ms[k+1:]...)
		case op == 4 && len(ms) > 1:
			a, b := r.Intn(len(ms)), r.Intn(len(ms))
			ms[a], ms[b] = ms[b], ms[a]
		case op == 5:
			k := r.Intn(len(ms))
			ms[k].Content += " more"
		case op == 6:
			k := r.Intn(len(ms))
			ms[k].Parts = []string{`{"a":1,"b":2}`, `{"b":2,"a":1}`, `{"a":1.0,"b":2}`, ""}[r.Intn(4)]
		case op == 7:
			k := r.Intn(len(ms))
			ms[k].HasToolCalls = true
			ms[k].ToolCalls = append(ms[k].ToolCalls, replay.ToolCall{ID: fmt.Sprint("c", r.Intn(3)), Name: "n", Args: `{"x":1}`})
		case op == 8:
			k := r.Intn(len(ms))
			if tc := ms[k].ToolCalls; len(tc) > 1 {
				tc[0], tc[1] = tc[1], tc[0]
			} else if len(tc) == 1 {
				tc[0].Result, tc[0].HasResult = long, true
			}
		default:
			ms = ms[:r.Intn(len(ms)+1)]
		}
		prev[sid] = ms
		ev := &replay.Event{Kind: replay.KindSnapshot, SessionID: sid, TurnID: fmt.Sprint("t", i/8), Sequence: int64(i), EventID: fmt.Sprint("e", i)}
		ev.Snapshot.Status = "streaming"
		ev.Snapshot.Messages = append([]replay.Message(nil), ms...)
		for k := range ev.Snapshot.Messages {
			ev.Snapshot.Messages[k].ToolCalls = append([]replay.ToolCall(nil), ev.Snapshot.Messages[k].ToolCalls...)
		}
		rs = append(rs, &replay.Result{File: "f", Line: i, Event: ev, Reason: replay.ReasonAdvanced})
	}
	return rs
}

// TestBorrowedRandom checks, on random streams of snapshots of three
// sessions (messages added, removed, swapped, grown, their JSON reordered,
// their tool calls added, swapped and given results, ids repeated), that
// a Differ of borrowed messages gives the pairs of one given copies,
// whole, compact or mixed, with --turn or not; and that a pair it emitted
// does not change afterwards, when its base's array is written over.
func TestBorrowedRandom(t *testing.T) {
	seeds := int64(150)
	if testing.Short() {
		seeds = 50
	}
	for seed := int64(0); seed < seeds; seed++ {
		for _, budget := range []int{keptBudget, 0, 6000} {
			for _, turn := range []string{"", "t2"} {
				run := func(borrow, poison bool) ([]string, []*PairDiff) {
					return runPairs(t, Options{Borrowed: borrow, Turn: turn}, budget, randResults(rand.New(rand.NewSource(seed))), poison)
				}
				want, _ := run(false, false)
				got, _ := run(true, true)
				if !reflect.DeepEqual(got, want) {
					for i := range got {
						if got[i] != want[i] {
							t.Fatalf("seed %d budget %d turn %q pair %d:\n got %s\nwant %s", seed, budget, turn, i, got[i], want[i])
						}
					}
				}
				got2, kept := run(true, false)
				for i, p := range kept {
					b, _ := json.Marshal(p)
					if string(b) != got2[i] {
						t.Fatalf("seed %d budget %d: pair %d changed after emit:\n was %s\n now %s", seed, budget, i, got2[i], b)
					}
				}
			}
		}
	}
}

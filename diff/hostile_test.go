package diff

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentskit/snapctl/internal/hostile"
	"github.com/agentskit/snapctl/replay"
)

// differ runs a Differ over a capture held in memory, giving each pair to
// emit, and returns it with everything it keeps.
func differ(tb testing.TB, capture []byte, opts Options, emit func(*PairDiff) error) *Differ {
	tb.Helper()
	return run(tb, capture, NewDiffer(opts, emit))
}

func run(tb testing.TB, capture []byte, d *Differ) *Differ {
	tb.Helper()
	hostile.Replay(tb, capture, replay.Options{Session: d.opts.Session, Messages: true, BorrowMessages: d.opts.Borrowed}, d.Add)
	return d
}

// TestMemoryPerSession checks that past the budget for whole projections
// what the differ keeps per session does not depend on the size of its
// snapshots, where keeping every projection whole would add a snapshot;
// with the messages copied by the decoder, and borrowed (the differ then
// copies what it keeps, keeping the copies of messages that did not
// change).
func TestMemoryPerSession(t *testing.T) {
	for _, borrowed := range []bool{false, true} {
		hostile.PerSession(t, fmt.Sprint("the differ, borrowed ", borrowed), 1, 64<<10, 4<<10, func(capture []byte) any {
			d := NewDiffer(Options{Borrowed: borrowed}, func(*PairDiff) error { return nil })
			d.budget = 1 << 20
			run(t, capture, d)
			if d.kept > d.budget {
				t.Errorf("%d bytes kept whole, budget %d", d.kept, d.budget)
			}
			return d
		})
	}
}

// TestCoarsePairs checks that a pair against a compact older projection
// finds what a pair against the whole one does, messages, fields and
// appended text, but the word and path detail of long values.
func TestCoarsePairs(t *testing.T) {
	long := strings.Repeat("the gateway restarted and clients reconnected ", 20)
	meta := `{"trace":"` + strings.Repeat("x", 400) + `"}`
	args := `{"q":"` + strings.Repeat("y", 400) + `"}`
	msg := func(id, content string) replay.Message {
		return replay.Message{ID: id, Role: "assistant", Content: content, Status: "complete", CreatedAt: "2026-07-11T09:00:00.000Z"}
	}
	var old, new []replay.Message
	for i := 0; i < 8; i++ {
		m := msg(fmt.Sprintf("m%d", i), long)
		m.Metadata = meta
		m.HasToolCalls, m.ToolCalls = true, []replay.ToolCall{{ID: "c", Name: "lookup", Status: "complete", Args: args, Result: long, HasResult: true}}
		old = append(old, m)
		switch i {
		case 1:
			m.Content += "and more"
		case 2:
			m.Content = strings.Replace(m.Content, "gateway", "proxy", 1)
		case 3:
			m.Metadata = `{"trace":"z"}`
		case 4:
			m.ToolCalls = []replay.ToolCall{{ID: "c", Name: "lookup", Status: "error", Args: `{"q":"z"}`, Result: long + ".", HasResult: true}}
		case 5:
			m.Content = "short now"
		case 6:
			continue
		}
		new = append(new, m)
	}
	new = append([]replay.Message{msg("added", "hi")}, new...)
	new[7], new[6] = new[6], new[7]
	lin := replay.Lineage{Operation: "regenerate", ParentTurnID: "t", SourceMessageID: "m6"}
	from, to := Projection{Messages: old}, Projection{Messages: new, Lineage: lin}
	brief := func(p PairDiff) string {
		s := fmt.Sprint("coarse=", p.Coarse, " moved=", p.Moved)
		for _, m := range p.Added {
			s += " +" + m.ID
		}
		for _, r := range p.Removed {
			s += fmt.Sprintf(" -%s@%d explained=%v", r.Message.ID, r.Index, r.Explained)
		}
		for _, c := range p.Changed {
			s += fmt.Sprintf(" ~%s%v grew=%v %q", c.ID, c.Fields, c.Grew, c.Appended)
			for _, tc := range c.ToolCalls {
				s += fmt.Sprint(tc.Fields)
			}
		}
		return s
	}
	whole, coarse := Compare(from, to), Compare(compactOf(from), to)
	if got, want := brief(coarse), strings.Replace(brief(whole), "coarse=false", "coarse=true", 1); got != want {
		t.Errorf("coarse pair\n %s\nwant\n %s", got, want)
	}
	for _, r := range coarse.Removed {
		if runes, bytes := coarse.Whole(r.Message.Content); runes != len(long) || bytes != len(long) {
			t.Errorf("removed %s: Whole = %d runes, %d bytes; want %d", r.Message.ID, runes, bytes, len(long))
		}
	}
	for _, c := range coarse.Changed {
		if runes, _ := coarse.Whole(c.Old.Content); runes != len(long) {
			t.Errorf("%s: Whole(old content) = %d runes, want %d", c.ID, runes, len(long))
		}
		if runes, _ := coarse.Whole(c.New.Content); runes != len(c.New.Content) {
			t.Errorf("%s: Whole(new content) = %d runes, want %d", c.ID, runes, len(c.New.Content))
		}
		if c.Has(FieldContent) && !c.Grew && !c.Replaced {
			t.Errorf("%s: a long content changed without growing is not Replaced", c.ID)
		}
		if len(c.Old.Content) > compactMax {
			t.Errorf("%s: the compact content is %d bytes", c.ID, len(c.Old.Content))
		}
	}
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

// TestWorkLinear counts the allocations of diffing doubling captures of
// many sessions, kept whole and kept compact: they must grow linearly.
// (The word diff, linear per pair, is left out to keep the test short.)
func TestWorkLinear(t *testing.T) {
	for _, tt := range []struct {
		name   string
		budget int
	}{{"whole", math.MaxInt}, {"compact", 0}} {
		t.Run(tt.name, func(t *testing.T) {
			var costs []uint64
			for n := 1000; n <= 8000; n *= 2 {
				capture := hostile.Sessions(n, 3, 2000)
				costs = append(costs, hostile.Mallocs(func() {
					pairs := 0
					d := NewDiffer(Options{NoWords: true}, func(*PairDiff) error { pairs++; return nil })
					d.budget = tt.budget
					run(t, capture, d)
					if pairs != 2*n {
						t.Fatalf("%d pairs, want %d", pairs, 2*n)
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

// TestCompactDifferential compares pairs against compact and whole older
// projections on random projections and edits, long strings included:
// the messages, fields, tool-call fields and appended text must agree.
func TestCompactDifferential(t *testing.T) {
	x := uint32(3)
	rnd := func(n int) int { x = x*1103515245 + 12345; return int(x>>8) % n }
	long := func(s string) string { return strings.Repeat(s, 40+rnd(40)) }
	text := func() string {
		switch rnd(3) {
		case 0:
			return "short " + fmt.Sprint(rnd(3))
		case 1:
			return long("long é ")
		}
		return ""
	}
	jsonValue := func() string {
		switch rnd(3) {
		case 0:
			return fmt.Sprintf(`{"k":%d}`, rnd(3))
		case 1:
			return fmt.Sprintf(`{"k":%d,"pad":"%s"}`, rnd(3), long("p"))
		}
		return ""
	}
	call := func(id string) replay.ToolCall {
		return replay.ToolCall{ID: id, Name: []string{"n", long("name")}[rnd(2)], Status: "complete", Args: jsonValue(),
			Result: text(), HasResult: rnd(2) == 0}
	}
	message := func(id string) replay.Message {
		m := replay.Message{ID: id, Role: "assistant", Content: text(), Status: "complete", CreatedAt: "2026-07-11T09:00:00.000Z",
			Parts: jsonValue(), Metadata: jsonValue()}
		if rnd(3) == 0 {
			m.HasToolCalls = true
			for i := 0; i < rnd(3); i++ {
				m.ToolCalls = append(m.ToolCalls, call(fmt.Sprint("c", rnd(3))))
			}
		}
		return m
	}
	edit := func(m replay.Message) replay.Message {
		switch rnd(8) {
		case 0:
			m.Content += " more"
		case 1:
			m.Content = text()
		case 2:
			m.Status = "streaming"
		case 3:
			m.Metadata = jsonValue()
		case 4:
			m.Parts = jsonValue()
		case 5:
			m.ToolCalls = append([]replay.ToolCall(nil), m.ToolCalls...)
			if len(m.ToolCalls) > 0 {
				m.ToolCalls[0] = call(m.ToolCalls[0].ID)
			} else {
				m.HasToolCalls, m.ToolCalls = true, []replay.ToolCall{call("c9")}
			}
		case 6:
			m.ToolCallID, m.HasToolCallID = long("t"), true
		}
		return m
	}
	brief := func(p PairDiff) string {
		s := fmt.Sprint("moved=", p.Moved)
		for _, m := range p.Added {
			s += " +" + m.ID
		}
		for _, r := range p.Removed {
			s += fmt.Sprintf(" -%s@%d/%v", r.Message.ID, r.Index, r.Explained)
		}
		for _, c := range p.Changed {
			s += fmt.Sprintf(" ~%s%v/%v/%q", c.ID, c.Fields, c.Grew, c.Appended)
			for _, tc := range c.ToolCalls {
				s += fmt.Sprint(tc.Kind, tc.ID, tc.Fields)
			}
		}
		return s
	}
	for it := 0; it < 3000; it++ {
		var old, new []replay.Message
		for i := 0; i < rnd(6); i++ {
			old = append(old, message(fmt.Sprint("m", rnd(5))))
		}
		for _, m := range old {
			switch rnd(5) {
			case 0:
				continue
			case 1:
				new = append(new, message(fmt.Sprint("n", rnd(3))))
			}
			new = append(new, edit(m))
		}
		if len(new) > 1 && rnd(3) == 0 {
			new[0], new[len(new)-1] = new[len(new)-1], new[0]
		}
		lin := replay.Lineage{}
		if len(old) > 0 && rnd(3) == 0 {
			lin = replay.Lineage{Operation: "retry", ParentTurnID: "t", SourceMessageID: old[rnd(len(old))].ID}
		}
		from, to := Projection{Messages: old}, Projection{Messages: new, Lineage: lin}
		whole, coarse := Compare(from, to), Compare(compactOf(from), to)
		if got, want := brief(coarse), brief(whole); got != want {
			t.Fatalf("case %d: coarse pair\n %s\nwant\n %s", it, got, want)
		}
		for _, r := range coarse.Removed {
			if runes, bytes := coarse.Whole(r.Message.Content); runes != utf8.RuneCountInString(old[r.Index].Content) || bytes != len(old[r.Index].Content) {
				t.Fatalf("case %d: Whole of removed %s = %d, %d", it, r.Message.ID, runes, bytes)
			}
		}
	}
}

// TestManySessions checks the state diff keeps per session on a capture
// of many one-line sessions, the projection it diffs the next snapshot
// against included (packed): 763 bytes when measured, within the
// README's 1 KiB with room for the run's maps.
func TestManySessions(t *testing.T) {
	hostile.ManySessions(t, "diff while reading", 784, func(capture []byte) any {
		d := NewDiffer(Options{}, func(*PairDiff) error { return nil })
		sum := hostile.Replay(t, capture, replay.Options{Messages: true}, d.Add)
		return []any{d, sum}
	})
}

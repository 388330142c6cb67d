package lineage

import (
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/agentskit/snapctl/replay"
)

// snap is one accepted snapshot for the tests: a turn, its lineage
// ("" for none, else "op" or "op parent source") and its message ids.
type snap struct {
	turn    string
	lineage string
	msgs    []string
}

// build runs snapshots of one session through a Builder as accepted
// results with sequences 1, 2, 3…
func build(t *testing.T, snaps []snap) *Session {
	t.Helper()
	b := NewBuilder("")
	for i, s := range snaps {
		b.Add(accepted("s", s, int64(i+1)))
	}
	sessions := b.Sessions()
	if len(sessions) != 1 {
		t.Fatalf("got %d sessions, want 1", len(sessions))
	}
	return sessions[0]
}

func accepted(session string, s snap, seq int64) *replay.Result {
	ev := &replay.Event{Kind: replay.KindSnapshot, SessionID: session, TurnID: s.turn, Sequence: seq,
		EmittedAt: fmt.Sprintf("2026-07-11T03:00:%02dZ", seq%60), Emitted: time.Date(2026, 7, 11, 3, 0, int(seq%60), 0, time.UTC)}
	ev.Snapshot.Status = "complete"
	if f := strings.Fields(s.lineage); len(f) > 0 {
		ev.Snapshot.Lineage.Operation = replay.Operation(f[0])
		if len(f) == 3 {
			ev.Snapshot.Lineage.ParentTurnID, ev.Snapshot.Lineage.SourceMessageID = f[1], f[2]
		}
	}
	var ids strings.Builder
	for _, id := range s.msgs {
		ev.Snapshot.Messages = append(ev.Snapshot.Messages, replay.Message{ID: id, Role: "assistant", Content: "text of " + id})
		fmt.Fprintf(&ids, "%d:%s", len(id), id)
	}
	if hashIDs {
		// As a decoder asked for hashes sums up the ids.
		ev.Snapshot.IDsHash = max(maphash.String(testSeed, ids.String()), 1)
	}
	return &replay.Result{Event: ev, Reason: replay.ReasonAdvanced}
}

// hashIDs makes accepted set Snapshot.IDsHash, as the decoder does when
// asked for hashes; tests run with and without.
var hashIDs bool

var testSeed = maphash.MakeSeed()

// shape renders the tree as "turn(child,child)" lists, roots comma-joined,
// with each turn's problem kinds in brackets.
func shape(s *Session) string {
	var b strings.Builder
	prevDepth := -1
	s.Walk(func(n *Node, depth int, last bool) {
		switch {
		case depth > prevDepth && prevDepth >= 0:
			b.WriteString("(")
		case depth == prevDepth:
			b.WriteString(",")
		case depth < prevDepth:
			b.WriteString(strings.Repeat(")", prevDepth-depth) + ",")
		}
		b.WriteString(n.TurnID)
		for _, p := range n.Problems {
			b.WriteString("[" + string(p.Kind) + "]")
		}
		prevDepth = depth
	})
	if prevDepth > 0 {
		b.WriteString(strings.Repeat(")", prevDepth))
	}
	return b.String()
}

func TestLink(t *testing.T) {
	tests := []struct {
		name  string
		snaps []snap
		want  string
	}{
		{"trunk in sequence order", []snap{
			{"b", "submit", nil}, {"a", "submit", nil}, {"c", "", nil},
		}, "b,a,c"},
		{"every operation hangs under its parent", []snap{
			{"t1", "submit", []string{"u1", "a1"}},
			{"t2", "retry t1 u1", []string{"u1", "a2"}},
			{"t3", "regenerate t2 a2", []string{"u1", "a3"}},
			{"t4", "submit", []string{"u1", "a3", "u4"}},
			{"t5", "edit t1 u1", []string{"u5"}},
		}, "t1(t2(t3),t5),t4"},
		{"orphan goes to the root in sequence order", []snap{
			{"t1", "submit", nil},
			{"t2", "retry gone m", nil},
			{"t3", "regenerate t2 x", nil},
			{"t4", "submit", nil},
		}, "t1,t2[orphan](t3[source-missing]),t4"},
		{"source missing from the parent's last projection", []snap{
			{"t1", "submit", []string{"u1", "a1"}},
			{"t1", "submit", []string{"u1", "a1b"}},
			{"t2", "regenerate t1 a1", nil},
		}, "t1(t2[source-missing])"},
		{"source found in the parent's last projection", []snap{
			{"t1", "submit", []string{"u1"}},
			{"t1", "submit", []string{"u1", "a1"}},
			{"t2", "regenerate t1 a1", nil},
		}, "t1(t2)"},
		{"conflicting lineage keeps the first", []snap{
			{"t1", "submit", []string{"u1", "a1"}},
			{"t2", "retry t1 u1", nil},
			{"t2", "", nil},
			{"t2", "edit t1 u1", nil},
		}, "t1(t2[lineage-conflict])"},
		{"two-turn cycle is cut at the earliest turn", []snap{
			{"a", "regenerate b m", []string{"m"}},
			{"b", "regenerate a m", []string{"m"}},
			{"c", "retry b m", nil},
		}, "a[cycle](b[cycle](c))"},
		{"self-parent is a cycle", []snap{
			{"a", "retry a m", []string{"m"}},
		}, "a[cycle]"},
		{"cycle behind a chain is cut, chain stays", []snap{
			{"x", "retry y m", []string{"m"}},
			{"y", "retry z m", []string{"m"}},
			{"z", "retry y m", []string{"m"}},
			{"w", "retry x m", nil},
		}, "y[cycle](x(w),z[cycle])"},
		{"turn without lineage is unknown", []snap{
			{"t1", "", nil},
		}, "t1"},
	}
	for _, hashed := range []bool{false, true} {
		hashIDs = hashed
		testLink(t, tests)
	}
	hashIDs = false
}

func testLink(t *testing.T, tests []struct {
	name  string
	snaps []snap
	want  string
}) {
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s hashed=%v", tt.name, hashIDs), func(t *testing.T) {
			s := build(t, tt.snaps)
			if got := shape(s); got != tt.want {
				t.Errorf("tree = %s\nwant   %s", got, tt.want)
			}
			seen := map[*Node]int{}
			s.Walk(func(n *Node, _ int, _ bool) { seen[n]++ })
			for _, n := range s.Turns {
				if seen[n] != 1 {
					t.Errorf("turn %s drawn %d times, want once", n.TurnID, seen[n])
				}
			}
		})
	}
}

func TestNodeFields(t *testing.T) {
	b := NewBuilder("")
	r := accepted("s", snap{"t1", "", []string{"u"}}, 4)
	r.Event.Snapshot.Status = "streaming"
	b.Add(r)
	r = accepted("s", snap{"t1", "retry t0 u", []string{"u", "a"}}, 9)
	r.Event.Snapshot.Usage = replay.Usage{PromptTokens: 3, CompletionTokens: 4, TotalTokens: 7}
	r.Event.Snapshot.Messages[1].Content = "line one\nline two \x1b[31m" + strings.Repeat("x", 80)
	b.Add(r)
	b.Add(&replay.Result{Event: &replay.Event{Kind: replay.KindSubmit, SessionID: "s", TurnID: "t1", Input: "please\tretry"},
		Reason: replay.ReasonNonSnapshot})
	// An inert snapshot changes nothing.
	stale := accepted("s", snap{"t1", "edit t0 u", nil}, 2)
	stale.Reason = replay.ReasonStale
	b.Add(stale)

	n := b.Sessions()[0].Turns[0]
	checks := []struct {
		name      string
		got, want any
	}{
		{"operation", n.Operation, OpRetry},
		{"parent", n.ParentTurnID, "t0"},
		{"first sequence", n.FirstSequence, int64(4)},
		{"last sequence", n.LastSequence, int64(9)},
		{"status", n.Status, replay.StatusComplete},
		{"first emittedAt", n.FirstEmittedAt, "2026-07-11T03:00:04Z"},
		{"usage", n.Usage.TotalTokens, int64(7)},
		{"preview", n.Preview, "line one\nline two \x1b[31m" + strings.Repeat("x", 37)},
		{"preview cut", n.PreviewCut, true},
		{"input", n.Input, "please\tretry"},
		{"input cut", n.InputCut, false},
		{"problems", len(n.Problems), 1},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
	if d := n.Duration(); d.Seconds() != 5 {
		t.Errorf("duration = %v; want 5s", d)
	}
}

func TestPreview(t *testing.T) {
	tests := []struct {
		name string
		msgs []replay.Message
		want string
		cut  bool
	}{
		{"last assistant after the last user", []replay.Message{{Role: "user", Content: "q"}, {Role: "assistant", Content: "a1"},
			{Role: "assistant", Content: "a2"}, {Role: "tool", Content: "t"}}, "a2", false},
		{"no answer yet borrows nothing", []replay.Message{{Role: "assistant", Content: "old"}, {Role: "user", Content: "q"}}, "", false},
		{"exactly 60 runes is kept", []replay.Message{{Role: "assistant", Content: strings.Repeat("é", 60)}}, strings.Repeat("é", 60), false},
		{"61 runes is cut on a rune", []replay.Message{{Role: "assistant", Content: strings.Repeat("é", 61)}}, strings.Repeat("é", 60), true},
		{"empty projection", nil, "", false},
		{"controls stay raw", []replay.Message{{Role: "assistant", Content: "a\nb\u2028c\u2029d\x1b[0m"}}, "a\nb\u2028c\u2029d\x1b[0m", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, cut := assistantPreview(tt.msgs, ""); got != tt.want || cut != tt.cut {
				t.Errorf("preview = %q, %v; want %q, %v", got, cut, tt.want, tt.cut)
			}
		})
	}
}

func TestSessionsAndPinning(t *testing.T) {
	b := NewBuilder("s2")
	b.Add(&replay.Result{Event: &replay.Event{Kind: replay.KindSubmit, SessionID: "s1", TurnID: "t", Input: "x"}})
	b.Add(accepted("s2", snap{"t", "submit", nil}, 1))
	b.Add(accepted("s3", snap{"u", "submit", nil}, 1))
	got := []string{}
	for _, s := range b.Sessions() {
		got = append(got, s.SessionID)
	}
	// The builder trusts the verdicts: s3's snapshot came in as accepted.
	if !slices.Equal(got, []string{"s2", "s3"}) {
		t.Errorf("sessions = %v, want [s2 s3] (s1 had only a submit)", got)
	}
}

func TestSelect(t *testing.T) {
	s := build(t, []snap{
		{"t1", "submit", []string{"m"}},
		{"t2", "retry t1 m", []string{"m"}},
		{"t3", "regenerate t2 m", []string{"m"}},
		{"t4", "retry t1 m", []string{"m"}},
		{"t5", "submit", []string{"m"}},
		{"t6", "edit t3 m", nil},
	})
	tests := []struct{ turn, want string }{
		{"t2", "t1(t2(t3(t6)))"},
		{"t6", "t1(t2(t3(t6)))"},
		{"t4", "t1(t4)"},
		{"t5", "t5"},
		{"t1", "t1(t2(t3(t6)),t4)"},
	}
	for _, tt := range tests {
		t.Run(tt.turn, func(t *testing.T) {
			if got := shape(s.Select(tt.turn)); got != tt.want {
				t.Errorf("select %s = %s, want %s", tt.turn, got, tt.want)
			}
		})
	}
	if s.Select("nope") != nil {
		t.Error("Select of a missing turn should be nil")
	}
	if got := shape(s); got != "t1(t2(t3(t6)),t4),t5" {
		t.Errorf("Select changed the session: %s", got)
	}
}

// TestDeepChain links and walks 10,000 regenerations, each of the one
// before; recursion this deep would be slow or worse.
func TestDeepChain(t *testing.T) {
	const depth = 10000
	snaps := []snap{{"t0", "submit", []string{"m0"}}}
	for i := 1; i < depth; i++ {
		snaps = append(snaps, snap{fmt.Sprintf("t%d", i), fmt.Sprintf("regenerate t%d m%d", i-1, i-1), []string{fmt.Sprintf("m%d", i)}})
	}
	s := build(t, snaps)
	if len(s.Roots) != 1 || s.Problems() != 0 {
		t.Fatalf("roots = %d, problems = %d; want 1 root, no problems", len(s.Roots), s.Problems())
	}
	maxDepth, visited := -1, 0
	s.Walk(func(n *Node, d int, last bool) {
		visited++
		if d != maxDepth+1 || !last {
			t.Fatalf("turn %s at depth %d (last %v) after depth %d", n.TurnID, d, last, maxDepth)
		}
		maxDepth = d
	})
	if visited != depth || maxDepth != depth-1 {
		t.Errorf("visited %d turns to depth %d, want %d to %d", visited, maxDepth, depth, depth-1)
	}
	if got := shape(s.Select("t5000")); strings.Count(got, "(") != depth-1 {
		t.Errorf("selecting the middle of the chain lost turns")
	}
}

// TestDeepCycle closes a 10,000-turn chain into a loop.
func TestDeepCycle(t *testing.T) {
	const n = 10000
	var snaps []snap
	for i := 0; i < n; i++ {
		snaps = append(snaps, snap{fmt.Sprintf("t%d", i), fmt.Sprintf("retry t%d m", (i+1)%n), []string{"m"}})
	}
	s := build(t, snaps)
	if len(s.Roots) != 1 || s.Roots[0].TurnID != "t0" {
		t.Fatalf("the cycle should be cut at t0, roots = %d", len(s.Roots))
	}
	if got := s.Problems(); got != n {
		t.Errorf("problems = %d, want one cycle problem per turn (%d)", got, n)
	}
	if d := s.Roots[0].Problems[0].Detail; !strings.Contains(d, "t0 -> t1 -> t2") || !strings.Contains(d, "(10000 turns)") {
		t.Errorf("cycle detail = %q", d)
	}
}

// BenchmarkBuildChain measures building and linking a chain of 1,000
// regenerations, each snapshot with a 20-message projection.
func BenchmarkBuildChain(b *testing.B) {
	var results []*replay.Result
	for i := 0; i < 1000; i++ {
		s := snap{turn: fmt.Sprintf("t%d", i), lineage: "submit"}
		if i > 0 {
			s.lineage = fmt.Sprintf("regenerate t%d m%d", i-1, i-1)
		}
		for j := 0; j < 20; j++ {
			s.msgs = append(s.msgs, fmt.Sprintf("m%d", i-j))
		}
		results = append(results, accepted("s", s, int64(i+1)))
	}
	for b.Loop() {
		bld := NewBuilder("")
		for _, r := range results {
			bld.Add(r)
		}
		if s := bld.Sessions()[0]; s.Problems() != 0 {
			b.Fatalf("problems: %d", s.Problems())
		}
	}
}

func TestParentElsewhere(t *testing.T) {
	// Orphans and turns where a cycle was cut declare a parent they do not
	// hang under; every other turn hangs under the parent it declares.
	s := build(t, []snap{
		{"t1", "submit", nil},
		{"t2", "retry gone m", nil},
		{"t3", "regenerate t2 x", nil},
		{"y", "retry z m", []string{"m"}},
		{"z", "retry y m", []string{"m"}},
	})
	want := map[string]bool{"t1": false, "t2": true, "t3": false, "y": true, "z": false}
	for _, n := range s.Turns {
		if got := n.ParentElsewhere(); got != want[n.TurnID] {
			t.Errorf("%s: ParentElsewhere = %v, want %v (parent %q, tree parent %v)", n.TurnID, got, want[n.TurnID], n.ParentTurnID, n.Parent)
		}
	}
}

// TestHeadKeepsItsCopy checks that a head is never the text itself (which
// would keep a snapshot's buffer alive) and that the same head as before
// is the copy made before.
func TestHeadKeepsItsCopy(t *testing.T) {
	text := strings.Repeat("é", 70)
	first, cut := head(text, "")
	if !cut || first != strings.Repeat("é", PreviewRunes) || unsafe.StringData(first) == unsafe.StringData(text) {
		t.Fatalf("head %q, %v: not a cut copy", first, cut)
	}
	again, _ := head(text+" more", first)
	if unsafe.StringData(again) != unsafe.StringData(first) {
		t.Error("the same head was copied again")
	}
	other, _ := head("other", first)
	if other != "other" || unsafe.StringData(other) == unsafe.StringData(first) {
		t.Errorf("head %q after another", other)
	}
}

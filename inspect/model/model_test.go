package model

import (
	"fmt"
	"hash/maphash"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentskit/snapctl/replay"
)

// result is a decoded line for the model: kind "snap" (accepted), "inert"
// (a stale snapshot) or "submit".
func result(kind, session, turn string, seq int64, status replay.Status, lin replay.Lineage, ids ...string) *replay.Result {
	ev := &replay.Event{Kind: replay.KindSnapshot, SessionID: session, TurnID: turn, Sequence: seq,
		EventID: "e", EmittedAt: "x", Emitted: time.Unix(seq, 0)}
	ev.Snapshot.Status, ev.Snapshot.Lineage = status, lin
	for _, id := range ids {
		ev.Snapshot.Messages = append(ev.Snapshot.Messages, replay.Message{ID: id})
	}
	res := &replay.Result{File: "f", Line: int(seq), Event: ev, Reason: replay.ReasonAdvanced}
	switch kind {
	case "inert":
		res.Reason = replay.ReasonStale
	case "submit":
		ev.Kind, res.Reason = replay.KindSubmit, replay.ReasonNonSnapshot
	}
	return res
}

func TestObserve(t *testing.T) {
	m := New("", true)
	regen := replay.Lineage{Operation: replay.OpRegenerate, ParentTurnID: "t1", SourceMessageID: "a1"}
	edit := replay.Lineage{Operation: replay.OpEdit, ParentTurnID: "t1", SourceMessageID: "u1"}

	if st := m.Observe(&replay.Result{Reason: replay.ReasonMalformed}); st.Session != nil {
		t.Fatalf("a malformed line has a session: %+v", st)
	}
	m.Observe(result("submit", "s", "t1", 1, "", replay.Lineage{}))
	st := m.Observe(result("snap", "s", "t1", 2, replay.StatusComplete, replay.Lineage{}, "u1", "a1"))
	if !st.Accepted || st.Prev != nil || st.Removed != nil {
		t.Fatalf("first snapshot: %+v", st)
	}
	st = m.Observe(result("inert", "s", "t1", 1, replay.StatusStreaming, replay.Lineage{}))
	if st.Accepted || st.Turn.Snapshots != 2 || st.Turn.Accepted != 1 {
		t.Fatalf("inert snapshot: accepted %v, turn %+v", st.Accepted, st.Turn)
	}
	st = m.Observe(result("snap", "s", "t2", 3, replay.StatusStreaming, regen, "u1", "a2"))
	if st.Prev == nil || st.Prev.Sequence != 2 || st.Prev.IDs.ID(1) != "a1" || st.PrevStatus != "" {
		t.Fatalf("second snapshot: prev %+v, prev status %q", st.Prev, st.PrevStatus)
	}
	if len(st.Removed) != 1 || st.Removed[0].Index != 1 || !st.Removed[0].Explained {
		t.Fatalf("regenerate from a1: removed %+v", st.Removed)
	}
	m.Observe(result("snap", "s", "t2", 4, replay.StatusComplete, edit, "u3"))
	st = m.Observe(result("snap", "s", "t2", 5, replay.StatusStreaming, regen, "u3"))
	tu := st.Turn
	if st.PrevStatus != replay.StatusComplete || st.PrevStatusAt.Line != 4 {
		t.Errorf("prev status %q at %+v, want complete at line 4", st.PrevStatus, st.PrevStatusAt)
	}
	o := tu.Outcome()
	if tu.Operation() != replay.OpRegenerate || o.Lineage != regen || o.LineageSequence != 3 || len(o.Variants()) != 1 || o.Variants()[0].Lineage != edit {
		t.Errorf("lineage %+v at %d, variants %+v; want the regenerate, then the edit as a variant", o.Lineage, o.LineageSequence, o.Variants())
	}
	if o.FirstSequence != 3 || o.LastSequence != 5 || o.LastEmitted().Sub(o.FirstEmitted()) != 2*time.Second {
		t.Errorf("turn sequences %d-%d, emitted %v-%v", o.FirstSequence, o.LastSequence, o.FirstEmitted(), o.LastEmitted())
	}
	s := st.Session
	if s.Turns != 2 || s.FirstTurn().ID != "t1" || s.FirstTurn().Next() != tu || !s.FirstTurn().Submitted || func() bool { q, _ := s.LastSequence(); return q != 5 }() {
		t.Errorf("session %+v", s)
	}
}

func TestObservePinned(t *testing.T) {
	m := New("s", false)
	st := m.Observe(result("submit", "other", "t", 1, "", replay.Lineage{}))
	if !st.Foreign || st.Turn.Submitted {
		t.Errorf("a submit of another session: %+v", st)
	}
	// The cursor judged the session of a snapshot: an accepted one counts.
	st = m.Observe(result("snap", "other", "t", 2, replay.StatusComplete, replay.Lineage{}))
	if st.Foreign || !st.Accepted {
		t.Errorf("an accepted snapshot of another session: %+v", st)
	}
}

// TestManyTurns checks that a session's turns are found again past the
// few kept on its list alone, when the shared map takes over.
func TestManyTurns(t *testing.T) {
	m := New("", false)
	const n = 3 * listedTurns
	turns := map[string]*Turn{}
	for round := 0; round < 2; round++ {
		for i := 0; i < n; i++ {
			id := "t" + string(rune('a'+i))
			st := m.Observe(result("submit", "s", id, int64(round*n+i+1), "", replay.Lineage{}))
			if round == 0 {
				turns[id] = st.Turn
			} else if st.Turn != turns[id] {
				t.Fatalf("turn %s: a new turn on its second event", id)
			}
		}
	}
	s := m.sessions["s"]
	got := 0
	for tu := s.FirstTurn(); tu != nil; tu = tu.Next() {
		got++
	}
	if s.Turns != n || got != n {
		t.Errorf("%d turns counted, %d listed, want %d", s.Turns, got, n)
	}
}

// TestWithoutOutcomes checks that a model made without outcomes keeps
// what every view reads of a turn, and no Outcome.
func TestWithoutOutcomes(t *testing.T) {
	m := New("", false)
	lin := replay.Lineage{Operation: replay.OpRetry, ParentTurnID: "t0", SourceMessageID: "a0"}
	m.Observe(result("snap", "s", "t1", 1, replay.StatusStreaming, replay.Lineage{}, "u1"))
	st := m.Observe(result("snap", "s", "t1", 2, replay.StatusComplete, lin, "u1", "a1"))
	tu := st.Turn
	if tu.Outcome() != nil || tu.Operation() != replay.OpRetry || tu.Accepted != 2 || tu.Status() != replay.StatusComplete || tu.StatusAt().Line != 2 {
		t.Errorf("turn %+v, operation %s, outcome %+v", tu, tu.Operation(), tu.Outcome())
	}
}

// TestSessionNumbers checks that sessions found by their number in the
// run are the ones found by id: the same session for the same id, a new
// one in order for a new id, and the map of ids taking over, with every
// session kept, once results come without a number or with one that
// names another id.
func TestSessionNumbers(t *testing.T) {
	numbered := func(session string, n int, seq int64) *replay.Result {
		res := result("snap", session, "t", seq, replay.StatusComplete, replay.Lineage{}, "m")
		res.Session = n
		return res
	}
	m := New("", false)
	// The run's session 2 had only malformed lines: the model never sees
	// it, and numbers its sessions in its own order.
	a := m.Observe(numbered("a", 1, 1)).Session
	c := m.Observe(numbered("c", 3, 2)).Session
	if st := m.Observe(numbered("a", 1, 3)); st.Session != a || st.Prev == nil || a.Index != 0 || c.Index != 1 {
		t.Fatalf("by number: a %+v, c %+v, again %+v", a, c, st.Session)
	}
	// A number that names another id: the results are another run's.
	if s := m.Observe(numbered("d", 1, 4)).Session; s == a || s.Index != 2 {
		t.Fatalf("session d under a's number: %+v", s)
	}
	for _, tt := range []struct {
		id   string
		n    int
		want *Session
	}{{"a", 0, a}, {"c", 0, c}, {"c", 7, c}} {
		if s := m.Observe(numbered(tt.id, tt.n, 5)).Session; s != tt.want {
			t.Errorf("session %s numbered %d after the map took over: %+v, want %+v", tt.id, tt.n, s, tt.want)
		}
	}
	if s := m.Observe(numbered("e", 0, 6)).Session; s.Index != 3 {
		t.Errorf("a new session after the map took over has index %d, want 3", s.Index)
	}
}

// TestEnding covers the outcomes the real captures do not show: a cut-off
// reply completed later with more or other text, a cancel, a turn never
// accepted, a submit never answered.
func TestEnding(t *testing.T) {
	t.Run("by hand", func(t *testing.T) { testEnding(t, false) })
	t.Run("summed", func(t *testing.T) { testEnding(t, true) })
}

// summed fills in what a decoder asked for hashes does (replay.Snapshot
// IDsHash, TailRunes, TailHash): the model must then end turns as it does
// counting the text itself.
func summed(res *replay.Result) *replay.Result {
	s := &res.Event.Snapshot
	var ids []string
	for _, m := range s.Messages {
		ids = append(ids, fmt.Sprintf("%d:%s", len(m.ID), m.ID))
	}
	s.IDsHash = max(maphash.String(testSeed, strings.Join(ids, "")), 1)
	if n := len(s.Messages); n > 0 {
		last := s.Messages[n-1].Content
		s.TailRunes, s.TailHash = utf8.RuneCountInString(last), replay.TextHash(last)
	}
	return res
}

var testSeed = maphash.MakeSeed()

func testEnding(t *testing.T, sums bool) {
	observe := func(m *Model, res *replay.Result) Step {
		if sums && res.Event.Kind == replay.KindSnapshot {
			summed(res)
		}
		return m.Observe(res)
	}
	snap := func(turn string, seq int64, status replay.Status, content string) *replay.Result {
		res := result("snap", "s", turn, seq, status, replay.Lineage{})
		msgStatus := "streaming"
		if status == replay.StatusComplete {
			msgStatus = "complete"
		}
		res.Event.Snapshot.Messages = []replay.Message{{ID: "u-" + turn, Status: "complete"}, {ID: "a-" + turn, Content: content, Status: msgStatus}}
		return res
	}
	m := New("", false)
	observe(m, snap("t1", 1, replay.StatusStreaming, "héllo"))
	// t2's first snapshot holds t1's reply, complete and longer.
	later := snap("t2", 3, replay.StatusStreaming, "")
	later.Event.Snapshot.Messages = append([]replay.Message{{ID: "u-t1"}, {ID: "a-t1", Content: "héllo world", Status: "complete"}}, later.Event.Snapshot.Messages...)
	st := observe(m, later)
	t1 := st.Session.FirstTurn()
	if o, code, at := t1.Ending(); o != EndCutOff || code != "" || at.Line != 1 {
		t.Errorf("t1: %s %q at %d, want cut-off at line 1", o, code, at.Line)
	}
	if l := t1.Later(); l == nil || l.Chars != 6 || !l.Prefix || l.At.Line != 3 {
		t.Errorf("t1 later: %+v, want complete at line 3, 6 more characters, prefix", l)
	}
	// t2 is cancelled; t3's snapshot shows its reply with other text.
	observe(m, snap("t2", 4, replay.StatusStreaming, "abc"))
	diag := result("submit", "s", "t2", 5, "", replay.Lineage{})
	diag.Event.Kind, diag.Event.Diagnostic.Code = replay.KindDiagnostic, "TURN_CANCELLED"
	observe(m, diag)
	other := snap("t3", 7, replay.StatusComplete, "x")
	other.Event.Snapshot.Messages = append([]replay.Message{{ID: "a-t2", Content: "xy", Status: "complete"}}, other.Event.Snapshot.Messages...)
	observe(m, other)
	t2 := t1.Next()
	if o, code, at := t2.Ending(); o != EndCancelled || code != "TURN_CANCELLED" || at.Line != 5 {
		t.Errorf("t2: %s %q at %d, want cancelled TURN_CANCELLED at line 5", o, code, at.Line)
	}
	if l := t2.Later(); l == nil || l.Chars != -1 || l.Prefix {
		t.Errorf("t2 later: %+v, want 1 character fewer, not a prefix", l)
	}
	observe(m, result("inert", "s", "t4", 2, replay.StatusStreaming, replay.Lineage{}))
	observe(m, result("submit", "s", "t5", 8, "", replay.Lineage{}))
	want := []Ending{EndCutOff, EndCancelled, EndComplete, EndNeverAccepted, EndUnanswered}
	i := 0
	for tu := st.Session.FirstTurn(); tu != nil; tu = tu.Next() {
		if o, _, _ := tu.Ending(); i >= len(want) || o != want[i] {
			t.Errorf("turn %s: %s, want %v", tu.ID, o, want[min(i, len(want)-1)])
		}
		i++
	}
}

// TestEarlier: the first accepted snapshot of a session tells how many
// messages of earlier turns it holds (the history of a capture that starts
// in the middle of a session); system messages and the turn's own are not
// counted, and later snapshots change nothing.
func TestEarlier(t *testing.T) {
	msg := func(spec string) []replay.Message {
		var ms []replay.Message
		for _, f := range strings.Fields(spec) {
			role, id, _ := strings.Cut(f, ":")
			ms = append(ms, replay.Message{ID: id, Role: role})
		}
		return ms
	}
	regen := replay.Lineage{Operation: replay.OpRegenerate, ParentTurnID: "t0", SourceMessageID: "a2"}
	retry := replay.Lineage{Operation: replay.OpRetry, ParentTurnID: "t0", SourceMessageID: "gone"}
	for _, c := range []struct {
		name  string
		lin   replay.Lineage
		msgs  string
		first int
	}{
		{"first turn", replay.Lineage{}, "user:u1 assistant:a1", 0},
		{"system prompt", replay.Lineage{}, "system:s user:u1 assistant:a1", 0},
		{"two earlier", replay.Lineage{Operation: replay.OpSubmit}, "system:s user:u1 assistant:a1 user:u2 assistant:a2", 2},
		{"tool calls", replay.Lineage{}, "user:u1 assistant:a1 tool:x1 assistant:a1b user:u2 assistant:a2 tool:x2", 4},
		{"regenerate from a held message", regen, "user:u1 assistant:a1 user:u2 assistant:a2", 3},
		{"retry from a message it no longer holds", retry, "user:u1 assistant:a1 user:u2 assistant:a2", 2},
		{"no user message", replay.Lineage{}, "assistant:a1 assistant:a2", 0},
		{"no message", replay.Lineage{}, "", 0},
	} {
		m := New("", true)
		first := result("snap", "s", "t1", 2, replay.StatusStreaming, c.lin)
		first.Event.Snapshot.Messages = msg(c.msgs)
		st := m.Observe(first)
		if got := st.Session.Earlier(); got != c.first {
			t.Errorf("%s: Earlier %d, want %d", c.name, got, c.first)
		}
		later := result("snap", "s", "t2", 3, replay.StatusStreaming, replay.Lineage{}, "u1", "a1", "u2", "a2", "u3", "a3")
		later.Event.Snapshot.Messages = msg("user:u1 assistant:a1 user:u2 assistant:a2 user:u3 assistant:a3")
		if st := m.Observe(later); st.Session.Earlier() != c.first {
			t.Errorf("%s: a later snapshot made Earlier %d", c.name, st.Session.Earlier())
		}
	}
	// An inert snapshot is not the reconnect state.
	m := New("", true)
	inert := result("inert", "s", "t1", 2, replay.StatusStreaming, replay.Lineage{})
	inert.Event.Snapshot.Messages = msg("user:u1 assistant:a1 user:u2")
	if st := m.Observe(inert); st.Session.Earlier() != 0 {
		t.Errorf("an inert snapshot set Earlier %d", st.Session.Earlier())
	}
}

package model

import (
	"testing"
	"time"

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
	m := New("")
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
	if tu.Lineage != regen || tu.LineageSequence != 3 || len(tu.Variants) != 1 || tu.Variants[0].Lineage != edit {
		t.Errorf("lineage %+v at %d, variants %+v; want the regenerate, then the edit as a variant", tu.Lineage, tu.LineageSequence, tu.Variants)
	}
	if tu.FirstSequence != 3 || tu.LastSequence != 5 || tu.LastEmitted.Sub(tu.FirstEmitted) != 2*time.Second {
		t.Errorf("turn sequences %d-%d, emitted %v-%v", tu.FirstSequence, tu.LastSequence, tu.FirstEmitted, tu.LastEmitted)
	}
	s := st.Session
	if s.Turns != 2 || s.FirstTurn().ID != "t1" || s.FirstTurn().Next() != tu || !s.FirstTurn().Submitted || s.Last.Sequence != 5 {
		t.Errorf("session %+v", s)
	}
}

func TestObservePinned(t *testing.T) {
	m := New("s")
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

// TestEnding covers the outcomes the real captures do not show: a cut-off
// reply completed later with more or other text, a cancel, a turn never
// accepted, a submit never answered.
func TestEnding(t *testing.T) {
	snap := func(turn string, seq int64, status replay.Status, content string) *replay.Result {
		res := result("snap", "s", turn, seq, status, replay.Lineage{})
		msgStatus := "streaming"
		if status == replay.StatusComplete {
			msgStatus = "complete"
		}
		res.Event.Snapshot.Messages = []replay.Message{{ID: "u-" + turn, Status: "complete"}, {ID: "a-" + turn, Content: content, Status: msgStatus}}
		return res
	}
	m := New("")
	m.Observe(snap("t1", 1, replay.StatusStreaming, "héllo"))
	// t2's first snapshot holds t1's reply, complete and longer.
	later := snap("t2", 3, replay.StatusStreaming, "")
	later.Event.Snapshot.Messages = append([]replay.Message{{ID: "u-t1"}, {ID: "a-t1", Content: "héllo world", Status: "complete"}}, later.Event.Snapshot.Messages...)
	st := m.Observe(later)
	t1 := st.Session.FirstTurn()
	if o, code, at := t1.Ending(); o != EndCutOff || code != "" || at.Line != 1 {
		t.Errorf("t1: %s %q at %d, want cut-off at line 1", o, code, at.Line)
	}
	if l := t1.Later(); l == nil || l.Chars != 6 || !l.Prefix || l.At.Line != 3 {
		t.Errorf("t1 later: %+v, want complete at line 3, 6 more characters, prefix", l)
	}
	// t2 is cancelled; t3's snapshot shows its reply with other text.
	m.Observe(snap("t2", 4, replay.StatusStreaming, "abc"))
	diag := result("submit", "s", "t2", 5, "", replay.Lineage{})
	diag.Event.Kind, diag.Event.Diagnostic.Code = replay.KindDiagnostic, "TURN_CANCELLED"
	m.Observe(diag)
	other := snap("t3", 7, replay.StatusComplete, "x")
	other.Event.Snapshot.Messages = append([]replay.Message{{ID: "a-t2", Content: "xy", Status: "complete"}}, other.Event.Snapshot.Messages...)
	m.Observe(other)
	t2 := t1.Next()
	if o, code, at := t2.Ending(); o != EndCancelled || code != "TURN_CANCELLED" || at.Line != 5 {
		t.Errorf("t2: %s %q at %d, want cancelled TURN_CANCELLED at line 5", o, code, at.Line)
	}
	if l := t2.Later(); l == nil || l.Chars != -1 || l.Prefix {
		t.Errorf("t2 later: %+v, want 1 character fewer, not a prefix", l)
	}
	m.Observe(result("inert", "s", "t4", 2, replay.StatusStreaming, replay.Lineage{}))
	m.Observe(result("submit", "s", "t5", 8, "", replay.Lineage{}))
	want := []Ending{EndCutOff, EndCancelled, EndComplete, EndNeverAccepted, EndUnanswered}
	i := 0
	for tu := st.Session.FirstTurn(); tu != nil; tu = tu.Next() {
		if o, _, _ := tu.Ending(); i >= len(want) || o != want[i] {
			t.Errorf("turn %s: %s, want %v", tu.ID, o, want[min(i, len(want)-1)])
		}
		i++
	}
}

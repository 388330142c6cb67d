// Package model is the one analysis model of a capture that inspect,
// lineage and diff render: per session, its accepted projections in order
// (each kept as its message ids until the next one replaces it), its turns
// with their lineage and status, and the one rule that decides which
// removed messages a retry, edit or regenerate explains (Match, Removals,
// Explain). It consumes replay results, holds ids and counts but never
// snapshot bytes or message text, and never prints.
package model

import (
	"time"

	"github.com/agentskit/snapctl/replay"
)

// maxVariants bounds the differing lineages kept per turn: a turn whose
// lineage changes on every snapshot must not grow without end.
const maxVariants = 3

// Position is one line of a capture.
type Position struct {
	File string
	Line int
}

// Projection is an accepted snapshot as the model keeps it: where it came
// from, its envelope and status, and its message ids.
type Projection struct {
	At        Position
	EventID   string
	TurnID    string
	Sequence  int64
	EmittedAt string
	Emitted   time.Time
	Status    replay.Status
	Lineage   replay.Lineage
	IDs       IDs
}

// Turn is one turn of a session: how it came about (its lineage) and how
// its accepted snapshots went.
type Turn struct {
	ID string
	// Snapshots counts the turn's snapshots whatever their verdict;
	// Accepted those the cursor accepted.
	Snapshots, Accepted int
	// FirstSequence and LastSequence are the turn's first and last
	// accepted sequence, with their emittedAt as written and as instants.
	FirstSequence, LastSequence   int64
	FirstEmittedAt, LastEmittedAt string
	FirstEmitted, LastEmitted     time.Time
	// Status, StatusAt, Usage and ErrorCode are those of the last accepted
	// snapshot; ErrorCode is its error diagnostic's code, or "". While no
	// snapshot of the turn is accepted, StatusAt is its first snapshot.
	Status    replay.Status
	StatusAt  Position
	Usage     replay.Usage
	ErrorCode string
	// Lineage is the first lineage an accepted snapshot of the turn
	// carried, at LineageSequence; HasLineage says whether one did.
	Lineage         replay.Lineage
	HasLineage      bool
	LineageSequence int64
	// Variants are the distinct lineages of later accepted snapshots that
	// differ from Lineage, at most a few; MoreVariants counts the others.
	Variants     []Variant
	MoreVariants int
	// Submitted says whether a submit of the turn was seen, and SubmitAt
	// where the first one was.
	Submitted bool
	SubmitAt  Position
	// end is what says how the turn ended beside its status (see Ending),
	// nil for most turns: those that completed with nothing more to say.
	end *turnEnd

	next *Turn
}

// Variant is a lineage that differs from its turn's first one.
type Variant struct {
	Sequence int64
	Lineage  replay.Lineage
}

// Next is the session's next turn in order of first appearance, or nil.
func (t *Turn) Next() *Turn { return t.next }

// OpUnknown is not an operation of the protocol but the model's value for
// a turn whose accepted snapshots carried no lineage.
const OpUnknown replay.Operation = "unknown"

// Operation is how the turn came about: the operation of its first
// lineage, or OpUnknown. inspect and lineage count turns by it.
func (t *Turn) Operation() replay.Operation {
	if t.HasLineage {
		return t.Lineage.Operation
	}
	return OpUnknown
}

// Session is what the model keeps of one session.
type Session struct {
	ID string
	// Index is the session's place in order of first appearance.
	Index int
	// Last is the last accepted projection; HasLast says whether there is
	// one.
	Last    Projection
	HasLast bool
	// Turns counts the session's turns.
	Turns int
	// accTurn is the turn of the last accepted projection, and tail what
	// Ending needs of its last message while that turn is unfinished.
	accTurn *Turn
	tail    *tail

	first, last *Turn
}

// FirstTurn is the session's first turn in order of first appearance;
// Turn.Next gives the others.
func (s *Session) FirstTurn() *Turn { return s.first }

// Step is what one result did to the model.
type Step struct {
	// Session and Turn are the event's, nil for a malformed line.
	Session *Session
	Turn    *Turn
	// Foreign is set for an event of another session than the pinned one:
	// it changes nothing but the session's turns.
	Foreign bool
	// Accepted is set for an accepted snapshot. Prev is then the session's
	// previous accepted projection (nil for its first) and PrevTurn its
	// turn, PrevStatus and
	// PrevStatusAt the turn's status before it, and Removed the messages
	// of Prev the snapshot lacks, as Removals decides.
	Accepted     bool
	Prev         *Projection
	PrevTurn     *Turn
	PrevStatus   replay.Status
	PrevStatusAt Position
	Removed      []Removal
}

// Model folds replay results into sessions and turns. Turns of every
// session live in one map keyed by the session's index, so that a session
// costs no map of its own.
type Model struct {
	pinned   string
	sessions map[string]*Session
	turns    map[turnKey]*Turn
	prev     Projection
}

type turnKey struct {
	s  int
	id string
}

// New returns a model. pinned is the trusted session given to replay, or
// "": events of other sessions are then foreign.
func New(pinned string) *Model {
	return &Model{pinned: pinned, sessions: map[string]*Session{}, turns: map[turnKey]*Turn{}}
}

// Observe folds one result of a run made with replay.Options.Messages into
// the model. The step's Prev is valid until the next call.
func (m *Model) Observe(res *replay.Result) Step {
	ev := res.Event
	if ev == nil {
		return Step{}
	}
	s := m.session(ev.SessionID)
	st := Step{Session: s, Turn: m.turn(s, ev.TurnID)}
	t := st.Turn
	at := Position{File: res.File, Line: res.Line}
	// The cursor judged the session of a snapshot already: only the
	// verdict counts for one that was accepted.
	if m.pinned != "" && ev.SessionID != m.pinned && res.Verdict() != replay.Accepted {
		st.Foreign = true
		return st
	}
	switch {
	case ev.Kind == replay.KindSubmit:
		if !t.Submitted {
			t.Submitted, t.SubmitAt = true, at
		}
	case ev.Kind == replay.KindDiagnostic:
		t.ending().diag = Seen{Code: ev.Diagnostic.Code, At: at}
	case ev.Kind != replay.KindSnapshot:
	case res.Verdict() != replay.Accepted:
		if t.Snapshots++; t.Accepted == 0 && t.Snapshots == 1 {
			t.StatusAt = at
		}
	default:
		t.Snapshots++
		m.accept(&st, ev, at)
	}
	return st
}

// accept folds an accepted snapshot into its turn and session.
func (m *Model) accept(st *Step, ev *replay.Event, at Position) {
	s, t, snap := st.Session, st.Turn, &ev.Snapshot
	st.Accepted, st.PrevStatus, st.PrevStatusAt = true, t.Status, t.StatusAt
	msgs := Messages(snap.Messages)
	if s.HasLast {
		m.prev = s.Last
		st.Prev = &m.prev
		st.Removed = Removals(m.prev.IDs, msgs, snap.Lineage)
	}
	st.PrevTurn = s.accTurn
	s.noteEnd(t, snap, at)
	s.Last = Projection{At: at, EventID: ev.EventID, TurnID: ev.TurnID, Sequence: ev.Sequence,
		EmittedAt: ev.EmittedAt, Emitted: ev.Emitted, Status: snap.Status, Lineage: snap.Lineage, IDs: newIDs(snap.Messages)}
	s.HasLast = true

	if t.Accepted == 0 {
		t.FirstSequence, t.FirstEmittedAt, t.FirstEmitted = ev.Sequence, ev.EmittedAt, ev.Emitted
	}
	t.Accepted++
	t.LastSequence, t.LastEmittedAt, t.LastEmitted = ev.Sequence, ev.EmittedAt, ev.Emitted
	t.Status, t.StatusAt, t.Usage, t.ErrorCode = snap.Status, at, snap.Usage, ""
	if snap.HasError {
		t.ErrorCode = snap.Error.Code
	}
	if snap.Lineage.Operation != "" {
		t.noteLineage(ev.Sequence, snap.Lineage)
	}
}

// noteLineage keeps the first lineage of the turn and each distinct one
// that differs from it.
func (t *Turn) noteLineage(seq int64, l replay.Lineage) {
	if !t.HasLineage {
		t.HasLineage, t.LineageSequence, t.Lineage = true, seq, l
		return
	}
	if t.Lineage == l {
		return
	}
	for _, v := range t.Variants {
		if v.Lineage == l {
			return
		}
	}
	if len(t.Variants) == maxVariants {
		t.MoreVariants++
		return
	}
	t.Variants = append(t.Variants, Variant{Sequence: seq, Lineage: l})
}

func (m *Model) session(id string) *Session {
	s, ok := m.sessions[id]
	if !ok {
		s = &Session{ID: id, Index: len(m.sessions)}
		m.sessions[id] = s
	}
	return s
}

func (m *Model) turn(s *Session, id string) *Turn {
	k := turnKey{s.Index, id}
	t, ok := m.turns[k]
	if !ok {
		t = &Turn{ID: id}
		m.turns[k] = t
		if s.last == nil {
			s.first = t
		} else {
			s.last.next = t
		}
		s.last = t
		s.Turns++
	}
	return t
}

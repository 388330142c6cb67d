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

// Position is one line of a capture. Entry is the 1-based HAR entry
// whose body holds the line, Line then counting within that body
// (replay.Origin.Entry); 0 for other formats.
type Position struct {
	File  string
	Line  int
	Entry int
}

// Projection is an accepted snapshot as the model keeps it: what the
// checks against the next one read (its sequence, its emittedAt as
// written and as an instant) and its message ids. Every session keeps
// the fields of one, compact (see Session), so it holds nothing else.
type Projection struct {
	Sequence  int64
	EmittedAt string
	Emitted   time.Time
	IDs       IDs
}

// Turn is one turn of a session: how it came about (its lineage) and how
// its accepted snapshots went. It is the one record of per-turn state
// every view reads; a session's first turn lives inside its Session, so
// that a session of one turn is one allocation. What only lineage reads
// goes in the Outcome. Small fields go at the end, by the bytes already
// there, so that a new one costs no padding.
type Turn struct {
	ID string
	// Snapshots counts the turn's snapshots whatever their verdict;
	// Accepted those the cursor accepted.
	Snapshots, Accepted int
	// statusAt is where the last accepted snapshot was (while none is, the
	// turn's first snapshot); submitAt where the first submit of the turn
	// was, if Submitted.
	statusAt, submitAt at
	out                *Outcome
	next               *Turn
	// end is what says how the turn ended beside its status (see Ending),
	// nil for most turns: those that completed with nothing more to say.
	end *turnEnd
	// status is the last accepted snapshot's status and op the operation
	// of the first lineage an accepted snapshot of the turn carried, each
	// as its place in statuses or operations (0 for none yet).
	status, op uint8
	// Submitted says whether a submit of the turn was seen.
	Submitted bool
	// submits counts the turn's submits of distinct event ids, up to 255
	// (NoteSubmit): a retry is one more, a delivery again is not.
	submits uint8
}

// at is a Position as a turn keeps it: the file and HAR entry as a
// pointer to the model's one copy of them, 8 bytes rather than a string's
// 16 and an int's 8.
type at struct {
	line int
	file *place
}

// place is a file, and the HAR entry within it (0 for none).
type place struct {
	name  string
	entry int
}

func (a at) position() Position {
	if a.file == nil {
		return Position{}
	}
	return Position{File: a.file.name, Line: a.line, Entry: a.file.entry}
}

// statuses and operations are the values the decoder lets a snapshot's
// status and lineage operation take, "" first, as Turn keeps them.
var (
	statuses   = [...]replay.Status{"", replay.StatusIdle, replay.StatusStreaming, replay.StatusComplete, replay.StatusError}
	operations = [...]replay.Operation{"", replay.OpSubmit, replay.OpRetry, replay.OpEdit, replay.OpRegenerate}
)

// code is the place of v in values; the decoder gives no other value, and
// one would be kept as "".
func code[T comparable](values []T, v T) uint8 {
	for i, w := range values {
		if w == v {
			return uint8(i)
		}
	}
	return 0
}

// Status is the status of the turn's last accepted snapshot, "" before
// one.
func (t *Turn) Status() replay.Status { return statuses[t.status] }

// Outcome is what a model made with outcomes keeps of a turn beside what
// every view reads: its lineage in full and how its accepted snapshots
// went. Only lineage draws it, so inspect's model, whose sessions are
// mostly one turn each, does not pay for it.
type Outcome struct {
	// FirstSequence and LastSequence are the turn's first and last
	// accepted sequence, with their emittedAt as written; their instants
	// are kept as seconds and nanoseconds (see FirstEmitted), 24 bytes
	// where two time.Time took 48, in every turn of a capture.
	FirstSequence, LastSequence   int64
	FirstEmittedAt, LastEmittedAt string
	firstSec, lastSec             int64
	// Usage and ErrorCode are those of the last accepted snapshot;
	// ErrorCode is its error diagnostic's code, or "".
	Usage     replay.Usage
	ErrorCode string
	// Lineage is the first lineage an accepted snapshot of the turn
	// carried, at LineageSequence (see HasLineage).
	Lineage         replay.Lineage
	LineageSequence int64
	// variants are the distinct lineages of later accepted snapshots that
	// differ from Lineage, nil until there is one: most turns have none.
	variants            *variants
	firstNsec, lastNsec int32
}

// FirstEmitted is the instant of the turn's first accepted snapshot, in
// UTC: comparing and subtracting instants never reads their location.
func (o *Outcome) FirstEmitted() time.Time { return time.Unix(o.firstSec, int64(o.firstNsec)).UTC() }

// LastEmitted is the instant of the turn's last accepted snapshot, in UTC.
func (o *Outcome) LastEmitted() time.Time { return time.Unix(o.lastSec, int64(o.lastNsec)).UTC() }

// HasLineage says whether an accepted snapshot of the turn carried
// lineage: a lineage is only kept with its operation.
func (o *Outcome) HasLineage() bool { return o.Lineage.Operation != "" }

// Outcome is the turn's outcome: nil for a turn without an accepted
// snapshot, or in a model made without outcomes.
func (t *Turn) Outcome() *Outcome { return t.out }

// Variant is a lineage that differs from its turn's first one.
type Variant struct {
	Sequence int64
	Lineage  replay.Lineage
}

// variants are a turn's differing lineages: at most maxVariants, and a
// count of the others.
type variants struct {
	list []Variant
	more int
}

// Variants are the distinct lineages of later accepted snapshots that
// differ from Lineage, at most a few.
func (o *Outcome) Variants() []Variant {
	if o.variants == nil {
		return nil
	}
	return o.variants.list
}

// MoreVariants counts the differing lineages past those Variants lists.
func (o *Outcome) MoreVariants() int {
	if o.variants == nil {
		return 0
	}
	return o.variants.more
}

// Next is the session's next turn in order of first appearance, or nil.
func (t *Turn) Next() *Turn { return t.next }

// OpUnknown is not an operation of the protocol but the model's value for
// a turn whose accepted snapshots carried no lineage.
const OpUnknown replay.Operation = "unknown"

// Operation is how the turn came about: the operation of its first
// lineage, or OpUnknown. inspect and lineage count turns by it.
func (t *Turn) Operation() replay.Operation {
	if t.op != 0 {
		return operations[t.op]
	}
	return OpUnknown
}

// Session is what the model keeps of one session: its last accepted
// projection, compact (Step.Prev gives it as a Projection), and its turns,
// the first one inside it.
type Session struct {
	ID string
	// Index is the session's place in order of first appearance.
	Index int
	// Turns counts the session's turns.
	Turns int
	last  *Turn
	// lastSeq, lastEmittedAt, its instant (lastSec, lastNsec) and its ids
	// (idsBuf, idsN: an IDs in two fields, so that the two int32s share
	// eight bytes) are the last accepted projection's, if there is one:
	// accTurn is then set, so that no flag costs a word of padding.
	lastSeq        int64
	lastEmittedAt  string
	lastSec        int64
	lastNsec, idsN int32
	// earlier is Earlier's count, set by the first accepted snapshot.
	earlier int32
	idsBuf  string
	// idsHash is the decoder's hash of those ids (Snapshot.IDsHash).
	idsHash uint64
	// accTurn is the turn of the last accepted projection, and tail what
	// Ending needs of its last message while that turn is unfinished.
	accTurn *Turn
	tail    *tail

	first Turn
}

// FirstTurn is the session's first turn in order of first appearance;
// Turn.Next gives the others.
func (s *Session) FirstTurn() *Turn {
	if s.Turns == 0 {
		return nil
	}
	return &s.first
}

// Earlier is how many messages of earlier turns the session's first
// accepted snapshot already holds: those before its turn's own, but for
// system messages. The turn's own begin at the message its lineage
// rewrites from (a retry, edit or regenerate whose source message it
// holds, as Explain reads it), else at its last user message (the
// submit's). A capture that starts in the middle of a session shows its
// history so; 0 without an accepted snapshot or a message that begins
// the turn.
func (s *Session) Earlier() int { return int(s.earlier) }

// earlierThan counts the messages of a projection before its turn's own
// (Session.Earlier), but for system messages, which set a conversation
// up rather than come from a turn.
func earlierThan(msgs Messages, lin replay.Lineage) int {
	start := source(msgs, lin)
	for i := len(msgs) - 1; i >= 0 && start < 0; i-- {
		if msgs[i].Role == "user" {
			start = i
		}
	}
	n := 0
	for i := range max(start, 0) {
		if msgs[i].Role != "system" {
			n++
		}
	}
	return n
}

// LastSequence is the sequence of the session's last accepted snapshot,
// and whether there is one.
func (s *Session) LastSequence() (int64, bool) { return s.lastSeq, s.accTurn != nil }

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

// Model folds replay results into sessions and turns. A session's turns
// are found on its list while it has a few (most sessions have one or
// two); past that they live in one map shared by every session, keyed by
// the session's index, so that a session costs no map of its own.
type Model struct {
	pinned   string
	outcomes bool
	// byRun holds the sessions by their number in the run
	// (replay.Result.Session), nil where the run's session has no decoded
	// event: the run keeps a map of the ids already. sessions is the map
	// the model keeps instead, from the first result without a number or
	// whose number names another session (results of another run): keyed
	// is then set. n counts the sessions either way.
	byRun    []*Session
	keyed    bool
	n        int
	sessions map[string]*Session
	turns    map[turnKey]*Turn
	prev     Projection
	// files holds the one copy of each file name and HAR entry the
	// turns' positions point to: one per file, and one per entry of a
	// HAR, whose reader keeps a slot per entry anyway.
	files map[place]*place
}

type turnKey struct {
	s  int
	id string
}

// New returns a model. pinned is the trusted session given to replay, or
// "": events of other sessions are then foreign. outcomes says whether
// to keep each turn's Outcome.
func New(pinned string, outcomes bool) *Model {
	return &Model{pinned: pinned, outcomes: outcomes, sessions: map[string]*Session{}, turns: map[turnKey]*Turn{}, files: map[place]*place{}}
}

// KeepsOutcomes tells whether the model was made with outcomes.
func (m *Model) KeepsOutcomes() bool { return m.outcomes }

// Observe folds one result of a run made with replay.Options.Messages into
// the model. The step's Prev is valid until the next call. The results of
// one model come from one run, in order, or carry no session number
// (Result.Session 0): a number is taken to name the same session for as
// long as it names the same id.
func (m *Model) Observe(res *replay.Result) Step {
	ev := res.Event
	if ev == nil {
		return Step{}
	}
	s := m.session(ev.SessionID, res.Session)
	st := Step{Session: s, Turn: m.turn(s, ev.TurnID)}
	t := st.Turn
	p := m.at(res.File, res.Line, EntryOf(res))
	// The cursor judged the session of a snapshot already: only the
	// verdict counts for one that was accepted.
	if m.pinned != "" && ev.SessionID != m.pinned && res.Verdict() != replay.Accepted {
		st.Foreign = true
		return st
	}
	switch {
	case ev.Kind == replay.KindSubmit:
		if !t.Submitted {
			t.Submitted, t.submitAt = true, p
		}
	case ev.Kind == replay.KindDiagnostic:
		t.ending().diag = Seen{Code: ev.Diagnostic.Code, At: p.position()}
	case ev.Kind != replay.KindSnapshot:
	case res.Verdict() != replay.Accepted:
		if t.Snapshots++; t.Accepted == 0 && t.Snapshots == 1 {
			t.statusAt = p
		}
	default:
		t.Snapshots++
		m.accept(&st, ev, p)
	}
	return st
}

// accept folds an accepted snapshot into its turn and session.
func (m *Model) accept(st *Step, ev *replay.Event, p at) {
	s, t, snap := st.Session, st.Turn, &ev.Snapshot
	st.Accepted, st.PrevStatus = true, t.Status()
	if t.Accepted > 0 {
		st.PrevStatusAt = t.statusAt.position()
	}
	msgs := Messages(snap.Messages)
	if s.accTurn != nil {
		// The instant was kept without its location, which comparing
		// does not read.
		m.prev = Projection{Sequence: s.lastSeq, EmittedAt: s.lastEmittedAt,
			Emitted: time.Unix(s.lastSec, int64(s.lastNsec)), IDs: IDs{buf: s.idsBuf, n: s.idsN}}
		st.Prev = &m.prev
	}
	// A projection whose ids hash as the last one's has its ids: nothing
	// is removed, and their copy is kept, without reading them from the
	// line (which another core decoded). Equal hashes of other ids (a
	// keyed hash, its key drawn for each process: one chance in 2^64)
	// would hide their removals.
	prevIDs := IDs{buf: s.idsBuf, n: s.idsN}
	same := s.accTurn != nil && snap.IDsHash != 0 && snap.IDsHash == s.idsHash && len(msgs) == int(s.idsN)
	if s.accTurn != nil && !same {
		st.Removed = Removals(m.prev.IDs, msgs, snap.Lineage)
	}
	if s.accTurn == nil {
		s.earlier = int32(earlierThan(msgs, snap.Lineage))
	}
	st.PrevTurn = s.accTurn
	s.noteEnd(t, snap, p.position())
	ids := prevIDs
	if !same {
		ids = idsOf(snap.Messages, prevIDs)
	}
	s.lastSeq, s.lastEmittedAt, s.idsBuf, s.idsN, s.idsHash = ev.Sequence, ev.EmittedAt, ids.buf, ids.n, snap.IDsHash
	s.lastSec, s.lastNsec = ev.Emitted.Unix(), int32(ev.Emitted.Nanosecond())

	t.Accepted++
	t.status, t.statusAt = code(statuses[:], snap.Status), p
	if t.op == 0 {
		t.op = code(operations[:], snap.Lineage.Operation)
	}
	if !m.outcomes {
		return
	}
	o := t.out
	if o == nil {
		o = &Outcome{FirstSequence: ev.Sequence, FirstEmittedAt: ev.EmittedAt,
			firstSec: ev.Emitted.Unix(), firstNsec: int32(ev.Emitted.Nanosecond())}
		t.out = o
	}
	o.LastSequence, o.LastEmittedAt = ev.Sequence, ev.EmittedAt
	o.lastSec, o.lastNsec = ev.Emitted.Unix(), int32(ev.Emitted.Nanosecond())
	o.Usage, o.ErrorCode = snap.Usage, ""
	if snap.HasError {
		o.ErrorCode = snap.Error.Code
	}
	if snap.Lineage.Operation != "" {
		o.noteLineage(ev.Sequence, snap.Lineage)
	}
}

// noteLineage keeps the first lineage of the turn and each distinct one
// that differs from it.
func (o *Outcome) noteLineage(seq int64, l replay.Lineage) {
	if !o.HasLineage() {
		o.LineageSequence, o.Lineage = seq, l
		return
	}
	if o.Lineage == l {
		return
	}
	if o.variants == nil {
		o.variants = &variants{}
	}
	v := o.variants
	for _, d := range v.list {
		if d.Lineage == l {
			return
		}
	}
	if len(v.list) == maxVariants {
		v.more++
		return
	}
	v.list = append(v.list, Variant{Sequence: seq, Lineage: l})
}

// session returns the session of id, whose number in the run is n (0 for
// none).
func (m *Model) session(id string, n int) *Session {
	if !m.keyed && n > 0 {
		if n > len(m.byRun) {
			m.byRun = append(m.byRun, make([]*Session, n-len(m.byRun))...)
		}
		switch s := m.byRun[n-1]; {
		case s == nil:
			s = m.newSession(id)
			m.byRun[n-1] = s
			return s
		case s.ID == id:
			return s
		}
	}
	if !m.keyed {
		m.keyed = true
		for _, s := range m.byRun {
			if s != nil {
				m.sessions[s.ID] = s
			}
		}
		m.byRun = nil
	}
	s, ok := m.sessions[id]
	if !ok {
		s = m.newSession(id)
		m.sessions[id] = s
	}
	return s
}

func (m *Model) newSession(id string) *Session {
	s := &Session{ID: id, Index: m.n}
	m.n++
	return s
}

// listedTurns is how many turns a session has before they are indexed in
// Model.turns: a walk of its list is then no longer than a map lookup.
const listedTurns = 8

func (m *Model) turn(s *Session, id string) *Turn {
	if s.Turns <= listedTurns {
		for t := s.FirstTurn(); t != nil; t = t.next {
			if t.ID == id {
				return t
			}
		}
	} else if t, ok := m.turns[turnKey{s.Index, id}]; ok {
		return t
	}
	var t *Turn
	if s.last == nil {
		t = &s.first
		t.ID = id
	} else {
		t = &Turn{ID: id}
		s.last.next = t
	}
	s.last = t
	s.Turns++
	switch {
	case s.Turns == listedTurns+1:
		for u := s.FirstTurn(); u != nil; u = u.next {
			m.turns[turnKey{s.Index, u.ID}] = u
		}
	case s.Turns > listedTurns+1:
		m.turns[turnKey{s.Index, id}] = t
	}
	return t
}

// at is the position of a line.
func (m *Model) at(file string, line, entry int) at {
	k := place{name: file, entry: entry}
	f, ok := m.files[k]
	if !ok {
		f = &k
		m.files[k] = f
	}
	return at{line: line, file: f}
}

// EntryOf is the HAR entry of a result (replay.Origin.Entry), 0 when its
// format has none.
func EntryOf(res *replay.Result) int {
	if res.Origin == nil {
		return 0
	}
	return res.Origin.Entry
}

// PositionOf is where a result's line is, its HAR entry included.
func PositionOf(res *replay.Result) Position {
	return Position{File: res.File, Line: res.Line, Entry: EntryOf(res)}
}

// StatusAt is where the turn's last accepted snapshot was.
func (t *Turn) StatusAt() Position { return t.statusAt.position() }

// SubmitAt is where the turn's first submit was, if Submitted.
func (t *Turn) SubmitAt() Position { return t.submitAt.position() }

// NoteSubmit counts a submit of the turn whose event id is new: the
// model does not tell a new event id from one delivered again, its
// caller does (inspect's event-id check).
func (t *Turn) NoteSubmit() {
	if t.submits < 255 {
		t.submits++
	}
}

// Submits is how many submits of distinct event ids the turn had
// (NoteSubmit), at most 255.
func (t *Turn) Submits() int { return int(t.submits) }

package inspect

import "github.com/agentskit/snapctl/replay"

// session is everything the inspector keeps about one session: overview
// counts, the last accepted snapshot in compact form, fingerprints, and
// one tally per check.
type session struct {
	id    string
	turns map[string]*turn
	// turnOrder keeps turns in order of first appearance, for orphan-submit.
	turnOrder []*turn

	snapshots      int
	seqMin, seqMax int64
	hasSeq         bool
	first, last    instant
	lineage        map[string]int

	// acc is the accepted snapshot; bySeq holds earlier accepted ones.
	acc   accepted
	bySeq map[int64]print
	// events maps a hash of each event id to the fingerprint of its
	// first line.
	events map[uint64]print
	// between holds the sequences of non-snapshot events since the last
	// accepted snapshot: values they use are not gaps.
	between []int64
	// inReconnect is set by a redelivery and cleared by an acceptance: the
	// first redelivery of each run is where a reconnect began.
	inReconnect bool

	tsLike, tsTotal int
	tsExample       string
	gapMissing      int64
	gapLargest      int64
	redeliveries    int

	timestamp, collision, vanished, regression, emitted tally
	dupEvent, foreign, stale, gap                       tally
}

// print fingerprints what one line carried, and where it was.
type print struct {
	content uint64
	eventID uint64
	at      pos
	// listed has the bit of each tally that lists this line already.
	listed uint8
}

// accepted is the compact form of the session's accepted snapshot.
type accepted struct {
	ok       bool
	seq      int64
	print    print
	emitted  instant
	turnID   string
	messages []string // message ids of the projection, in order
}

// turn is what the inspector keeps about one turn of a session.
type turn struct {
	id        string
	submitted bool
	submitAt  pos
	snapshots int
	// status of the turn's last accepted snapshot, and where.
	status   string
	statusAt pos
}

func newSession(id string) *session {
	s := &session{id: id, turns: map[string]*turn{}, lineage: map[string]int{},
		bySeq: map[int64]print{}, events: map[uint64]print{}}
	// Tallies that list an earlier line beside the current one get a bit
	// of print.listed, so each lists that line once.
	for i, t := range []*tally{&s.collision, &s.vanished, &s.emitted, &s.dupEvent} {
		t.bit = 1 << i
	}
	return s
}

func (s *session) turn(id string) *turn {
	t, ok := s.turns[id]
	if !ok {
		t = &turn{id: id}
		s.turns[id] = t
		s.turnOrder = append(s.turnOrder, t)
	}
	return t
}

// count updates the overview with one decoded event of the session.
func (s *session) count(ev *replay.Event) {
	s.turn(ev.TurnID)
	if at := newInstant(ev.EmittedAt); at.ok {
		if !s.first.ok || at.t.Before(s.first.t) {
			s.first = at
		}
		if !s.last.ok || at.t.After(s.last.t) {
			s.last = at
		}
	}
	if ev.Kind != replay.KindSnapshot {
		return
	}
	s.snapshots++
	if !s.hasSeq || ev.Sequence < s.seqMin {
		s.seqMin = ev.Sequence
	}
	if !s.hasSeq || ev.Sequence > s.seqMax {
		s.seqMax = ev.Sequence
	}
	s.hasSeq = true
	if op := ev.Snapshot.Lineage.Operation; op != "" {
		s.lineage[op]++
	}
}

package inspect

import (
	"strings"

	"github.com/agentskit/snapctl/replay"
)

// session is everything the inspector keeps about one session: overview
// counts, the last accepted snapshot in compact form, and one tally per
// check. It holds ids and counts, never snapshot bytes, and no map of its
// own: turns and fingerprints live in the Inspector's shared maps, keyed
// by the session's index, so that a session costs a fixed few hundred
// bytes plus the message ids of its accepted projection.
type session struct {
	id  string
	idx int
	// firstTurn and lastTurn chain the session's turns in order of first
	// appearance, for orphan-submit.
	firstTurn, lastTurn *turn
	turns               int

	snapshots      int
	seqMin, seqMax int64
	hasSeq         bool
	first, last    instant
	lineage        [len(lineageOps)]int

	// acc is the accepted snapshot.
	acc accepted
	// between holds the sequences of non-snapshot events since the last
	// accepted snapshot: values they use are not gaps. betweenLost is set
	// when one could not be kept within the budget: the next gap is then
	// not judged, since any skipped value may have been used.
	between     []int64
	betweenLost bool
	// inReconnect is set by a redelivery and cleared by an acceptance: the
	// first redelivery of each run is where a reconnect began.
	inReconnect bool

	tsLike, tsTotal int
	tsExample       string
	gapMissing      int64
	gapLargest      int64
	redeliveries    int

	// t holds the tallies, allocated at the session's first finding.
	t *tallies
}

// lineageOps are the lineage operations counted per session, in the
// order of session.lineage.
var lineageOps = [...]string{"submit", "retry", "edit", "regenerate"}

// tallies are the instances of each check in one session.
type tallies struct {
	timestamp, collision, vanished, regression, emitted tally
	dupEvent, foreign, stale, gap                       tally
}

// The bits of print.listed: tallies that list an earlier line beside the
// current one mark it, so that each lists that line once.
const (
	bitCollision uint8 = 1 << iota
	bitVanished
	bitEmitted
	bitDupEvent
)

// tally returns the session's tallies, allocating them on first use.
func (s *session) tally() *tallies {
	if s.t == nil {
		s.t = &tallies{}
		s.t.collision.bit, s.t.vanished.bit = bitCollision, bitVanished
		s.t.emitted.bit, s.t.dupEvent.bit = bitEmitted, bitDupEvent
	}
	return s.t
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
	messages idList // message ids of the projection, in order
}

// idList is a list of ids in one allocation: id i is
// text[ends[i-1]:ends[i]]. The text is a copy, so that the decoder's
// buffer of a whole snapshot does not stay alive for a few ids.
type idList struct {
	text string
	ends []int
}

func newIDList(ms []replay.Message) idList {
	n := 0
	for i := range ms {
		n += len(ms[i].ID)
	}
	var b strings.Builder
	b.Grow(n)
	ends := make([]int, len(ms))
	for i := range ms {
		b.WriteString(ms[i].ID)
		ends[i] = b.Len()
	}
	return idList{text: b.String(), ends: ends}
}

func (l *idList) len() int { return len(l.ends) }

func (l *idList) at(i int) string {
	start := 0
	if i > 0 {
		start = l.ends[i-1]
	}
	return l.text[start:l.ends[i]]
}

// turn is what the inspector keeps about one turn of a session.
type turn struct {
	id        string
	next      *turn
	submitted bool
	submitAt  pos
	snapshots int
	// status of the turn's last accepted snapshot, and where.
	status   string
	statusAt pos
}

// turnKey names a turn of the session with index s.
type turnKey struct {
	s  int
	id string
}

func (in *Inspector) turn(s *session, id string) *turn {
	k := turnKey{s.idx, id}
	t, ok := in.turns[k]
	if !ok {
		t = &turn{id: id}
		in.turns[k] = t
		if s.lastTurn == nil {
			s.firstTurn = t
		} else {
			s.lastTurn.next = t
		}
		s.lastTurn = t
		s.turns++
	}
	return t
}

// count updates the overview with one decoded event of the session, and
// returns its turn.
func (in *Inspector) count(s *session, ev *replay.Event) *turn {
	t := in.turn(s, ev.TurnID)
	if at := newInstant(ev.EmittedAt); at.ok {
		if !s.first.ok || at.t.Before(s.first.t) {
			s.first = at
		}
		if !s.last.ok || at.t.After(s.last.t) {
			s.last = at
		}
	}
	if ev.Kind != replay.KindSnapshot {
		return t
	}
	s.snapshots++
	if !s.hasSeq || ev.Sequence < s.seqMin {
		s.seqMin = ev.Sequence
	}
	if !s.hasSeq || ev.Sequence > s.seqMax {
		s.seqMax = ev.Sequence
	}
	s.hasSeq = true
	for i, op := range lineageOps {
		if string(ev.Snapshot.Lineage.Operation) == op {
			s.lineage[i]++
		}
	}
	return t
}

package inspect

import (
	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/replay"
)

// session is everything the inspector keeps about one session beside
// the model's: overview counts, the fingerprint of the last accepted
// snapshot, and one tally per check. It holds ids and counts, never
// snapshot bytes, and no map of its own: fingerprints live in the
// Inspector's shared maps, keyed by the session's index, so that a
// session costs a fixed few hundred bytes plus the message ids the model
// keeps of its accepted projection.
type session struct {
	m *model.Session

	seqMin, seqMax int64
	// first and last are the earliest and latest emittedAt, as written,
	// and their instants as seconds and nanoseconds (a time.Time takes
	// 24 bytes, its location included, which comparing does not read);
	// hasEmitted says whether there are any.
	first, last         string
	firstSec, lastSec   int64
	firstNsec, lastNsec int32
	lineage             [len(lineageOps)]int32

	// acc fingerprints the last accepted snapshot.
	acc print
	// between holds the sequences and turns of non-snapshot events since
	// the last accepted snapshot: values they use are not gaps, and a
	// turn they start is one more turn boundary. betweenLost is set when
	// one could not be kept within the budget, or when the window left
	// events of the session out (replay.Result.LeftOut): the next gap is
	// then not judged, since any skipped value may have been used.
	between []kept

	// t holds the tallies, allocated at the session's first finding.
	t *tallies

	// snapshots counts the session's snapshots, and tsLike of tsTotal
	// accepted ones have a sequence that looks like their emittedAt in
	// Unix milliseconds. They are int32s, as OpCounts: 12 bytes that pack
	// with the flags below, in every session of a capture.
	snapshots, tsLike, tsTotal      int32
	hasSeq, hasEmitted, betweenLost bool
	// inReconnect is set by a redelivery and cleared by an acceptance: the
	// first redelivery of each run is where a reconnect began.
	inReconnect bool
}

// kept is a non-snapshot event of session.between: its sequence and its
// turn.
type kept struct {
	seq  int64
	turn *model.Turn
}

// lineageOps are the lineage operations counted per session, in the
// order of session.lineage.
var lineageOps = [...]replay.Operation{replay.OpSubmit, replay.OpRetry, replay.OpEdit, replay.OpRegenerate}

// tallies are the instances of each check in one session.
type tallies struct {
	timestamp, collision, vanished, regression, emitted tally
	dupEvent, foreign, stale, gap                       tally
	late                                                tally

	// The details of some checks' messages, here rather than in every
	// session: only a session with findings has any. gapMissing sums the
	// gaps (replay.SequenceGap) of the sequence-gap instances, gapUsed the
	// values of them that submits or diagnostics took, gapBoundary counts
	// those where a new turn starts. gapGlued counts the values, left out
	// of gapMissing, that events glued to an error body took.
	// gapNumbered counts the instances at a turn boundary whose gap is
	// larger than the server's numbering of turns takes there, gapLeft
	// the values of gapMissing that neither that numbering nor the events
	// in between account for.
	tsExample              string
	gapMissing, gapLargest int64
	redeliveries           int
	gapUsed, gapGlued      int64
	gapNumbered            int
	gapLeft                int64
	gapBoundary            int
	// lateCount counts the snapshots delivered out of order, lateTurn is
	// the first one's turn and lateAfter the turn accepted before it;
	// inLate is set by one and cleared by an acceptance, as inReconnect.
	lateCount           int
	lateTurn, lateAfter string
	inLate              bool
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
	at      pos
	eventID uint32
	// listed has the bit of each tally that lists this line already.
	listed uint8
}

// count updates the overview with one decoded event of the session.
func (in *Inspector) count(s *session, ev *replay.Event) {
	sec, nsec := ev.Emitted.Unix(), int32(ev.Emitted.Nanosecond())
	if !s.hasEmitted || sec < s.firstSec || sec == s.firstSec && nsec < s.firstNsec {
		s.first, s.firstSec, s.firstNsec = ev.EmittedAt, sec, nsec
	}
	if !s.hasEmitted || sec > s.lastSec || sec == s.lastSec && nsec > s.lastNsec {
		s.last, s.lastSec, s.lastNsec = ev.EmittedAt, sec, nsec
	}
	s.hasEmitted = true
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
	for i, op := range lineageOps {
		if ev.Snapshot.Lineage.Operation == op {
			s.lineage[i]++
		}
	}
}

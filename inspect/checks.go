package inspect

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"slices"
	"strconv"

	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/replay"
)

// Heuristic bounds of timestamp-sequence: a sequence at or past
// 2001-09-09 in Unix milliseconds, within a day of its own emittedAt.
const (
	msFloor  = 1_000_000_000_000
	msWindow = 24 * 60 * 60 * 1000
)

// accept runs the checks that compare an accepted snapshot with the one
// accepted before it (the step's Prev), then fingerprints it as the
// session's accepted snapshot.
func (in *Inspector) accept(s *session, st *model.Step, res *replay.Result, p pos) {
	ev := res.Event
	in.checkTimestamp(s, ev, p)
	if res.Reason == replay.ReasonAdvanced && res.Gap > 0 && !s.betweenLost {
		in.checkGap(s, st, res, p)
	}
	in.used -= betweenSize * len(s.between)
	s.betweenLost = false
	// A long run of submits and diagnostics must not leave its capacity
	// behind in every session.
	if cap(s.between) > 8 {
		s.between = nil
	}
	s.between = s.between[:0]
	// listed has the bits of the tallies that list this line, for when it
	// is the earlier line of a later pair.
	var listed uint8
	prev := st.Prev
	if prev != nil && ev.Emitted.Before(prev.Emitted) {
		e := &s.tally().emitted
		e.hit(fmt.Sprintf("%s at sequence %d after %s at sequence %d", ev.EmittedAt, ev.Sequence, prev.EmittedAt, prev.Sequence))
		in.pair(e, &s.acc, p)
		listed |= e.bit
	}
	if (st.PrevStatus == replay.StatusComplete || st.PrevStatus == replay.StatusError) && ev.Snapshot.Status == replay.StatusStreaming {
		r := &s.tally().regression
		r.hit(fmt.Sprintf("turn %s was %s, then streaming at sequence %d", st.Turn.ID, st.PrevStatus, ev.Sequence))
		r.at(in.limit, in.pos(st.PrevStatusAt))
		r.at(in.limit, p)
	}
	if prev != nil {
		if in.checkVanished(s, st, ev, p) {
			listed |= bitVanished
		}
		in.putSeq(s.m.Index, prev.Sequence, s.acc)
	}
	s.acc = print{content: ev.Snapshot.Hash, eventID: in.hashID(ev.EventID), at: p, listed: listed}
	s.inReconnect = false
	if s.t != nil {
		s.t.inLate = false
	}
}

// pair records an instance that involves the previous accepted snapshot
// and the line at p, listing the earlier line only once.
func (in *Inspector) pair(t *tally, prev *print, p pos) {
	if prev.listed&t.bit == 0 {
		prev.listed |= t.bit
		t.at(in.limit, prev.at)
	}
	t.at(in.limit, p)
}

// checkTimestamp counts accepted sequences that look like the event's own
// emittedAt in Unix milliseconds.
func (in *Inspector) checkTimestamp(s *session, ev *replay.Event, p pos) {
	s.tsTotal++
	if ev.Sequence < msFloor {
		return
	}
	ms := ev.Emitted.UnixMilli()
	d := ev.Sequence - ms
	if d < -msWindow || d > msWindow {
		return
	}
	s.tsLike++
	if t := s.tally(); t.tsExample == "" {
		t.tsExample = fmt.Sprintf("sequence %d, emittedAt %s = %d ms", ev.Sequence, ev.EmittedAt, ms)
	}
	ts := &s.tally().timestamp
	ts.hit("")
	ts.at(in.limit, p)
}

// checkGap records an advanced snapshot's gap (replay.SequenceGap, as
// replay reports it) unless submits or diagnostics of the session took
// every skipped value, with what is known of it: whether a new turn starts
// there, and how many values those events took.
func (in *Inspector) checkGap(s *session, st *model.Step, res *replay.Result, p pos) {
	// between is in arrival order; sorting a copy of the values in range
	// counts the distinct ones in O(n log n) without a map per snapshot.
	var used []int64
	// starts counts the turns that start after the previous accepted
	// snapshot's, up to this one's: those of the events in between (a
	// turn a timeout or cancel diagnostic ended before any snapshot),
	// then this one's.
	starts, last := int64(0), st.PrevTurn
	for _, k := range s.between {
		if q := k.seq; q > res.Prev && q < res.Event.Sequence {
			used = append(used, q)
		}
		if last != nil && k.turn != nil && k.turn != last {
			starts++
		}
		if k.turn != nil {
			last = k.turn
		}
	}
	if last != nil && last != st.Turn {
		starts++
	}
	slices.Sort(used)
	used = slices.Compact(used)
	taken := int64(len(used))
	// Events glued to an error body took their sequences too, though a
	// client dropped them (glued-lines): those values are no gap.
	var lost []int64
	for _, q := range in.refused.lost[s.m.ID] {
		if q > res.Prev && q < res.Event.Sequence {
			if _, found := slices.BinarySearch(used, q); !found {
				lost = append(lost, q)
			}
		}
	}
	slices.Sort(lost)
	glued := int64(len(slices.Compact(lost)))
	if taken+glued >= res.Gap {
		return
	}
	boundary := st.PrevTurn != nil && st.PrevTurn != st.Turn
	if boundary && res.Gap-glued == 2*starts {
		// The AgentsKit Chat server's own numbering: claiming a turn and
		// releasing the last each advance its cursor without a snapshot
		// (a timeout or cancel diagnostic shares the release's value), so
		// every turn boundary skips exactly 2 values, and so does each
		// turn in between that ended with no snapshot. No snapshot is
		// missing there.
		return
	}
	t := s.tally()
	t.gap.hit("")
	t.gap.at(in.limit, p)
	t.gapMissing += res.Gap - glued
	t.gapUsed += taken
	t.gapGlued += glued
	t.gapLargest = max(t.gapLargest, res.Gap-glued)
	// What no event in between nor, at a turn boundary whose gap is
	// larger than it, the server's numbering of turns accounts for (a
	// diagnostic in between shares a value of the numbering's).
	covered := taken
	if boundary {
		t.gapBoundary++
		if n := 2 * starts; res.Gap-glued > n {
			covered = max(covered, n)
			t.gapNumbered++
		}
	}
	t.gapLeft += max(res.Gap-glued-covered, 0)
}

// checkVanished reports the messages of the previous accepted projection
// that the new one lacks and no lineage explains, as the model's rule
// decides (model.Removals), and whether there were any.
func (in *Inspector) checkVanished(s *session, st *model.Step, ev *replay.Event, p pos) bool {
	gone := false
	for _, r := range st.Removed {
		if r.Explained {
			continue
		}
		gone = true
		s.tally().vanished.hit(fmt.Sprintf("message %s of sequence %d is gone at sequence %d",
			strconv.Quote(st.Prev.IDs.ID(r.Index)), st.Prev.Sequence, ev.Sequence))
	}
	if gone {
		in.pair(&s.tally().vanished, &s.acc, p)
	}
	return gone
}

// redelivered handles a snapshot the cursor kept inert as a duplicate or
// as stale. One that differs from what was accepted at its sequence is a
// lost update; one whose event id was delivered before (seen, or not
// tracked past the budget) is a harmless redelivery; one whose id is new
// was delivered out of order.
func (in *Inspector) redelivered(s *session, res *replay.Result, p pos, seen bool) {
	ev := res.Event
	var ref *print
	if res.Reason == replay.ReasonDuplicate {
		ref = &s.acc
	} else if old, _, ok := in.findSeq(s.m.Index, ev.Sequence); ok {
		defer func() { in.putSeq(s.m.Index, ev.Sequence, old) }()
		ref = &old
	}
	if ref != nil && (ref.content != ev.Snapshot.Hash || ref.eventID != in.hashID(ev.EventID)) {
		what := "content"
		if ref.content == ev.Snapshot.Hash {
			what = "event id"
		}
		c := &s.tally().collision
		c.hit(fmt.Sprintf("sequence %d, %s, %s differs", ev.Sequence, res.Reason, what))
		in.pair(c, ref, p)
		return
	}
	if !seen {
		// Event ids never delivered before, behind the cursor: the
		// snapshots came out of order (a proxy or a client that
		// delivers a whole response after a later one), not again.
		t := s.tally()
		if t.lateCount++; t.lateCount == 1 {
			t.lateTurn, t.lateAfter = ev.TurnID, s.m.AcceptedTurn().ID
		}
		if !t.inLate {
			t.inLate = true
			t.late.hit("")
			t.late.at(in.limit, p)
		}
		return
	}
	s.tally().redeliveries++
	if !s.inReconnect {
		s.inReconnect = true
		st := &s.tally().stale
		st.hit("")
		st.at(in.limit, p)
	}
}

// hashID fingerprints an event id, for comparisons where equal hashes of
// different ids only hide a difference.
func (in *Inspector) hashID(id string) uint32 { return uint32(maphash.String(in.seed, id)) }

// checkEventID compares each line with the first line of its event id,
// and reports whether the id was met before: true too when it could not
// be tracked, so that no claim rests on what was not kept.
func (in *Inspector) checkEventID(s *session, ev *replay.Event, p pos) (seen bool) {
	content := in.contentHash(ev)
	old, i, h, ok := in.findEvent(s.m.Index, ev.EventID)
	if !ok {
		return !in.addEvent(s.m.Index, ev.EventID, print{content: content, at: p}, i, h)
	}
	if old.content == content {
		return true
	}
	d := &s.tally().dupEvent
	d.hit(fmt.Sprintf("event id %s", strconv.Quote(ev.EventID)))
	in.pair(d, &old, p)
	in.setEvent(i, old)
	return true
}

// contentHash fingerprints everything a decoded event carries but its id:
// two deliveries of one event hash the same.
func (in *Inspector) contentHash(ev *replay.Event) uint64 {
	var h maphash.Hash
	h.SetSeed(in.seed)
	for _, f := range []string{string(ev.Kind), ev.SessionID, ev.TurnID, ev.EmittedAt} {
		h.WriteString(f)
		h.WriteByte(0)
	}
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(ev.Sequence))
	h.Write(n[:])
	switch ev.Kind {
	case replay.KindSubmit:
		h.WriteString(ev.Input)
	case replay.KindDiagnostic:
		d := ev.Diagnostic
		h.WriteString(d.Code)
		h.WriteByte(0)
		h.WriteString(d.Message)
		h.WriteByte(0)
		h.WriteString(strconv.FormatBool(d.Retryable))
	case replay.KindSnapshot:
		binary.LittleEndian.PutUint64(n[:], ev.Snapshot.Hash)
		h.Write(n[:])
	}
	return h.Sum64()
}

// orphans lists, at the end of the run, the submits whose turn never got
// a snapshot nor a refusal, and the turns whose snapshots were all kept
// inert.
func (in *Inspector) orphans(s *session) (orphans tally, turns []string, lost tally, lostTurns []string) {
	var listed []orphanTurn
	for tu := s.m.FirstTurn(); tu != nil; tu = tu.Next() {
		switch o, code, at := tu.Ending(); {
		case orphaned(tu, o):
			// Each submit of the turn (a retry too) counts; the turn's
			// first is where it is.
			n := max(1, tu.Submits())
			for range n {
				orphans.hit("")
			}
			orphans.at(in.limit, in.pos(tu.SubmitAt()))
			e := orphanTurn{id: tu.ID, submits: n}
			if o != model.EndUnanswered {
				// The server answered with a diagnostic and no snapshot:
				// the finding says which, as the turn's outcome does.
				e.diag = code
			}
			listed = append(listed, e)
		case o == model.EndNeverAccepted && tu.CutByWindow() == nil:
			// (One the window cut may be accepted past it.)
			lost.hit("")
			lost.at(in.limit, in.pos(at))
			lostTurns = append(lostTurns, tu.ID)
		}
	}
	for _, e := range listed {
		t := e.id
		if e.submits > 1 && len(listed) > 1 {
			// With one turn, the count of submits says it.
			t += fmt.Sprintf(": %d submits", e.submits)
		}
		if e.diag != "" {
			t += " answered by diagnostic " + e.diag + " alone"
		}
		turns = append(turns, t)
	}
	return orphans, turns, lost, lostTurns
}

// orphanTurn is a turn orphan-submit names: its id, how many submits it
// had, and the code of the diagnostic that answered it alone, if one did.
type orphanTurn struct {
	id, diag string
	submits  int
}

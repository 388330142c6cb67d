package inspect

import (
	"fmt"
	"hash/maphash"
	"strconv"

	"github.com/agentskit/snapctl/replay"
)

// Heuristic bounds of timestamp-sequence: a sequence at or past
// 2001-09-09 in Unix milliseconds, within a day of its own emittedAt.
const (
	msFloor  = 1_000_000_000_000
	msWindow = 24 * 60 * 60 * 1000
)

// accept runs the checks that compare an accepted snapshot with the one
// accepted before it, then makes it the session's accepted snapshot.
func (in *Inspector) accept(s *session, t *turn, res *replay.Result, p pos) {
	ev := res.Event
	now := newInstant(ev.EmittedAt)
	in.checkTimestamp(s, ev, now, p)
	if res.Reason == replay.ReasonAdvanced && res.Gap > 0 {
		in.checkGap(s, res, p)
	}
	s.between = s.between[:0]
	// listed has the bits of the tallies that list this line, for when it
	// is the earlier line of a later pair.
	var listed uint8
	if s.acc.ok && now.ok && s.acc.emitted.ok && now.t.Before(s.acc.emitted.t) {
		s.emitted.hit(fmt.Sprintf("%s at sequence %d after %s at sequence %d", ev.EmittedAt, ev.Sequence, s.acc.emitted.raw, s.acc.seq))
		in.pair(&s.emitted, &s.acc.print, p)
		listed |= s.emitted.bit
	}
	if (t.status == "complete" || t.status == "error") && ev.Snapshot.Status == "streaming" {
		s.regression.hit(fmt.Sprintf("turn %s was %s, then streaming at sequence %d", t.id, t.status, ev.Sequence))
		s.regression.at(in.limit, t.statusAt)
		s.regression.at(in.limit, p)
	}
	t.status, t.statusAt = ev.Snapshot.Status, p
	ids := messageIDs(ev.Snapshot.Messages)
	if s.acc.ok {
		if in.checkVanished(s, ev, ids, p) {
			listed |= s.vanished.bit
		}
		if len(s.bySeq) < maxTracked {
			s.bySeq[s.acc.seq] = s.acc.print
		}
	}
	s.acc = accepted{ok: true, seq: ev.Sequence, emitted: now, turnID: ev.TurnID, messages: ids,
		print: print{content: ev.Snapshot.Hash, eventID: in.hashID(ev.EventID), at: p, listed: listed}}
	s.inReconnect = false
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

func messageIDs(ms []replay.Message) []string {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	return ids
}

// checkTimestamp counts accepted sequences that look like the event's own
// emittedAt in Unix milliseconds.
func (in *Inspector) checkTimestamp(s *session, ev *replay.Event, now instant, p pos) {
	s.tsTotal++
	if ev.Sequence < msFloor || !now.ok {
		return
	}
	d := ev.Sequence - now.t.UnixMilli()
	if d < -msWindow || d > msWindow {
		return
	}
	s.tsLike++
	if s.tsExample == "" {
		s.tsExample = fmt.Sprintf("sequence %d, emittedAt %s = %d ms", ev.Sequence, ev.EmittedAt, now.t.UnixMilli())
	}
	s.timestamp.hit("")
	s.timestamp.at(in.limit, p)
}

// checkGap records the sequence values an advanced snapshot skipped that
// no submit or diagnostic of the session used in between.
func (in *Inspector) checkGap(s *session, res *replay.Result, p pos) {
	used := map[int64]bool{}
	for _, q := range s.between {
		if q > res.Prev && q < res.Event.Sequence {
			used[q] = true
		}
	}
	missing := res.Gap - int64(len(used))
	if missing <= 0 {
		return
	}
	s.gap.hit("")
	s.gap.at(in.limit, p)
	s.gapMissing += missing
	if missing > s.gapLargest {
		s.gapLargest = missing
	}
}

// checkVanished looks for message ids of the previous accepted projection
// that the new one lacks, and reports whether there were any. A retry, edit or regenerate snapshot whose
// lineage names a source message rewrites the conversation from that
// message on: it explains the source and every message after it.
func (in *Inspector) checkVanished(s *session, ev *replay.Event, ids []string, p pos) bool {
	now := make(map[string]bool, len(ids))
	for _, id := range ids {
		now[id] = true
	}
	cut := len(s.acc.messages)
	switch l := ev.Snapshot.Lineage; l.Operation {
	case "retry", "edit", "regenerate":
		for i, id := range s.acc.messages {
			if id == l.SourceMessageID {
				cut = i
				break
			}
		}
	}
	var gone []string
	for _, id := range s.acc.messages[:cut] {
		if !now[id] {
			gone = append(gone, id)
		}
	}
	if len(gone) == 0 {
		return false
	}
	for _, id := range gone {
		s.vanished.hit(fmt.Sprintf("message %s of sequence %d is gone at sequence %d", strconv.Quote(id), s.acc.seq, ev.Sequence))
	}
	in.pair(&s.vanished, &s.acc.print, p)
	return true
}

// redelivered handles a snapshot the cursor kept inert as a duplicate or
// as stale. One that differs from what was accepted at its sequence is a
// lost update; one that does not is a harmless redelivery.
func (in *Inspector) redelivered(s *session, res *replay.Result, p pos) {
	ev := res.Event
	var ref *print
	if res.Reason == replay.ReasonDuplicate {
		ref = &s.acc.print
	} else if old, ok := s.bySeq[ev.Sequence]; ok {
		defer func() { s.bySeq[ev.Sequence] = old }()
		ref = &old
	}
	if ref != nil && (ref.content != ev.Snapshot.Hash || ref.eventID != in.hashID(ev.EventID)) {
		what := "content"
		if ref.content == ev.Snapshot.Hash {
			what = "event id"
		}
		s.collision.hit(fmt.Sprintf("sequence %d, %s, %s differs", ev.Sequence, res.Reason, what))
		in.pair(&s.collision, ref, p)
		return
	}
	s.redeliveries++
	if !s.inReconnect {
		s.inReconnect = true
		s.stale.hit("")
		s.stale.at(in.limit, p)
	}
}

func (in *Inspector) hashID(id string) uint64 { return maphash.String(in.seed, id) }

// checkEventID compares each line with the first line of its event id.
func (in *Inspector) checkEventID(s *session, ev *replay.Event, p pos) {
	content := in.contentHash(ev)
	key := in.hashID(ev.EventID)
	old, ok := s.events[key]
	if !ok {
		if len(s.events) < maxTracked {
			s.events[key] = print{content: content, at: p}
		}
		return
	}
	if old.content == content {
		return
	}
	s.dupEvent.hit(fmt.Sprintf("event id %s", strconv.Quote(ev.EventID)))
	in.pair(&s.dupEvent, &old, p)
	s.events[key] = old
}

// contentHash fingerprints everything a decoded event carries but its id:
// two deliveries of one event hash the same.
func (in *Inspector) contentHash(ev *replay.Event) uint64 {
	var h maphash.Hash
	h.SetSeed(in.seed)
	for _, f := range []string{string(ev.Kind), ev.SessionID, ev.TurnID, strconv.FormatInt(ev.Sequence, 10), ev.EmittedAt} {
		h.WriteString(f)
		h.WriteByte(0)
	}
	switch ev.Kind {
	case replay.KindSubmit:
		h.WriteString(ev.Input)
	case replay.KindDiagnostic:
		d := ev.Diagnostic
		h.WriteString(d.Code + "\x00" + d.Message + "\x00" + strconv.FormatBool(d.Retryable))
	case replay.KindSnapshot:
		h.WriteString(strconv.FormatUint(ev.Snapshot.Hash, 16))
	}
	return h.Sum64()
}

// orphans lists, at the end of the run, the submits whose turn never got
// a snapshot.
func (in *Inspector) orphans(s *session) (tally, []string) {
	var t tally
	var turns []string
	for _, tu := range s.turnOrder {
		if tu.submitted && tu.snapshots == 0 {
			t.hit("")
			t.at(in.limit, tu.submitAt)
			turns = append(turns, tu.id)
		}
	}
	return t, turns
}

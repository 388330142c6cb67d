package inspect

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/replay"
)

// Report is what an inspection found: an overview and the findings,
// worst first.
type Report struct {
	Overview Overview
	Findings []Finding
}

// Overview is what a capture holds.
type Overview struct {
	Input replay.Stats
	// Counts has events by kind, by reason, and malformed lines by code.
	Counts replay.Counts
	// Pinned is the trusted session when one was given.
	Pinned   string
	Sessions []SessionOverview
	// Refused counts the server's error bodies ({"error": …}, malformed
	// lines as the reference decides) by their code.
	Refused map[string]int
}

// Accepted is the number of events the cursor accepted.
func (o *Overview) Accepted() int { return o.Counts.Accepted() }

// SessionOverview is what one session's events hold.
type SessionOverview struct {
	SessionID string
	// Events counts the session's decoded lines; Reasons splits them.
	Events    int
	Reasons   replay.ReasonCounts
	Turns     int
	Snapshots int
	// Sequences is the range of the session's snapshot sequences, any
	// verdict; nil without snapshots.
	Sequences *SequenceRange
	// EmittedAt is the earliest and latest emittedAt of the session's
	// events, as written; nil without events.
	EmittedAt *EmittedRange
	// Final is the last accepted snapshot, nil when none was.
	Final *replay.Final
	// Lineage counts snapshots by lineage operation.
	Lineage OpCounts
	// LineageTurns counts the turns with an accepted snapshot by how they
	// came about (model.Turn.Operation), as lineage does.
	LineageTurns OpCounts
	// Earlier is how many messages of earlier turns the session's first
	// accepted snapshot already holds (model.Session.Earlier): history
	// from before the capture, or from turns it kept inert.
	Earlier int
	// endings is how each turn ended for the client (Endings), nil when
	// sole says it: sole is then the ending, plus one, of a session's one
	// turn that Final tells the rest of (its id and line, no code, nothing
	// completed later), so that the common session of one turn keeps a
	// byte for it rather than an allocation.
	endings []TurnEnding
	sole    uint8
	// verdict and unfinished are the session's Verdict, in the padding
	// after sole: a session has at most one finding of each check, so a
	// byte counts each severity's.
	verdict    [3]uint8
	unfinished int32
}

// SessionIDs are the ids of the overview's sessions, in its order.
func (ov *Overview) SessionIDs() []string {
	ids := make([]string, len(ov.Sessions))
	for i := range ov.Sessions {
		ids[i] = ov.Sessions[i].SessionID
	}
	return ids
}

// Verdict is the one judgement on the session, from its findings and how
// its turns ended, made once by the report: what every view says of it.
func (s *SessionOverview) Verdict() Verdict {
	v := Verdict{Unfinished: s.unfinished}
	for i, n := range s.verdict {
		v.Findings[i] = int32(n)
	}
	return v
}

// Endings is how each turn of the session ended for the client, in order
// of first appearance; none for a session the pin left foreign.
func (s *SessionOverview) Endings() []TurnEnding {
	if s.sole == 0 {
		return s.endings
	}
	return []TurnEnding{{TurnID: s.Final.TurnID, Ending: model.Ending(s.sole - 1), At: finalAt(s.Final)}}
}

// WithTurn is s with its endings cut to turn's alone (none when it has
// no ending of turn), and whether the session has that turn: lineage
// --turn's view of a session.
func (s SessionOverview) WithTurn(turn string) (SessionOverview, bool) {
	for _, e := range s.Endings() {
		if e.TurnID == turn {
			s.endings, s.sole = []TurnEnding{e}, 0
			return s, true
		}
	}
	s.endings, s.sole = nil, 0
	return s, false
}

// finalAt is the position of a session's last accepted snapshot.
func finalAt(f *replay.Final) model.Position {
	return model.Position{File: f.File, Line: f.Line, Entry: int(f.Entry)}
}

// noteEndings keeps how each turn of session m ended; Final must be set.
func (s *SessionOverview) noteEndings(m *model.Session) {
	if t := m.FirstTurn(); m.Turns == 1 && s.Final != nil && t.Later() == nil && t.CutByWindow() == nil {
		if e, code, at := t.Ending(); code == "" && t.ID == s.Final.TurnID && at == finalAt(s.Final) {
			s.sole = uint8(e) + 1
			return
		}
	}
	s.endings = make([]TurnEnding, 0, m.Turns)
	for t := m.FirstTurn(); t != nil; t = t.Next() {
		e, code, at := t.Ending()
		s.endings = append(s.endings, TurnEnding{TurnID: t.ID, Ending: e, orphan: orphaned(t, e), Code: code, At: at, Later: t.Later(),
			Window: t.CutByWindow()})
	}
}

// OpCounts counts by lineage operation, one counter per entry of
// countedOps in that order: a fixed 20 bytes in every session's
// overview, where two maps took some 500. A counter is an int32, as the
// inspector's own per-session counts: a session of 2³¹ snapshots would
// take a capture of hundreds of gigabytes.
type OpCounts [len(countedOps)]int32

// countedOps are the operations OpCounts counts: the protocol's, then
// model.OpUnknown.
var countedOps = [...]replay.Operation{replay.OpSubmit, replay.OpRetry, replay.OpEdit, replay.OpRegenerate, model.OpUnknown}

// Of is the count of operation op.
func (c *OpCounts) Of(op replay.Operation) int {
	for i, o := range countedOps {
		if o == op {
			return int(c[i])
		}
	}
	return 0
}

func (c *OpCounts) add(op replay.Operation, n int) {
	for i, o := range countedOps {
		if o == op {
			c[i] += int32(n)
			return
		}
	}
}

// Map is the counts of the operations that occurred, as JSON output
// writes them.
func (c *OpCounts) Map() map[replay.Operation]int {
	m := map[replay.Operation]int{}
	for i, n := range c {
		if n > 0 {
			m[countedOps[i]] = int(n)
		}
	}
	return m
}

// TurnEnding is how one turn ended for the client, as the model decides
// (model.Turn.Ending): the ending, its code and line, and the later
// snapshot that showed an unfinished reply complete (nil when none did).
type TurnEnding struct {
	TurnID string
	Ending model.Ending
	// orphan is set when orphan-submit names the turn (orphaned).
	orphan bool
	Code   string
	At     model.Position
	Later  *model.Later
	// Window is where the capture goes on with the turn past the window
	// that cut it (model.Turn.CutByWindow), nil when none did: the turn is
	// then no problem, though its Ending stays cut-off or unanswered.
	Window *model.Position
}

// Accepted is the number of the session's events the cursor accepted.
func (s *SessionOverview) Accepted() int { return s.Reasons.Accepted() }

// SequenceRange is the lowest and highest sequence.
type SequenceRange struct{ Min, Max int64 }

// EmittedRange is the earliest and latest emittedAt, as written.
type EmittedRange struct{ First, Last string }

// Report builds the report from what was observed and the run's summary.
func (in *Inspector) Report(sum replay.Summary) Report { return in.report(sum, false) }

// Finish builds the report as Report does, letting go of each session's
// state once its overview and findings are made, and of the fingerprints
// first: the report of many sessions then takes the place of that state
// instead of coming on top of it. The inspector observes nothing after.
func (in *Inspector) Finish(sum replay.Summary) Report { return in.report(sum, true) }

func (in *Inspector) report(sum replay.Summary, release bool) Report {
	r := Report{Overview: Overview{Input: sum.Input, Counts: sum.Counts, Pinned: sum.Pinned, Refused: in.refusalCounts()},
		Findings: []Finding{}}
	stats := statsOf(sum.Sessions, in.order)
	if release {
		// The sessions stay reachable through order alone. The maps go
		// before the overviews are allocated, so that a collection the
		// allocation starts can take them.
		in.model, in.events, in.bySeq = nil, idTable{}, seqTable{}
	}
	r.Overview.Sessions = make([]SessionOverview, 0, len(in.order))
	for i, s := range in.order {
		// The turns a window ended are known once the run is over.
		s.m.NoteWindow(&sum)
		so := SessionOverview{SessionID: s.m.ID, Turns: s.m.Turns,
			Snapshots: int(s.snapshots), Earlier: s.m.Earlier()}
		for i, n := range s.lineage {
			so.Lineage.add(lineageOps[i], int(n))
		}
		for t := s.m.FirstTurn(); t != nil; t = t.Next() {
			if t.Accepted > 0 {
				so.LineageTurns.add(t.Operation(), 1)
			}
		}
		if ss := stats(i, s.m.ID); ss != nil {
			so.Events, so.Reasons, so.Final = ss.Events, ss.Reasons, ss.Final
		}
		// A session the pin leaves foreign has no client: its turns end
		// for nobody.
		ended := sum.Pinned == "" || s.m.ID == sum.Pinned
		if ended {
			so.noteEndings(s.m)
		}
		if s.hasSeq {
			so.Sequences = &SequenceRange{Min: s.seqMin, Max: s.seqMax}
		}
		if s.hasEmitted {
			so.EmittedAt = &EmittedRange{First: s.first, Last: s.last}
		}
		start := len(r.Findings)
		r.Findings = in.findings(r.Findings, s, sum.Pinned)
		so.setVerdict(verdictOf(r.Findings[start:], s.m, ended))
		r.Overview.Sessions = append(r.Overview.Sessions, so)
		if release {
			in.order[i] = nil
		}
	}
	r.Findings = in.refusalFindings(r.Findings)
	r.Findings = in.deliveryFindings(r.Findings)
	if t := &in.cut; t.n > 0 {
		what, it := "the capture ends inside an event", "it was"
		switch {
		case in.cutFiles > 1:
			what, it = fmt.Sprintf("%d captures end inside an event, first %s", in.cutFiles, in.cutFirst), "each was"
		case t.n > 1:
			what = fmt.Sprintf("the capture ends inside %d events", t.n) // one of each stream of a log
		}
		r.Findings = append(r.Findings, in.finding(CaptureCut, "", t, fmt.Sprintf(
			"%s (%s): %s cut short, so what came after is not in it, and a turn it leaves unfinished may have ended after the cut", what, t.first, it)))
	}
	if h := in.sniff.Hint(in.opts.EventPath); h != nil {
		f := Finding{ID: UnusableInput, Severity: SeverityInfo, PositionCount: 1,
			Message:   fmt.Sprintf("%d of %d lines are malformed and look like %s: %s", h.Malformed, h.Events, h.Format, h.Advice),
			Positions: []Position{{File: h.File, Line: h.Line}}}
		r.Findings = append(r.Findings, f)
	}
	sortFindings(r.Findings)
	return r
}

// statsOf finds the run's stats of each observed session. The run and
// the inspector meet sessions in the same order (both on their first
// decoded event), so the stats are found by index, without a map of every
// session; a map is built only if the orders ever differ.
func statsOf(stats []*replay.SessionStats, order []*session) func(int, string) *replay.SessionStats {
	var byID map[string]*replay.SessionStats
	return func(i int, id string) *replay.SessionStats {
		if byID == nil && i < len(stats) && stats[i].SessionID == id {
			return stats[i]
		}
		if byID == nil {
			byID = make(map[string]*replay.SessionStats, len(stats))
			for _, ss := range stats {
				byID[ss.SessionID] = ss
			}
		}
		return byID[id]
	}
}

// findings appends one session's findings to out. Messages are formatted
// only for the checks that found something.
func (in *Inspector) findings(out []Finding, s *session, pinned string) []Finding {
	orphans, turns, lost, lostTurns := in.orphans(s)
	invalid := in.invalid[s.m.ID]
	if s.t == nil && orphans.n == 0 && lost.n == 0 && invalid == nil {
		return out
	}
	t := s.tally()
	add := func(id string, t *tally, msg func() string) {
		if t.n > 0 {
			out = append(out, in.finding(id, s.m.ID, t, msg()))
		}
	}
	// Lines of a session the pin leaves foreign are not the trusted
	// session's: the observer kept only the pinned one's.
	if invalid != nil {
		add(InvalidEvent, invalid, func() string {
			return fmt.Sprintf("%s the session's id but %s the protocol, so a client drops %s (first: %s)",
				count(invalid.n, "line carries", "lines carry"), pick(invalid.n, "breaks", "break"), pick(invalid.n, "it", "them"), invalid.first)
		})
	}
	if int64(s.tsLike)*2 > int64(s.tsTotal) {
		add(TimestampSequence, &t.timestamp, func() string {
			return fmt.Sprintf("%d of %d accepted sequences look like Unix-millisecond timestamps (%s): events in one millisecond share a sequence and the cursor drops all but the first",
				s.tsLike, s.tsTotal, t.tsExample)
		})
	}
	add(SequenceCollision, &t.collision, func() string {
		return fmt.Sprintf("%s a sequence already accepted with different content or event id, so the cursor dropped %s (first: %s)",
			count(t.collision.n, "snapshot reused", "snapshots reused"), pick(t.collision.n, "it: a lost update", "them: lost updates"), t.collision.first)
	})
	add(MessageVanished, &t.vanished, func() string {
		return fmt.Sprintf("%s left the accepted projection with no retry, edit or regenerate lineage to explain it (first: %s)",
			count(t.vanished.n, "message", "messages"), t.vanished.first)
	})
	add(StatusRegression, &t.regression, func() string {
		return fmt.Sprintf("a turn went from complete or error back to streaming %s (first: %s)",
			times(t.regression.n), t.regression.first)
	})
	add(EmittedAtRegression, &t.emitted, func() string {
		return fmt.Sprintf("emittedAt went backwards %s while accepted sequences went forwards (first: %s)",
			times(t.emitted.n), t.emitted.first)
	})
	add(DuplicateEventID, &t.dupEvent, func() string {
		return fmt.Sprintf("%s an event id of an earlier line with different content (first: %s)",
			count(t.dupEvent.n, "line reuses", "lines reuse"), t.dupEvent.first)
	})
	add(ForeignSession, &t.foreign, func() string {
		return fmt.Sprintf("%s of session %s ignored: --session pins %s",
			count(t.foreign.n, "line", "lines"), s.m.ID, pinned)
	})
	add(OrphanSubmit, &orphans, func() string {
		their := pick(orphans.n, "its turn", "their turn") // the submits of one turn
		if len(turns) > 1 {
			their = "their turns"
		}
		return fmt.Sprintf("%s never received a snapshot of %s (%s)",
			count(orphans.n, "submit", "submits"), their, listSome(turns, 5))
	})
	add(TurnNeverAccepted, &lost, func() string {
		return fmt.Sprintf("%s never reached the client: the cursor kept every snapshot of %s inert (%s)",
			count(lost.n, "turn", "turns"), pick(lost.n, "it", "them"), listSome(lostTurns, 5))
	})
	add(OutOfOrder, &t.late, func() string {
		return fmt.Sprintf("%s of event ids never delivered before arrived behind the cursor in %s, so the cursor kept %s inert (first: turn %s, overtaken by turn %s, accepted before it)",
			count(t.lateCount, "snapshot", "snapshots"), count(t.late.n, "run", "runs"), pick(t.lateCount, "it", "them"), t.lateTurn, t.lateAfter)
	})
	add(StaleRedelivery, &t.stale, func() string {
		return fmt.Sprintf("%s already delivered, in %s that resumed behind the cursor (as after a reconnect): the cursor prevented a rollback",
			count(t.redeliveries, "duplicate or stale snapshot repeats an event", "duplicate or stale snapshots repeat events"), count(t.stale.n, "run", "runs"))
	})
	add(SequenceGap, &t.gap, func() string {
		var known []string
		if t.gapBoundary > 0 {
			known = append(known, fmt.Sprintf("%d at a turn boundary", t.gapBoundary))
		}
		if t.gapUsed > 0 {
			known = append(known, count(int(t.gapUsed), "value", "values")+" taken by submits or diagnostics in between")
		}
		msg := fmt.Sprintf("%s skipped %s that no snapshot took, at most %d at once",
			count(t.gap.n, "accepted snapshot", "accepted snapshots"), count(int(t.gapMissing), "sequence value", "sequence values"), t.gapLargest)
		if len(known) > 0 {
			msg += " (" + strings.Join(known, ", ") + ")"
		}
		if t.gapNumbered > 0 && t.gapLeft > 0 {
			msg += fmt.Sprintf("; with the server's numbering of turns taken out (2 values for each turn that starts), %s unaccounted for",
				count(int(t.gapLeft), "value is", "values are"))
		}
		if t.gapGlued > 0 {
			msg += fmt.Sprintf("; %s besides %s taken by %s glued to an error body, which a client drops (glued-lines)",
				count(int(t.gapGlued), "value", "values"), pick(int(t.gapGlued), "was", "were"), pick(int(t.gapGlued), "an event", "events"))
		}
		return msg
	})
	return out
}

func count(n int, one, many string) string {
	return strconv.Itoa(n) + " " + pick(n, one, many)
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return strconv.Itoa(n) + " times"
}

func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// listSome joins the first max items, saying how many more there are.
func listSome(items []string, max int) string {
	if len(items) <= max {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:max], ", ") + fmt.Sprintf(" and %d more", len(items)-max)
}

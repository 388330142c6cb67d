package inspect

import (
	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/replay"
)

// Verdict is the one judgement on a session that every view shows
// (lineage's headline, its SVG, the report, explore and inspect), made
// once by the report from the session's findings and from how its turns
// ended, so that no view re-derives it and no two disagree.
//
// A problem is an error or warning finding of the session, or a turn that
// ended for the client other than complete and that no finding of the
// session names: an error snapshot, a timeout, a cancel or another
// diagnostic, a stream cut off, a refused submit (the request-refused
// finding of an error body names no session, so its turn counts here). A
// turn never accepted or unanswered is named by turn-never-accepted or
// orphan-submit and counts once, as that finding. A turn a window
// (--lines, --since, --until) ended while the capture goes on with it
// past the window (model.Turn.CutByWindow) is none: the window cut it,
// not the server nor the transport. Info findings are
// notes, not problems: a sequence gap, a refused request, redeliveries
// the cursor kept inert. Only a session without problems
// may read "no problems".
type Verdict struct {
	// Findings counts the session's findings by severity, in the order
	// of Severities (index by Severity.Rank).
	Findings [3]int32
	// Unfinished counts the turns that ended other than complete and
	// that no finding names (see Verdict).
	Unfinished int32
}

// Count is the number of findings of severity s.
func (v Verdict) Count(s Severity) int {
	if r := s.Rank(); r < len(v.Findings) {
		return int(v.Findings[r])
	}
	return 0
}

// Worst is the worst severity among the findings, "" when there are none.
func (v Verdict) Worst() Severity {
	for i, n := range v.Findings {
		if n > 0 {
			return Severities[i]
		}
	}
	return ""
}

// Problems is the number of problems: error and warning findings, and
// unfinished turns.
func (v Verdict) Problems() int {
	return v.Count(SeverityError) + v.Count(SeverityWarning) + int(v.Unfinished)
}

// Notes is the number of info findings.
func (v Verdict) Notes() int { return v.Count(SeverityInfo) }

// Clean reports whether there is no problem: the one verdict a view may
// put as "no problems".
func (v Verdict) Clean() bool { return v.Problems() == 0 }

// add counts one more finding.
func (v *Verdict) add(f *Finding) {
	if r := f.Severity.Rank(); r < len(v.Findings) {
		v.Findings[r]++
	}
}

// ProblemReason says whether a line of reason r is a problem in itself in
// every view's list of lines (the report's problem rows, explore's n and
// N), whatever the findings: a malformed line, or a snapshot the cursor
// kept inert as stale, duplicate or foreign-session. A submit or a
// diagnostic is none in itself, nor an accepted snapshot that skipped
// sequences: sequence-gap is a note (and a gap of 2 at a turn boundary,
// how the AgentsKit Chat server numbers turns, is none). Besides these, the lines
// that error and warning findings cite are problems, and so is the line
// where a turn the verdict counts unfinished ended (Unfinished): the
// diagnostic that timed it out, its error snapshot, the last snapshot of
// a stream cut off.
func ProblemReason(r replay.Reason) bool {
	switch r {
	case replay.ReasonMalformed, replay.ReasonStale, replay.ReasonDuplicate, replay.ReasonForeignSession:
		return true
	}
	return false
}

// unfinished says whether a turn's ending is a problem that no finding
// of its session names: see Verdict. EndNeverAccepted raises
// turn-never-accepted, and a turn orphan-submit names (orphan: see
// orphaned) counts as that finding, whatever answered it: a diagnostic
// with no snapshot is one problem of its turn, not two.
// A turn the window cut (model.Turn.CutByWindow: window) is no problem:
// the capture goes on with it past the window.
func unfinished(e model.Ending, orphan, window bool) bool {
	return !orphan && !window && e != model.EndComplete && e != model.EndNeverAccepted && e != model.EndUnanswered
}

// orphaned says whether orphan-submit names turn t, which ended e
// (Inspector.orphans): it was submitted, no snapshot of it came, no error
// body refused it, and the capture has none of it past a window that
// ended it (model.Turn.PastWindow): its snapshots may be there.
func orphaned(t *model.Turn, e model.Ending) bool {
	return t.Submitted && t.Snapshots == 0 && e != model.EndRefused && t.PastWindow() == nil
}

// Unfinished are the session's turns that its verdict counts as
// unfinished (Verdict.Unfinished), each with the line that shows how it
// ended: where every view's list of lines has a problem no finding cites
// (ProblemReason), whether or not the lineage has the turn (a turn with a
// diagnostic and no accepted snapshot has no node).
func (s *SessionOverview) Unfinished() []TurnEnding {
	var out []TurnEnding
	for _, e := range s.Endings() {
		if unfinished(e.Ending, e.orphan, e.Window != nil) {
			out = append(out, e)
		}
	}
	return out
}

// UnfinishedAt is where each turn the verdict counts unfinished ended
// (SessionOverview.Unfinished), session by session: what --fail-on
// unfinished cites.
func (r *Report) UnfinishedAt() []Position {
	var at []Position
	for i := range r.Overview.Sessions {
		for _, e := range r.Overview.Sessions[i].Unfinished() {
			at = append(at, Position(e.At))
		}
	}
	return at
}

// verdictOf is the verdict on a session from its findings and turns;
// ended says whether its turns ended for a client (not for a session the
// pin leaves foreign).
func verdictOf(fs []Finding, m *model.Session, ended bool) Verdict {
	var v Verdict
	for i := range fs {
		v.add(&fs[i])
	}
	if !ended {
		return v
	}
	for t := m.FirstTurn(); t != nil; t = t.Next() {
		if e, _, _ := t.Ending(); unfinished(e, orphaned(t, e), t.CutByWindow() != nil) {
			v.Unfinished++
		}
	}
	return v
}

// Verdict is the verdict on the whole capture: every session's, and the
// findings that name no session (request-refused, glued-lines,
// unusable-input, delivery-gap).
func (r *Report) Verdict() Verdict {
	var v Verdict
	for i := range r.Findings {
		v.add(&r.Findings[i])
	}
	for i := range r.Overview.Sessions {
		v.Unfinished += r.Overview.Sessions[i].unfinished
	}
	return v
}

// setVerdict keeps v in the session's overview.
func (s *SessionOverview) setVerdict(v Verdict) {
	for i, n := range v.Findings {
		s.verdict[i] = uint8(min(n, 255))
	}
	s.unfinished = v.Unfinished
}

// Verdicts maps each session id to its verdict, for a view that meets
// sessions by id (lineage's graphs).
func (r *Report) Verdicts() map[string]Verdict {
	m := make(map[string]Verdict, len(r.Overview.Sessions))
	for i := range r.Overview.Sessions {
		s := &r.Overview.Sessions[i]
		m[s.SessionID] = s.Verdict()
	}
	return m
}

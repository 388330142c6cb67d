package inspect

import (
	"fmt"
	"strconv"
	"strings"

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
}

// Accepted is the number of events the cursor accepted.
func (o *Overview) Accepted() int {
	return o.Counts.Reasons[replay.ReasonInitial] + o.Counts.Reasons[replay.ReasonAdvanced]
}

// SessionOverview is what one session's events hold.
type SessionOverview struct {
	SessionID string
	// Events counts the session's decoded lines; Reasons splits them.
	Events    int
	Reasons   map[replay.Reason]int
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
	Lineage map[string]int
}

// Accepted is the number of the session's events the cursor accepted.
func (s *SessionOverview) Accepted() int {
	return s.Reasons[replay.ReasonInitial] + s.Reasons[replay.ReasonAdvanced]
}

// SequenceRange is the lowest and highest sequence.
type SequenceRange struct{ Min, Max int64 }

// EmittedRange is the earliest and latest emittedAt, as written.
type EmittedRange struct{ First, Last string }

// Report builds the report from what was observed and the run's summary.
func (in *Inspector) Report(sum replay.Summary) Report {
	r := Report{Overview: Overview{Input: sum.Input, Counts: sum.Counts, Pinned: sum.Pinned}, Findings: []Finding{}}
	stats := map[string]*replay.SessionStats{}
	for _, ss := range sum.Sessions {
		stats[ss.SessionID] = ss
	}
	for _, s := range in.order {
		so := SessionOverview{SessionID: s.id, Reasons: map[replay.Reason]int{}, Turns: len(s.turns),
			Snapshots: s.snapshots, Lineage: s.lineage}
		if ss := stats[s.id]; ss != nil {
			so.Events, so.Reasons, so.Final = ss.Events, ss.Reasons, ss.Final
		}
		if s.hasSeq {
			so.Sequences = &SequenceRange{Min: s.seqMin, Max: s.seqMax}
		}
		if s.first.ok {
			so.EmittedAt = &EmittedRange{First: s.first.raw, Last: s.last.raw}
		}
		r.Overview.Sessions = append(r.Overview.Sessions, so)
		r.Findings = append(r.Findings, in.findings(s, sum.Pinned)...)
	}
	sortFindings(r.Findings)
	return r
}

// findings turns one session's tallies into findings.
func (in *Inspector) findings(s *session, pinned string) []Finding {
	var out []Finding
	add := func(id string, t *tally, format string, args ...any) {
		if f, ok := in.finding(id, s.id, t, fmt.Sprintf(format, args...)); ok {
			out = append(out, f)
		}
	}
	if s.tsLike*2 > s.tsTotal {
		add(TimestampSequence, &s.timestamp,
			"%d of %d accepted sequences look like Unix-millisecond timestamps (%s): events in one millisecond share a sequence and the cursor drops all but the first",
			s.tsLike, s.tsTotal, s.tsExample)
	}
	add(SequenceCollision, &s.collision,
		"%s a sequence already accepted with different content or event id, so the cursor dropped %s (first: %s)",
		count(s.collision.n, "snapshot reused", "snapshots reused"), pick(s.collision.n, "it: a lost update", "them: lost updates"), s.collision.first)
	add(MessageVanished, &s.vanished,
		"%s left the accepted projection with no retry, edit or regenerate lineage to explain it (first: %s)",
		count(s.vanished.n, "message", "messages"), s.vanished.first)
	add(StatusRegression, &s.regression,
		"a turn went from complete or error back to streaming %s (first: %s)",
		times(s.regression.n), s.regression.first)
	add(EmittedAtRegression, &s.emitted,
		"emittedAt went backwards %s while accepted sequences went forwards (first: %s)",
		times(s.emitted.n), s.emitted.first)
	add(DuplicateEventID, &s.dupEvent,
		"%s an event id of an earlier line with different content (first: %s)",
		count(s.dupEvent.n, "line reuses", "lines reuse"), s.dupEvent.first)
	add(ForeignSession, &s.foreign,
		"%s of session %s ignored: --session pins %s",
		count(s.foreign.n, "line", "lines"), s.id, pinned)
	orphans, turns := in.orphans(s)
	add(OrphanSubmit, &orphans,
		"%s never received a snapshot of %s (%s)",
		count(orphans.n, "submit", "submits"), pick(orphans.n, "its turn", "their turns"), listSome(turns, 5))
	add(StaleRedelivery, &s.stale,
		"%s kept inert after %s: the cursor prevented a rollback",
		count(s.redeliveries, "duplicate or stale snapshot", "duplicate or stale snapshots"), count(s.stale.n, "reconnect", "reconnects"))
	add(SequenceGap, &s.gap,
		"%s skipped %s, at most %d at once (legal when the server coalesces under backpressure)",
		count(s.gap.n, "accepted snapshot", "accepted snapshots"), count(int(s.gapMissing), "sequence value", "sequence values"), s.gapLargest)
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

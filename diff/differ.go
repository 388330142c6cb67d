package diff

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/replay"
)

// Options selects the pairs a Differ emits.
type Options struct {
	// Session is the pinned session of the replay run, if any. With it,
	// every inert delivery counts against that session, foreign-session
	// ones included, as the pinned cursor saw them.
	Session string
	// Turn keeps only pairs whose newer snapshot belongs to this turn.
	Turn string
	// Range compares the accepted snapshots at sequences From and To of a
	// session directly, instead of each with the previous one.
	Range    bool
	From, To int64
	// NoWords skips the word diff of content that changed other than by
	// growing, for outputs that never show it (MessageChange.Words stays
	// nil and Replaced false): it is the costliest part of a pair.
	NoWords bool
}

// Differ turns a stream of replay results into pairs of accepted
// snapshots. It keeps one projection per session (the older side of the
// next pair) and the counts of inert deliveries since it, so memory does
// not grow with the length of the capture. Older projections are kept
// whole while they fit in one budget for all sessions together
// (keptBudget, 8 MiB), or when they are small; past it, they are kept
// compact (compactOf): ids, short strings and the heads and digests of
// long ones, so memory does not grow with the size of the snapshots
// either, however many sessions there are. The analysis model
// (inspect/model) keeps no message text, which a diff shows, so the
// Differ keeps the older side itself; which of its messages were removed
// and which a lineage explains, it leaves to the model's rule.
type Differ struct {
	opts     Options
	emit     func(*PairDiff) error
	sessions map[string]*sessionState
	// kept is the cost of the projections kept whole, against budget
	// (keptBudget but in tests).
	kept, budget int
	// malformed counts every malformed line so far. A malformed line names
	// no session, so it counts for every session whose pair spans it; a
	// per-session mark keeps that O(1) per line.
	malformed int
	found     bool
}

type sessionState struct {
	id      string
	base    Projection
	hasBase bool
	// cost is what base costs against Differ.budget; 0 when compact.
	cost    int
	inert   map[replay.Reason]int
	mark    int // Differ.malformed when base was taken
	between int // accepted snapshots skipped since base (Range)
	// skipped are the lineages of the skipped snapshots that may explain
	// removals from base (Range), never more than base has messages.
	skipped  model.Skipped
	sawFrom  bool
	sawTo    bool
	accepted bool
}

// NewDiffer returns a Differ that calls emit with each pair, in the order
// the newer snapshots were accepted. The PairDiff is emit's to keep.
func NewDiffer(opts Options, emit func(*PairDiff) error) *Differ {
	return &Differ{opts: opts, emit: emit, sessions: map[string]*sessionState{}, budget: keptBudget}
}

// Add takes the next replay result; use it as the callback of replay.Run
// with replay.Options{Messages: true}. It returns emit's error.
func (d *Differ) Add(res *replay.Result) error {
	switch {
	case res.Reason == replay.ReasonMalformed:
		d.malformed++
	case res.Verdict() == replay.Inert:
		id := res.Event.SessionID
		if d.opts.Session != "" {
			id = d.opts.Session
		}
		if s := d.sessions[id]; s != nil && s.hasBase {
			if s.inert == nil {
				s.inert = map[replay.Reason]int{}
			}
			s.inert[res.Reason]++
		}
	default:
		return d.accept(res)
	}
	return nil
}

func (d *Differ) accept(res *replay.Result) error {
	ev := res.Event
	s := d.sessions[ev.SessionID]
	if s == nil {
		s = &sessionState{id: ev.SessionID}
		d.sessions[ev.SessionID] = s
	}
	s.accepted = true
	if !d.opts.Range {
		p := ProjectionOf(res)
		if s.hasBase && (d.opts.Turn == "" || ev.TurnID == d.opts.Turn) {
			if err := d.pair(s, p); err != nil {
				return err
			}
		}
		d.rebase(s, p)
		return nil
	}
	switch seq := ev.Sequence; {
	case seq == d.opts.From:
		s.sawFrom = true
		d.rebase(s, ProjectionOf(res))
	case seq == d.opts.To:
		s.sawTo = true
		if s.hasBase {
			d.found = true
			var err error
			if d.opts.Turn == "" || ev.TurnID == d.opts.Turn {
				err = d.pair(s, ProjectionOf(res))
			}
			d.drop(s)
			return err
		}
	case s.hasBase && seq < d.opts.To:
		s.between++
		s.skipped.Add(model.Messages(s.base.Messages), ev.Snapshot.Lineage)
	case s.hasBase:
		// To was skipped: nothing left to compare the base with.
		d.drop(s)
	}
	return nil
}

// rebase makes p the older side of the session's next pair: whole if it
// fits in the budget with the other sessions' projections, else compact.
func (d *Differ) rebase(s *sessionState, p Projection) {
	d.drop(s)
	switch c := p.cost(); {
	case c <= smallCost:
		s.base = p
	case d.kept+c <= d.budget:
		s.base, s.cost = p, c
		d.kept += c
	default:
		s.base = compactOf(p)
	}
	s.hasBase = true
	s.inert, s.mark, s.between, s.skipped = nil, d.malformed, 0, model.Skipped{}
}

// drop lets the session's older projection go.
func (d *Differ) drop(s *sessionState) {
	d.kept -= s.cost
	s.base, s.hasBase, s.cost = Projection{}, false, 0
}

func (d *Differ) pair(s *sessionState, p Projection) error {
	pd := compare(s.base, p, !d.opts.NoWords)
	if s.inert == nil {
		s.inert = map[replay.Reason]int{}
	}
	pd.Inert = s.inert
	if n := d.malformed - s.mark; n > 0 {
		pd.Inert[replay.ReasonMalformed] = n
	}
	pd.AcceptedBetween = s.between
	if len(pd.Removed) > 0 {
		rs := pd.removals()
		s.skipped.Explain(rs)
		pd.setRemovals(rs)
	}
	// The map now belongs to the pair; the next one starts afresh.
	s.inert = nil
	return d.emit(&pd)
}

// Finish reports, once the input is done, a Range whose sequences were
// not both accepted snapshots of one session, as a *RangeError.
func (d *Differ) Finish() error {
	if !d.opts.Range || d.found {
		return nil
	}
	e := &RangeError{From: d.opts.From, To: d.opts.To}
	var only *sessionState
	for _, s := range d.sessions {
		if s.accepted {
			e.Sessions++
			only = s
		}
	}
	if d.opts.Session != "" {
		only = d.sessions[d.opts.Session]
		e.Session, e.Sessions = d.opts.Session, 1
	}
	if e.Sessions == 1 {
		if only != nil {
			e.Session = only.id
		}
		if only == nil || !only.sawFrom {
			e.Missing = append(e.Missing, d.opts.From)
		}
		if only == nil || !only.sawTo {
			e.Missing = append(e.Missing, d.opts.To)
		}
	}
	return e
}

// RangeError says that Options.From and To did not name two accepted
// snapshots of one session.
type RangeError struct {
	From, To int64
	// Sessions is the number of sessions with accepted snapshots.
	Sessions int
	// Session and Missing are set when one session was in question:
	// the sequences that were not accepted snapshots of it.
	Session string
	Missing []int64
}

func (e *RangeError) Error() string {
	switch {
	case e.Sessions == 0:
		return fmt.Sprintf("sequences %d and %d are not accepted snapshots: the capture has none", e.From, e.To)
	case e.Session == "" || len(e.Missing) == 0:
		return fmt.Sprintf("no session has accepted snapshots at both sequence %d and sequence %d", e.From, e.To)
	}
	seqs := make([]string, len(e.Missing))
	for i, m := range e.Missing {
		seqs[i] = strconv.FormatInt(m, 10)
	}
	if len(seqs) == 1 {
		return fmt.Sprintf("sequence %s is not an accepted snapshot of session %s", seqs[0], e.Session)
	}
	return fmt.Sprintf("sequences %s are not accepted snapshots of session %s", strings.Join(seqs, " and "), e.Session)
}

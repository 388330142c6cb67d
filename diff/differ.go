package diff

import (
	"fmt"
	"slices"
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
	// FromLine and ToLine, when positive, name the snapshot of that side
	// by its line number instead of its sequence; FromEntry and ToEntry,
	// when positive too, by its line within that HAR entry's body.
	FromLine, ToLine   int
	FromEntry, ToEntry int
	// NoWords skips the word diff of content that changed other than by
	// growing, for outputs that never show it (MessageChange.Words stays
	// nil and Replaced false): it is the costliest part of a pair.
	NoWords bool
	// Borrowed says the results' messages are borrowed from their lines
	// (replay.Options.BorrowMessages): good only until Add returns, their
	// array reused. The differ then copies what it keeps of a snapshot,
	// and of its messages only those that changed since the one before:
	// a message equal to one kept already keeps that one's copy. The
	// pairs' strings of the newer side are then borrowed too (NewDiffer).
	Borrowed bool
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
	// nearFrom and nearTo are the accepted snapshots nearest to From and
	// To (Range), for the error when they are not both found.
	nearFrom, nearTo Near
	// scratch is compare's memory, and copier own's, reused from pair to
	// pair.
	scratch scratch
	copier  copier
}

// Near is an accepted snapshot near a --from or --to that was not found:
// its sequence, or its line when the side was named by line.
type Near struct {
	Value   int64
	Session string
	ok      bool
}

// note keeps v of session as the nearest to target so far, if it is.
func (n *Near) note(target, v int64, session string) {
	if !n.ok || abs(v-target) < abs(n.Value-target) {
		*n = Near{Value: v, Session: session, ok: true}
	}
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// side is what the Range names one side by: a line, or a sequence. A
// side named within a HAR entry is not one of a line of another entry.
func (d *Differ) side(res *replay.Result, line, entry int) (int64, bool) {
	if line > 0 {
		return int64(res.Line), entry == 0 || model.EntryOf(res) == entry
	}
	return res.Event.Sequence, true
}

func (d *Differ) fromTarget() int64 {
	if d.opts.FromLine > 0 {
		return int64(d.opts.FromLine)
	}
	return d.opts.From
}

func (d *Differ) toTarget() int64 {
	if d.opts.ToLine > 0 {
		return int64(d.opts.ToLine)
	}
	return d.opts.To
}

type sessionState struct {
	id   string
	base Projection
	// packed holds base's messages when it is small (pack), "" else.
	packed  string
	hasBase bool
	// cost is what base costs against Differ.budget; 0 when compact.
	cost    int
	inert   map[replay.Reason]int
	mark    int // Differ.malformed when base was taken
	between int // accepted snapshots skipped since base (Range)
	// skipped are the lineages of the skipped snapshots that may explain
	// removals from base (Range), never more than base has messages.
	skipped model.Skipped
	// spare is the array of messages of the session's base before this
	// one, when own made it and it was kept whole, cleared: own's next
	// array.
	spare    []replay.Message
	sawFrom  bool
	sawTo    bool
	accepted bool
}

// NewDiffer returns a Differ that calls emit with each pair, in the order
// the newer snapshots were accepted. The PairDiff is emit's to keep, but
// with Options.Borrowed the strings it takes from the newer snapshot's
// messages (Added, the ids of Changed and Moved, and the New side,
// Appended and Words of Changed) are the line's, good only until emit
// returns: emit copies what it keeps of them. The older side's strings
// are the Differ's copies.
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
		var same []int
		if s.hasBase && (d.opts.Turn == "" || ev.TurnID == d.opts.Turn) {
			var err error
			if same, err = d.pair(s, p); err != nil {
				return err
			}
		}
		d.rebase(s, d.own(s, p, same))
		return nil
	}
	from, fromIn := d.side(res, d.opts.FromLine, d.opts.FromEntry)
	to, toIn := d.side(res, d.opts.ToLine, d.opts.ToEntry)
	if fromIn {
		d.nearFrom.note(d.fromTarget(), from, ev.SessionID)
	}
	if toIn {
		d.nearTo.note(d.toTarget(), to, ev.SessionID)
	}
	switch {
	case fromIn && from == d.fromTarget():
		s.sawFrom = true
		d.rebase(s, d.own(s, ProjectionOf(res), nil))
	case toIn && to == d.toTarget():
		s.sawTo = true
		if s.hasBase {
			d.found = true
			var err error
			if d.opts.Turn == "" || ev.TurnID == d.opts.Turn {
				_, err = d.pair(s, ProjectionOf(res))
			}
			d.drop(s)
			return err
		}
	// Lines of another entry than To's come before it while it is
	// still to come.
	case s.hasBase && (!toIn || to < d.toTarget()):
		s.between++
		s.skipped.Add(model.Messages(s.older().Messages), ev.Snapshot.Lineage)
	case s.hasBase:
		// To was skipped: nothing left to compare the base with.
		d.drop(s)
	}
	return nil
}

// rebase makes p the older side of the session's next pair: whole if it
// fits in the budget with the other sessions' projections, else compact.
func (d *Differ) rebase(s *sessionState, p Projection) {
	// A base kept whole holds an array of own's, not shown to anyone
	// since it was made: own may fill it again for the next base. It is
	// cleared, so that it keeps none of the strings the budget no longer
	// counts. It is kept only when no larger than twice the new base's
	// array, which the budget counts, so that a session whose snapshots
	// shrank keeps no array the budget no longer counts.
	// own may have written p's messages over the base's own array
	// (inPlace): then it is p's, and there is no spare.
	var spare []replay.Message
	if d.opts.Borrowed && s.hasBase && s.packed == "" && s.base.digests == nil && cap(s.base.Messages) <= 2*len(p.Messages) &&
		!sameArray(s.base.Messages, p.Messages) {
		spare = s.base.Messages
		clear(spare)
	}
	d.drop(s)
	switch c := p.cost(); {
	case c <= smallCost:
		s.base, s.packed = p, pack(p.Messages)
		s.base.Messages = nil
	case d.kept+c <= d.budget:
		s.base, s.cost, s.spare = p, c, spare
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
	s.base, s.hasBase, s.cost, s.packed, s.spare = Projection{}, false, 0, "", nil
}

// older is the session's older projection, its messages unpacked if they
// were packed.
func (s *sessionState) older() Projection {
	p := s.base
	if s.packed != "" {
		p.Messages = unpack(s.packed)
	}
	return p
}

// own returns p with messages of its own, for a Differ of borrowed
// projections (Options.Borrowed); p itself otherwise. same is the pair's
// map from p's messages to the equal ones of the session's older
// projection (PairDiff.same), nil for none: those keep the older one's
// copy when it is kept whole (not packed, not compact), and only the
// others are copied, each message's strings into one allocation.
func (d *Differ) own(s *sessionState, p Projection, same []int) Projection {
	if !d.opts.Borrowed {
		return p
	}
	if s.packed != "" || s.base.digests != nil {
		same = nil
	}
	old := s.base.Messages
	var ms []replay.Message
	inplace := inPlace(old, same, len(p.Messages))
	if inplace {
		// Every message kept is where it was: only the others are
		// written, over the base's array, which nothing else holds.
		// Past the new end it is cleared, to keep no strings the
		// budget no longer counts.
		ms = old[:len(p.Messages)]
		if len(old) > len(ms) {
			clear(old[len(ms):])
		}
	} else {
		// The spare is reused only when it is not much larger than
		// needed: the budget counts the messages, not the array's
		// capacity.
		ms = s.spare[:0]
		if cap(ms) < len(p.Messages) || cap(ms) > 2*len(p.Messages) {
			ms = make([]replay.Message, len(p.Messages))
		}
		// Every element is written below.
		ms, s.spare = ms[:len(p.Messages)], nil
	}
	c := &d.copier
	for j := range p.Messages {
		if same != nil && same[j] >= 0 {
			if !inplace {
				ms[j] = old[same[j]]
			}
			continue
		}
		m := &ms[j]
		*m = p.Messages[j]
		// The copies of its tool calls' strings go into an array of its
		// own, not into the decoder's, which the result still shows.
		m.ToolCalls = slices.Clone(m.ToolCalls)
		eachString(m, func(s *string) { c.add(s, *s) })
		// Each message's strings in an allocation of their own: a later
		// base may keep this message and not the others copied with it,
		// and the budget counts only the messages kept.
		c.copy()
	}
	p.Messages = ms
	return p
}

// inPlace says whether own can write a base of n messages over old, the
// base's array kept whole: each message same keeps is at its place in
// old, and old is large enough, but not so large that the budget, which
// counts the messages, misses most of it.
func inPlace(old []replay.Message, same []int, n int) bool {
	if same == nil || n == 0 || cap(old) < n || cap(old) > 2*n {
		return false
	}
	for j, i := range same[:n] {
		if i >= 0 && i != j {
			return false
		}
	}
	return true
}

// sameArray says whether a and b begin at one element of one array.
func sameArray(a, b []replay.Message) bool {
	return len(a) > 0 && len(b) > 0 && &a[0] == &b[0]
}

func (d *Differ) pair(s *sessionState, p Projection) ([]int, error) {
	pd := compare(s.older(), p, !d.opts.NoWords, &d.scratch)
	if n := d.malformed - s.mark; n > 0 {
		if s.inert == nil {
			s.inert = map[replay.Reason]int{}
		}
		s.inert[replay.ReasonMalformed] = n
	}
	pd.Inert = s.inert
	pd.AcceptedBetween = s.between
	if len(pd.Removed) > 0 {
		rs := pd.removals()
		s.skipped.Explain(rs)
		pd.setRemovals(rs)
	}
	// The map now belongs to the pair; the next one starts afresh.
	s.inert = nil
	return pd.same, d.emit(&pd)
}

// Finish reports, once the input is done, a Range whose sequences were
// not both accepted snapshots of one session, as a *RangeError.
func (d *Differ) Finish() error {
	if !d.opts.Range || d.found {
		return nil
	}
	e := &RangeError{From: d.opts.From, To: d.opts.To, FromLine: d.opts.FromLine, ToLine: d.opts.ToLine,
		FromEntry: d.opts.FromEntry, ToEntry: d.opts.ToEntry}
	fromFound, toFound := false, false
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
			e.Missing, e.MissingFrom = append(e.Missing, d.opts.From), true
		} else {
			fromFound = true
		}
		if only == nil || !only.sawTo {
			e.Missing, e.MissingTo = append(e.Missing, d.opts.To), true
		} else {
			toFound = true
		}
	}
	// A nearest that is the side itself (in another session) says nothing.
	if !fromFound && d.nearFrom.ok && d.nearFrom.Value != d.fromTarget() {
		e.NearFrom = &d.nearFrom
	}
	if !toFound && d.nearTo.ok && d.nearTo.Value != d.toTarget() {
		e.NearTo = &d.nearTo
	}
	return e
}

// RangeError says that Options.From and To did not name two accepted
// snapshots of one session.
type RangeError struct {
	From, To int64
	// FromLine and ToLine are set when the side was named by line, and
	// FromEntry and ToEntry when by a line of that HAR entry.
	FromLine, ToLine   int
	FromEntry, ToEntry int
	// NearFrom and NearTo are the accepted snapshots nearest to a side
	// that was not found, nil when there are none.
	NearFrom, NearTo *Near
	// Sessions is the number of sessions with accepted snapshots.
	Sessions int
	// Session and Missing are set when one session was in question:
	// the sequences that were not accepted snapshots of it.
	Session string
	Missing []int64
	// MissingFrom and MissingTo say which sides Missing holds.
	MissingFrom, MissingTo bool
}

func (e *RangeError) Error() string {
	return e.problem() + e.nearest()
}

// name says how a side was named: "sequence 3", "line 12" or "entry
// 4:line 12".
func name(seq int64, line, entry int) string {
	switch {
	case entry > 0 && line > 0:
		return "entry " + strconv.Itoa(entry) + ":line " + strconv.Itoa(line)
	case line > 0:
		return "line " + strconv.Itoa(line)
	}
	return "sequence " + strconv.FormatInt(seq, 10)
}

func (e *RangeError) problem() string {
	from, to := name(e.From, e.FromLine, e.FromEntry), name(e.To, e.ToLine, e.ToEntry)
	switch {
	case e.Sessions == 0:
		return fmt.Sprintf("%s are not accepted snapshots: the capture has none", e.both())
	case e.Session == "" || len(e.Missing) == 0:
		return fmt.Sprintf("no session has accepted snapshots at both %s and %s", from, to)
	}
	switch {
	case e.MissingFrom && e.MissingTo:
		return fmt.Sprintf("%s are not accepted snapshots of session %s", e.both(), e.Session)
	case e.MissingFrom:
		return fmt.Sprintf("%s is not an accepted snapshot of session %s", from, e.Session)
	}
	return fmt.Sprintf("%s is not an accepted snapshot of session %s", to, e.Session)
}

// both names the two sides: "sequences 1 and 2", "lines 3 and 5" or
// "sequence 1 and line 5".
func (e *RangeError) both() string {
	switch {
	case e.FromLine == 0 && e.ToLine == 0:
		return fmt.Sprintf("sequences %d and %d", e.From, e.To)
	case e.FromLine > 0 && e.ToLine > 0 && e.FromEntry == 0 && e.ToEntry == 0:
		return fmt.Sprintf("lines %d and %d", e.FromLine, e.ToLine)
	}
	return name(e.From, e.FromLine, e.FromEntry) + " and " + name(e.To, e.ToLine, e.ToEntry)
}

// nearest names the accepted snapshots nearest to the sides not found.
func (e *RangeError) nearest() string {
	var parts []string
	for _, n := range []struct {
		near *Near
		line int
		name string
	}{{e.NearFrom, e.FromLine, name(e.From, e.FromLine, e.FromEntry)}, {e.NearTo, e.ToLine, name(e.To, e.ToLine, e.ToEntry)}} {
		if n.near == nil {
			continue
		}
		unit := "sequence "
		if n.line > 0 {
			unit = "line "
		}
		parts = append(parts, fmt.Sprintf("%s%d (session %s) for %s", unit, n.near.Value, n.near.Session, n.name))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; nearest accepted: " + strings.Join(parts, ", ")
}

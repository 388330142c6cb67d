package replay

import "fmt"

// Verdict is what a cursor did with an event.
type Verdict string

// The two verdicts.
const (
	Accepted Verdict = "accepted"
	Inert    Verdict = "inert"
)

// Reason says why an event got its verdict.
type Reason string

// Reasons, accepted first. Every inert event has exactly one reason.
const (
	ReasonInitial        Reason = "initial"         // first accepted snapshot: the reconnect state
	ReasonAdvanced       Reason = "advanced"        // a greater sequence than the accepted one
	ReasonMalformed      Reason = "malformed"       // the line does not decode
	ReasonNonSnapshot    Reason = "non-snapshot"    // a submit or diagnostic event
	ReasonForeignSession Reason = "foreign-session" // another session than the trusted one
	ReasonDuplicate      Reason = "duplicate"       // the same sequence as the accepted one
	ReasonStale          Reason = "stale"           // a lower sequence than the accepted one
)

// Reasons lists every reason in a fixed order, for summaries and flags.
var Reasons = []Reason{ReasonInitial, ReasonAdvanced, ReasonMalformed, ReasonNonSnapshot,
	ReasonForeignSession, ReasonDuplicate, ReasonStale}

// Verdict returns the verdict that goes with a reason.
func (r Reason) Verdict() Verdict {
	if r == ReasonInitial || r == ReasonAdvanced {
		return Accepted
	}
	return Inert
}

// Cursor is the monotonic snapshot cursor of ADR-0010 for one trusted
// session. The zero value is not usable; use NewCursor.
type Cursor struct {
	session string
	seq     seqCursor
}

// seqCursor is the cursor's judgement of the sequences of one session's
// snapshots, all it keeps beside the session: a run's cursor of each
// session is one, in the session's stats, which name the session already.
// inUse is set on the runner's seqCursor of a session once it has judged
// a snapshot.
type seqCursor struct {
	sequence        int64
	accepted, inUse bool
}

// NewCursor returns a cursor that trusts session, which must be a safe
// identifier.
func NewCursor(session string) (*Cursor, error) {
	if !IsSafeIdentifier(session) {
		return nil, fmt.Errorf("session %q is not a safe identifier (%s)", session, SafeIdentifierPattern)
	}
	return &Cursor{session: session}, nil
}

// SequenceGap is the number of sequence values between two accepted
// snapshots, prev and then seq, that no snapshot took: the one definition
// of a gap, which replay reports and inspect's sequence-gap counts,
// whether or not a submit or diagnostic took some of them.
func SequenceGap(prev, seq int64) int64 { return seq - prev - 1 }

// Sequence is the accepted snapshot's sequence, and whether there is one.
func (c *Cursor) Sequence() (int64, bool) { return c.seq.sequence, c.seq.accepted }

// Apply runs one event through the cursor. ev is nil for a line that did
// not decode. For an advanced snapshot, gap is the number of sequence
// values skipped since the previously accepted one.
func (c *Cursor) Apply(ev *Event) (reason Reason, gap int64) {
	switch {
	case ev == nil:
		return ReasonMalformed, 0
	case ev.Kind != KindSnapshot:
		return ReasonNonSnapshot, 0
	case ev.SessionID != c.session:
		return ReasonForeignSession, 0
	}
	return c.seq.apply(ev)
}

// apply judges a snapshot of the cursor's session.
func (c *seqCursor) apply(ev *Event) (reason Reason, gap int64) {
	switch {
	case !c.accepted:
		c.accepted, c.sequence = true, ev.Sequence
		return ReasonInitial, 0
	case ev.Sequence > c.sequence:
		gap = SequenceGap(c.sequence, ev.Sequence)
		c.sequence = ev.Sequence
		return ReasonAdvanced, gap
	case ev.Sequence == c.sequence:
		return ReasonDuplicate, 0
	}
	return ReasonStale, 0
}

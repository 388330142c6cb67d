package wire

import "math"

// Envelope is what the envelope of an event that breaks a rule says, read
// without validation: each field that has the right JSON type, whatever
// its value. It ties a malformed line to its session, turn and sequence;
// nothing in it is checked against the protocol.
type Envelope struct {
	EventID, SessionID, TurnID string
	// Event is the event field as written.
	Event string
	// Sequence is set when HasSequence is: an integer within the safe
	// range, of any sign.
	Sequence    int64
	HasSequence bool
}

// readable reads the envelope fields of the parsed line, or returns nil
// when the line is not an object or has none of them.
func (c *checker) readable() *Envelope {
	if len(c.p.tape) == 0 || c.n(0).kind != kindObject {
		return nil
	}
	var e Envelope
	found := false
	str := func(key string, dst *string) {
		if i := c.field(0, key); i >= 0 && c.n(i).kind == kindString {
			*dst, found = c.str(i), true
		}
	}
	str("eventId", &e.EventID)
	str("sessionId", &e.SessionID)
	str("turnId", &e.TurnID)
	str("event", &e.Event)
	if i := c.field(0, "sequence"); i >= 0 && c.n(i).kind == kindNumber {
		if f := c.number(i); math.Abs(f) <= maxSafeInteger && f == math.Trunc(f) {
			e.Sequence, e.HasSequence, found = int64(f), true, true
		}
	}
	if !found {
		return nil
	}
	return &e
}

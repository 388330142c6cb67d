package wire

import (
	"fmt"
	"hash/maphash"
)

// Decoder decodes event lines. It reuses its buffers from line to line, so
// one Decoder must not be used by two goroutines at once. replay.Decoder
// sets its options before each line.
type Decoder struct {
	// Messages asks for each snapshot's message records (Snapshot.Messages).
	Messages bool
	// AllProblems asks for every problem of a malformed line rather than
	// the first one.
	AllProblems bool
	// EventPath, when set, is the gjson path of the event inside each line
	// of a wrapped capture.
	EventPath string
	// Hash asks for Snapshot.Hash.
	Hash bool
	// Borrow makes the strings of Snapshot.Messages point into the line
	// given to Decode instead of into a copy of its messages array: they
	// are then good only as long as the line's bytes are, for a caller
	// that reads the messages and keeps nothing of them. Escaped strings
	// and the messages of a wrapped line (EventPath) are copies anyway.
	// The array of Snapshot.Messages is then reused too: the next Decode
	// into the same event clears it and fills it again (up to MaxSpare
	// messages), which saves allocating, zeroing and collecting one for
	// every snapshot; an event that is not a snapshot keeps it, empty.
	Borrow bool
	// Brief, with Messages, keeps of each message only its id, role,
	// status and content (what the inspector's model reads): the other
	// fields, and the tool calls, are checked but left empty.
	Brief bool

	p parser
	c checker
	// seen is the session and turn id of the last line (checker.seen).
	seen      [2]string
	unwrapped []byte
	// last is the syntax error of the last line that had one, and the
	// DecodeError made of it (see syntax).
	last struct {
		err     syntaxError
		wrapper bool
		derr    *DecodeError
	}
}

// hashSeed seeds Snapshot.Hash, IDsHash and TextHash, drawn for each
// process, so that no capture can be made to hide a difference behind
// equal hashes: maphash is keyed, where a fast unkeyed hash (XXH3 was
// tried) lets chosen inputs collide whatever the seed.
var hashSeed = maphash.MakeSeed()

// MaxLine is the longest line a Decoder decodes: 1 GiB, so that every
// offset in a line fits the tape's 32 bits with room to spare.
const MaxLine = 1 << 30

// LineTooLong is the error for a line of n bytes, longer than limit,
// which is not decoded. It holds no capture text, so it is its own
// redacted form.
func LineTooLong(n int64, limit int) *DecodeError {
	msg := fmt.Sprintf("line is %d bytes, longer than the %d-byte maximum (--max-line): not decoded", n, limit)
	return &DecodeError{Code: CodeLineTooLong, Offset: -1, Problems: []Problem{{Message: msg, RedactedMessage: msg}}}
}

// LineCut is the error for a line of n bytes that snapctl record did not
// keep (longer than its --max-line, or than its bound on unfinished
// lines), so that there is nothing to decode. Like LineTooLong it holds
// no capture text.
func LineCut(n int64) *DecodeError {
	msg := fmt.Sprintf("line is %d bytes, not kept by snapctl record (over its --max-line or its bound on unfinished lines): not decoded", n)
	return &DecodeError{Code: CodeLineTooLong, Offset: -1, Problems: []Problem{{Message: msg, RedactedMessage: msg}}}
}

// Decode decodes one line (without its line ending). It returns the event,
// or a DecodeError whose code is the one the reference would give.
func (d *Decoder) Decode(line []byte, ev *Event) *DecodeError {
	var spare []Message
	if d.Borrow {
		spare = Spare(ev.Snapshot.Messages)
	}
	*ev = Event{}
	// The array stays with the event, empty, whatever this line holds,
	// for the next snapshot decoded into it.
	ev.Snapshot.Messages = spare
	if len(line) > MaxLine {
		// The tape's offsets are 32 bits wide: a longer line is refused
		// here too, not only by the reader.
		return LineTooLong(int64(len(line)), MaxLine)
	}
	// The unwrapped event lives in a buffer the next line reuses.
	borrow := d.Borrow && d.EventPath == ""
	if d.EventPath != "" {
		var derr *DecodeError
		if line, derr = d.unwrap(line, d.EventPath); derr != nil {
			return derr
		}
	}
	if err := d.p.parse(line); err != nil {
		return d.syntax(err, false)
	}
	c := &d.c
	*c = checker{p: &d.p, all: d.AllProblems, path: c.path[:0], messages: d.Messages, full: d.Messages && !d.Brief, hash: d.Hash, borrow: borrow, ids: c.ids[:0], seen: &d.seen}
	code := c.event(ev)
	d.p.trim()
	if cap(c.ids) > 1<<20 {
		c.ids = nil
	}
	if len(c.probs) == 0 {
		return nil
	}
	return &DecodeError{Code: code, Problems: c.probs, Offset: -1, Envelope: c.readable()}
}

// MaxSpare is the most messages an array kept for reuse holds (see
// Decoder.Borrow): some 160 KiB.
const MaxSpare = 1024

// Spare returns ms cleared and emptied, for reuse by a borrowing Decode
// (see Decoder.Borrow), or nil when it holds more than MaxSpare messages.
// Clearing drops every pointer into the line it was decoded from, whose
// bytes may be unmapped and their addresses reused.
func Spare(ms []Message) []Message {
	clear(ms)
	if cap(ms) > MaxSpare {
		return nil
	}
	return ms[:0]
}

// syntax returns the error of a line that is not JSON (of its wrapper,
// for an EventPath): the error of the line before when it broke the same
// way, so that a million lines of "x" cost one error between them, not
// one each with its message formatted.
func (d *Decoder) syntax(e *syntaxError, wrapper bool) *DecodeError {
	l := &d.last
	if l.derr == nil || l.err != *e || l.wrapper != wrapper {
		prefix := ""
		if wrapper {
			prefix = "wrapper: "
		}
		l.err, l.wrapper = *e, wrapper
		l.derr = &DecodeError{Code: CodeInvalidPayload, Offset: e.off,
			Problems: []Problem{{Message: prefix + e.Error(), RedactedMessage: prefix + redactedSyntax(e)}}}
	}
	return l.derr
}

// trim lets go of scratch buffers that a huge key or string grew: a
// decoder lives as long as the run, and each worker has one.
func (p *parser) trim() {
	const keep = 1 << 20
	if cap(p.scratch) > keep {
		p.scratch = nil
	}
	if cap(p.scratch2) > keep {
		p.scratch2 = nil
	}
	// An object's key index stays until the next object at its depth: a
	// line of objects of thousands of keys nested deep would keep one
	// at each depth for every line after it.
	for i := range p.keys {
		if s := &p.keys[i]; len(s.short.tab) > 1024 || len(s.m) > 1024 {
			*s = keySet{}
		}
	}
}

// event checks the whole event and returns the code for its problems.
func (c *checker) event(ev *Event) Code {
	if k := c.n(0).kind; k != kindObject {
		c.bad("the event is %s, not an object", k)
		return CodeInvalidPayload
	}
	pi, vi, ei := c.field(0, "protocol"), c.field(0, "version"), c.field(0, "event")
	ours := pi >= 0 && c.n(pi).kind == kindString && string(c.text(pi)) == protocolName
	if ours && vi >= 0 && c.n(vi).kind == kindNumber {
		if v := c.number(vi); v != 1 {
			c.badAt("version", "%s is not a supported protocol version (only 1 is)", c.quote(vi))
			return CodeUnsupportedVersion
		}
		if ei >= 0 && c.n(ei).kind == kindString {
			switch Kind(c.text(ei)) {
			case KindSubmit, KindSnapshot, KindDiagnostic:
			default:
				c.badAt("event", "%s is not a known event", c.quote(ei))
				return CodeUnknownEvent
			}
		}
	}
	c.envelope(ev)
	if c.done() {
		return CodeInvalidPayload
	}
	c.payload(ev)
	return CodeInvalidPayload
}

func (c *checker) envelope(ev *Event) {
	if i := c.require(0, "protocol", kindString); i >= 0 && string(c.text(i)) != protocolName {
		c.badAt("protocol", "%s is not %q", c.quote(i), protocolName)
	}
	if c.done() {
		return
	}
	if i := c.require(0, "version", kindNumber); i >= 0 && c.number(i) != 1 {
		c.badAt("version", "%s is not 1", c.quote(i))
	}
	if c.done() {
		return
	}
	ev.EventID = c.ident(0, "eventId")
	if c.done() {
		return
	}
	ev.SessionID = c.identAs(0, "sessionId", &c.seen[0])
	if c.done() {
		return
	}
	ev.TurnID = c.identAs(0, "turnId", &c.seen[1])
	if c.done() {
		return
	}
	ev.Sequence = c.safeInt(0, "sequence")
	if c.done() {
		return
	}
	if i := c.require(0, "emittedAt", kindString); i >= 0 {
		if !isEmittedAt(c.text(i)) {
			c.badAt("emittedAt", "%s is not an ISO-8601 date-time with a real date and a zone (Z or ±HH:MM)", c.quote(i))
		} else {
			ev.EmittedAt = c.str(i)
			ev.Emitted = emittedTime(c.text(i))
		}
	}
	if c.done() {
		return
	}
	ev.Kind = Kind(c.enum(0, "event", string(KindSubmit), string(KindSnapshot), string(KindDiagnostic)))
}

func (c *checker) payload(ev *Event) {
	if ev.Kind == "" {
		return // the event field was already reported
	}
	p := c.require(0, "payload", kindObject)
	if p < 0 {
		return
	}
	c.push("payload")
	defer c.pop()
	switch ev.Kind {
	case KindSubmit:
		if i := c.require(p, "input", kindString); i >= 0 {
			if b := c.text(i); IsBlank(b) {
				c.badAt("input", "%s is empty after trimming whitespace", c.quote(i))
			} else {
				ev.Input = string(b)
			}
		}
	case KindDiagnostic:
		ev.Diagnostic = c.diagnostic(p)
	case KindSnapshot:
		c.snapshot(p, &ev.Snapshot)
	}
}

// diagnostic checks a diagnostic record: { version: 1, code, message, retryable }.
func (c *checker) diagnostic(obj int) Diagnostic {
	var d Diagnostic
	if i := c.require(obj, "version", kindNumber); i >= 0 && c.number(i) != 1 {
		c.badAt("version", "%s is not 1", c.quote(i))
	}
	if i := c.require(obj, "code", kindString); i >= 0 {
		if !isCode(c.text(i)) {
			c.badAt("code", "%s does not match ^[A-Z][A-Z0-9_]*$", c.quote(i))
		} else {
			d.Code = c.str(i)
		}
	}
	if i := c.require(obj, "message", kindString); i >= 0 {
		if c.n(i).start == c.n(i).end {
			c.badAt("message", "is empty")
		} else {
			d.Message = c.str(i)
		}
	}
	if i := c.require(obj, "retryable", kindTrue); i >= 0 {
		d.Retryable = c.n(i).kind == kindTrue
	}
	return d
}

func (c *checker) snapshot(p int, s *Snapshot) {
	if c.hash {
		s.Hash = maphash.Bytes(hashSeed, c.p.data[c.n(p).start:c.n(p).end])
	}
	s.Status = Status(c.enum(p, "status", "idle", "streaming", "complete", "error"))
	if c.done() {
		return
	}
	if u := c.require(p, "usage", kindObject); u >= 0 {
		c.push("usage")
		s.Usage.PromptTokens = c.safeInt(u, "promptTokens")
		s.Usage.CompletionTokens = c.safeInt(u, "completionTokens")
		s.Usage.TotalTokens = c.safeInt(u, "totalTokens")
		c.pop()
	}
	if c.done() {
		return
	}
	if i, ok := c.optional(p, "error", kindObject); ok && i >= 0 {
		c.push("error")
		s.Error, s.HasError = c.diagnostic(i), true
		c.pop()
	}
	if c.done() {
		return
	}
	if i, ok := c.optional(p, "lineage", kindObject); ok && i >= 0 {
		c.push("lineage")
		s.Lineage = c.lineage(i)
		c.pop()
	}
	if c.done() {
		return
	}
	if m := c.require(p, "messages", kindArray); m >= 0 {
		c.push("messages")
		c.record(m, s)
		c.pop()
	}
}

func (c *checker) lineage(obj int) Lineage {
	op := c.enum(obj, "operation", "submit", "retry", "edit", "regenerate")
	switch Operation(op) {
	case "":
		return Lineage{}
	case OpSubmit:
		return Lineage{Operation: OpSubmit}
	}
	return Lineage{Operation: Operation(op), ParentTurnID: c.ident(obj, "parentTurnId"), SourceMessageID: c.ident(obj, "sourceMessageId")}
}

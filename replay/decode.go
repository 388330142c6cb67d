package replay

import (
	"fmt"
	"hash/maphash"
	"math"
	"strconv"
	"strings"
)

// Decoder decodes event lines. It reuses its buffers from line to line, so
// one Decoder must not be used by two goroutines at once.
type Decoder struct {
	// Messages asks for each snapshot's message records (Snapshot.Messages).
	Messages bool
	// AllProblems asks for every problem of a malformed line rather than
	// the first one.
	AllProblems bool
	// EventPath, when set, is the gjson path of the event inside each line
	// of a wrapped capture.
	EventPath string

	p         parser
	c         checker
	unwrapped []byte
}

var hashSeed = maphash.MakeSeed()

// Decode decodes one line (without its line ending). It returns the event,
// or a DecodeError whose code is the one the reference would give.
func (d *Decoder) Decode(line []byte, ev *Event) *DecodeError {
	*ev = Event{}
	if d.EventPath != "" {
		var derr *DecodeError
		if line, derr = d.unwrap(line, d.EventPath); derr != nil {
			return derr
		}
	}
	if err := d.p.parse(line); err != nil {
		return &DecodeError{Code: CodeInvalidPayload, Offset: err.off,
			Problems: []Problem{{Message: err.Error()}}}
	}
	c := &d.c
	*c = checker{p: &d.p, all: d.AllProblems, path: c.path[:0], messages: d.Messages}
	code := c.event(ev)
	if len(c.probs) == 0 {
		return nil
	}
	return &DecodeError{Code: code, Problems: c.probs, Offset: -1}
}

// checker walks a parsed line and records the rules it breaks.
type checker struct {
	p        *parser
	all      bool
	messages bool
	probs    []Problem
	path     []seg
	root     int // tape index of the messages array
	// backing holds the messages array's bytes when messages are kept;
	// base is its offset in the line.
	backing string
	base    int
}

// seg is one step of a JSON path: a key, or an index when key is "".
type seg struct {
	key string
	idx int
}

func (c *checker) push(key string)  { c.path = append(c.path, seg{key: key}) }
func (c *checker) pushIdx(i int)    { c.path = append(c.path, seg{idx: i}) }
func (c *checker) pop()             { c.path = c.path[:len(c.path)-1] }
func (c *checker) done() bool       { return !c.all && len(c.probs) > 0 }
func (c *checker) tape() []node     { return c.p.tape }
func (c *checker) n(i int) *node    { return &c.p.tape[i] }
func (c *checker) raw(i int) []byte { n := c.n(i); return c.p.data[n.start:n.end] }

func (c *checker) pathString() string {
	var b strings.Builder
	for _, s := range c.path {
		if s.key == "" {
			fmt.Fprintf(&b, "[%d]", s.idx)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		if isPlainKey(s.key) {
			b.WriteString(s.key)
		} else {
			b.WriteString(strconv.Quote(s.key))
		}
	}
	return b.String()
}

func isPlainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		if c := k[i]; !isAlnum(c) && c != '_' {
			return false
		}
	}
	return k != ""
}

// bad records a problem at the current path.
func (c *checker) bad(format string, args ...any) {
	c.probs = append(c.probs, Problem{Path: c.pathString(), Message: fmt.Sprintf(format, args...)})
}

// badAt records a problem at the current path extended by key.
func (c *checker) badAt(key string, format string, args ...any) {
	c.push(key)
	c.bad(format, args...)
	c.pop()
}

// text is the decoded content of string node i. Without escapes it is the
// line's own bytes; otherwise it lives in scratch until the next call.
func (c *checker) text(i int) []byte {
	n := c.n(i)
	b := c.p.data[n.start:n.end]
	if !n.esc {
		return b
	}
	c.p.scratch2 = appendUnescaped(c.p.scratch2[:0], b)
	return c.p.scratch2
}

func (c *checker) str(i int) string { return string(c.text(i)) }

func (c *checker) keyText(i int) []byte {
	n := c.n(i)
	b := c.p.data[n.keyStart:n.keyEnd]
	if !n.keyEsc {
		return b
	}
	c.p.scratch = appendUnescaped(c.p.scratch[:0], b)
	return c.p.scratch
}

// field returns the tape index of the last member of object obj named key,
// or -1: with repeated keys the last occurrence counts, as in JSON.parse.
func (c *checker) field(obj int, key string) int {
	found := -1
	t := c.tape()
	ch := obj + 1
	for k := uint32(0); k < t[obj].n; k++ {
		if string(c.keyText(ch)) == key {
			found = ch
		}
		ch = int(t[ch].next)
	}
	return found
}

// quote renders a short excerpt of a value for a problem message.
func (c *checker) quote(i int) string {
	n := c.n(i)
	if n.kind == kindString {
		s := c.str(i)
		if len(s) > 64 {
			s = s[:61] + "..."
		}
		return strconv.Quote(s)
	}
	if n.kind == kindObject || n.kind == kindArray || n.kind == kindPoison {
		return n.kind.String()
	}
	s := string(c.p.data[n.start:n.end])
	if len(s) > 64 {
		s = s[:61] + "..."
	}
	return s
}

// require looks up key in obj and checks its JSON type; it reports and
// returns -1 when the member is missing or of another type.
func (c *checker) require(obj int, key string, want kind) int {
	return c.requireAt(c.field(obj, key), key, want)
}

// requireAt is require for a member already looked up (i is -1 when
// absent).
func (c *checker) requireAt(i int, key string, want kind) int {
	if i < 0 {
		c.badAt(key, "is missing")
		return -1
	}
	if k := c.n(i).kind; k != want && !(want == kindTrue && k == kindFalse) {
		c.badAt(key, "must be %s, not %s", want, c.quote(i))
		return -1
	}
	return i
}

// optional is require for a member that may be absent (but not null).
func (c *checker) optional(obj int, key string, want kind) (int, bool) {
	return c.optionalAt(c.field(obj, key), key, want)
}

// optionalAt is optional for a member already looked up.
func (c *checker) optionalAt(i int, key string, want kind) (int, bool) {
	if i < 0 {
		return -1, true
	}
	if k := c.n(i).kind; k != want && !(want == kindTrue && k == kindFalse) {
		c.badAt(key, "must be %s when present, not %s", want, c.quote(i))
		return -1, false
	}
	return i, true
}

func (c *checker) number(i int) float64 { return parseNumber(c.raw(i)) }

// safeInt checks a non-negative safe integer member and returns it.
func (c *checker) safeInt(obj int, key string) int64 {
	i := c.require(obj, key, kindNumber)
	if i < 0 {
		return 0
	}
	f := c.number(i)
	if f < 0 || f > maxSafeInteger || f != math.Trunc(f) {
		c.badAt(key, "%s is not a non-negative safe integer", c.quote(i))
		return 0
	}
	return int64(f)
}

const maxSafeInteger = 1<<53 - 1

func (c *checker) ident(obj int, key string) string {
	i := c.require(obj, key, kindString)
	if i < 0 {
		return ""
	}
	if b := c.text(i); !isSafeIdentifier(b) {
		c.badAt(key, "%s is not a safe identifier", c.quote(i))
		return ""
	}
	return c.str(i)
}

// enum checks a string member against a set of values and returns it as
// the set's own string, so that no copy of the line is kept.
func (c *checker) enum(obj int, key string, values ...string) string {
	return c.enumAt(c.field(obj, key), key, values...)
}

// enumAt is enum for a member already looked up.
func (c *checker) enumAt(i int, key string, values ...string) string {
	if i = c.requireAt(i, key, kindString); i < 0 {
		return ""
	}
	b := c.text(i)
	for _, v := range values {
		if string(b) == v {
			return v
		}
	}
	c.badAt(key, "%s is not one of %s", c.quote(i), strings.Join(values, ", "))
	return ""
}

// event checks the whole event and returns the code for its problems.
func (c *checker) event(ev *Event) Code {
	if k := c.n(0).kind; k != kindObject {
		c.bad("the event is %s, not an object", k)
		return CodeInvalidPayload
	}
	pi, vi, ei := c.field(0, "protocol"), c.field(0, "version"), c.field(0, "event")
	ours := pi >= 0 && c.n(pi).kind == kindString && string(c.text(pi)) == Protocol
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
	if i := c.require(0, "protocol", kindString); i >= 0 && string(c.text(i)) != Protocol {
		c.badAt("protocol", "%s is not %q", c.quote(i), Protocol)
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
	ev.SessionID = c.ident(0, "sessionId")
	if c.done() {
		return
	}
	ev.TurnID = c.ident(0, "turnId")
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
			if b := c.text(i); isJSBlank(b) {
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
	s.Hash = maphash.Bytes(hashSeed, c.p.data[c.n(p).start:c.n(p).end])
	s.Status = c.enum(p, "status", "idle", "streaming", "complete", "error")
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
	switch op {
	case "":
		return Lineage{}
	case "submit":
		return Lineage{Operation: op}
	}
	return Lineage{Operation: op, ParentTurnID: c.ident(obj, "parentTurnId"), SourceMessageID: c.ident(obj, "sourceMessageId")}
}

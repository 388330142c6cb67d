package wire

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"unicode/utf8"
	"unsafe"

	"github.com/agentskit/snapctl/internal/runes"
)

// record checks the messages array m as the reference's memory record
// {version: 1, messages}: the size bounds first, then each message.
func (c *checker) record(m int, s *Snapshot) {
	c.root = m
	if c.bounds(m) && !c.all {
		return
	}
	t := c.tape()
	s.MessageCount = int(t[m].n)
	if c.messages {
		// A borrowing decoder left the array of the event's last
		// messages there, empty (Decoder.Borrow).
		if cap(s.Messages) < s.MessageCount {
			s.Messages = make([]Message, 0, s.MessageCount)
		}
		// One copy of the messages' bytes backs every string the messages
		// keep, instead of an allocation per field; or the line itself,
		// when borrowed.
		c.base = int(t[m].start)
		if raw := c.p.data[t[m].start:t[m].end]; c.borrow && len(raw) > 0 {
			c.backing = unsafe.String(&raw[0], len(raw))
		} else {
			c.backing = string(raw)
		}
	}
	ch := m + 1
	var scratch Message
	for k := 0; k < int(t[m].n); k++ {
		// Each message is checked into its place in the array, not
		// into a copy appended after (a Message is some 170 bytes);
		// one that breaks a rule is taken off again.
		msg := &scratch
		if c.messages {
			s.Messages = append(s.Messages, Message{})
			msg = &s.Messages[len(s.Messages)-1]
		}
		c.pushIdx(k)
		ok := c.message(ch, msg)
		c.pop()
		if c.messages && !ok {
			// Cleared: no string past the end may point into the line
			// (see Spare).
			*msg = Message{}
			s.Messages = s.Messages[:len(s.Messages)-1]
		}
		if c.done() {
			return
		}
		ch = int(t[ch].next)
	}
	if c.messages && c.hash {
		// Where the line is still in this core's cache: its reader may
		// run on another.
		s.IDsHash = c.idsHash(s.Messages)
		// A complete or failed turn has no unfinished reply to follow.
		if n := len(s.Messages); n > 0 && s.Status != StatusComplete && s.Status != StatusError {
			last := s.Messages[n-1].Content
			s.TailRunes, s.TailHash = runes.Count(last), TextHash(last)
		}
	}
}

// TextHash hashes text, seeded as Snapshot.Hash is: the hash of
// Snapshot.TailHash.
func TextHash(text string) uint64 { return maphash.String(hashSeed, text) }

// idsHash hashes the ids of ms, each after its length, so that no two
// sequences of ids write the same bytes.
func (c *checker) idsHash(ms []Message) uint64 {
	b := c.ids[:0]
	for i := range ms {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(ms[i].ID)))
		b = append(b, ms[i].ID...)
	}
	c.ids = b
	return max(maphash.Bytes(hashSeed, b), 1)
}

// bounds checks the record's size limits over the values that survive
// duplicate-key resolution and reports whether it found a problem. The
// record object and its version member count as two values.
func (c *checker) bounds(m int) bool {
	before := len(c.probs)
	count := 2
	if !c.p.recOdd && !c.p.alwaysWalk {
		// Nothing in the record for the walk to find but its nodes,
		// which are all live: their count is the span of m's subtree.
		if !c.done() {
			count += int(c.n(m).next) - m
		}
	} else {
		c.walk(m, &count)
	}
	if count > maxRecordValues || c.n(m).full {
		c.bad("the message record holds %d JSON values or more; at most %d are allowed", maxRecordValues+1, maxRecordValues)
	}
	return len(c.probs) > before
}

// walk counts the values below and including i and reports values that
// break a bound. It stops counting once the limit is passed.
func (c *checker) walk(i int, count *int) {
	if c.done() || *count > maxRecordValues {
		return
	}
	*count++
	n := c.n(i)
	switch n.kind {
	case kindPoison:
		c.badIn(i, "is nested deeper than %d levels", maxRecordDepth)
	case kindNumber:
		if math.IsInf(c.number(i), 0) {
			c.badIn(i, "%s overflows to infinity", c.quote(i))
		}
	case kindArray:
		if n.over {
			c.badIn(i, "has more than %d entries", maxRecordEntries)
			return
		}
		ch := i + 1
		for k := uint32(0); k < n.n; k++ {
			c.walk(ch, count)
			ch = int(c.n(ch).next)
		}
	case kindObject:
		if n.over {
			c.badIn(i, "has more than %d entries", maxRecordEntries)
			return
		}
		ch := i + 1
		for k := uint32(0); k < n.n; k++ {
			if !c.n(ch).dead {
				ck := c.n(ch)
				if c.p.keyLen(ck) > maxRecordKeyLen {
					c.badIn(ch, "key is longer than %d characters", maxRecordKeyLen)
				}
				c.walk(ch, count)
			}
			ch = int(c.n(ch).next)
		}
	}
}

// badIn reports a problem at tape node i below the messages array, whose
// path is found by descending from the array.
func (c *checker) badIn(i int, format string, args ...any) {
	keep := len(c.path)
	c.pathTo(i)
	c.bad(format, args...)
	c.path = c.path[:keep]
}

// pathTo pushes the path from the messages array (the last node pushed)
// down to tape node target.
func (c *checker) pathTo(target int) {
	t := c.tape()
	for i := c.root; i != target; {
		ch := i + 1
		for k := uint32(0); k < t[i].n && target >= int(t[ch].next); k++ {
			ch = int(t[ch].next)
		}
		if t[i].kind == kindArray {
			c.pushIdx(c.indexOf(i, ch))
		} else {
			c.push(pathKey(c.keyText(ch)))
		}
		i = ch
	}
}

// maxPathKey is how many bytes of a key a problem's path shows: a key
// that long is already too long to be valid, and a path is for reading.
const maxPathKey = 64

// pathKey is a key as a problem's path shows it: cut after maxPathKey
// bytes, on a character boundary, with "…".
func pathKey(k []byte) string {
	if len(k) <= maxPathKey {
		return string(k)
	}
	cut := maxPathKey
	for cut > 0 && !utf8.RuneStart(k[cut]) {
		cut--
	}
	return string(k[:cut]) + "…"
}

func (c *checker) indexOf(arr, ch int) int {
	k, i := 0, arr+1
	for i != ch {
		i = int(c.n(i).next)
		k++
	}
	return k
}

var (
	roles          = []string{"user", "assistant", "system", "tool"}
	messageStatus  = []string{"pending", "streaming", "complete", "error"}
	toolCallStatus = []string{"pending", "running", "complete", "error", "requires_confirmation"}
)

// The members of a message record, by slot: messages are the bulk of every
// snapshot, so their members are found in one pass over the object rather
// than one search per member.
const (
	mID = iota
	mContent
	mRole
	mStatus
	mCreatedAt
	mToolCallID
	mParts
	mToolCalls
	mMetadata
	mSlots
)

func messageSlot(key []byte) int {
	switch string(key) {
	case "id":
		return mID
	case "content":
		return mContent
	case "role":
		return mRole
	case "status":
		return mStatus
	case "createdAt":
		return mCreatedAt
	case "toolCallId":
		return mToolCallID
	case "parts":
		return mParts
	case "toolCalls":
		return mToolCalls
	case "metadata":
		return mMetadata
	}
	return -1
}

// messageFields finds the members of message object i; with repeated keys
// the last one counts.
func (c *checker) messageFields(i int) (at [mSlots]int) {
	for s := range at {
		at[s] = -1
	}
	t := c.tape()
	ch := i + 1
	for k, m := uint32(0), t[i].n; k < m; k++ {
		n := &t[ch]
		key := c.p.data[n.keyStart:n.keyEnd] // a key without escapes is its bytes
		if n.keyEsc {
			key = c.keyText(ch)
		}
		if s := messageSlot(key); s >= 0 {
			at[s] = ch
		}
		ch = int(n.next)
	}
	return at
}

// message checks one message record, as validateMessage in the reference.
func (c *checker) message(i int, m *Message) bool {
	if c.n(i).kind != kindObject {
		c.bad("must be an object, not %s", c.quote(i))
		return false
	}
	before := len(c.probs)
	at := c.messageFields(i)
	if f := c.requireAt(at[mID], "id", kindString); f >= 0 {
		if c.n(f).start == c.n(f).end {
			c.badAt("id", "is empty")
		} else if c.messages {
			m.ID = c.kept(f)
		}
	}
	if f := c.requireAt(at[mContent], "content", kindString); f >= 0 && c.messages {
		m.Content = c.kept(f)
	}
	m.Role = c.enumAt(at[mRole], "role", roles...)
	m.Status = c.enumAt(at[mStatus], "status", messageStatus...)
	if f := c.requireAt(at[mCreatedAt], "createdAt", kindString); f >= 0 {
		if !isCreatedAt(c.text(f)) {
			c.badAt("createdAt", "%s is not a real UTC instant with milliseconds (YYYY-MM-DDTHH:MM:SS.mmmZ)", c.quote(f))
		} else if c.full {
			m.CreatedAt = c.kept(f)
		}
	}
	if f, ok := c.optionalAt(at[mToolCallID], "toolCallId", kindString); ok && f >= 0 {
		m.HasToolCallID = true
		if c.full {
			m.ToolCallID = c.kept(f)
		}
	}
	if f, ok := c.optionalAt(at[mParts], "parts", kindArray); ok && f >= 0 {
		c.push("parts")
		c.each(f, c.part)
		c.pop()
		if c.full {
			m.Parts = c.kept(f)
		}
	}
	if f, ok := c.optionalAt(at[mToolCalls], "toolCalls", kindArray); ok && f >= 0 {
		m.HasToolCalls = true
		c.push("toolCalls")
		c.each(f, func(e int) {
			if tc, ok := c.toolCall(e); ok && c.full {
				m.ToolCalls = append(m.ToolCalls, tc)
			}
		})
		c.pop()
	}
	if f, ok := c.optionalAt(at[mMetadata], "metadata", kindObject); ok && f >= 0 && c.full {
		m.Metadata = c.kept(f)
	}
	return len(c.probs) == before
}

// kept returns the value of string node i, or the raw JSON of any other
// node, as a string that outlives the line: a slice of the messages'
// backing copy, unless escapes had to be decoded.
func (c *checker) kept(i int) string {
	n := c.n(i)
	if n.kind == kindString && n.esc {
		return c.str(i)
	}
	return c.backing[int(n.start)-c.base : int(n.end)-c.base]
}

// each calls fn for every element of array arr, with the index on the path.
func (c *checker) each(arr int, fn func(int)) {
	ch := arr + 1
	for k := 0; k < int(c.n(arr).n) && !c.done(); k++ {
		c.pushIdx(k)
		fn(ch)
		c.pop()
		ch = int(c.n(ch).next)
	}
}

var partTypes = []string{"text", "image", "audio", "video", "file"}

// part checks one content part, as validatePart in the reference.
func (c *checker) part(i int) {
	if c.n(i).kind != kindObject {
		c.bad("must be an object, not %s", c.quote(i))
		return
	}
	typ := c.enum(i, "type", partTypes...)
	switch typ {
	case "":
		return
	case "text":
		c.require(i, "text", kindString)
		return
	}
	c.require(i, "source", kindString)
	c.optional(i, "mimeType", kindString)
	switch typ {
	case "image":
		if f := c.field(i, "detail"); f >= 0 && !c.detailOK(f) {
			c.badAt("detail", "%s is not one of low, high, auto", c.quote(f))
		}
	case "audio", "video":
		if f, ok := c.optional(i, "durationSec", kindNumber); ok && f >= 0 {
			if v := c.number(f); math.IsInf(v, 0) || v < 0 {
				c.badAt("durationSec", "%s is not a finite number >= 0", c.quote(f))
			}
		}
	case "file":
		c.optional(i, "filename", kindString)
	}
}

// detailOK mirrors the reference's String(value.detail) check: a string in
// the set, or an array whose JavaScript string form is one (["low"]).
func (c *checker) detailOK(i int) bool {
	switch n := c.n(i); n.kind {
	case kindString:
		switch string(c.text(i)) {
		case "low", "high", "auto":
			return true
		}
	case kindArray:
		return n.n == 1 && !n.over && c.detailOK(i+1)
	}
	return false
}

// toolCall checks one tool call, as validateToolCall in the reference.
func (c *checker) toolCall(i int) (ToolCall, bool) {
	var tc ToolCall
	if c.n(i).kind != kindObject {
		c.bad("must be an object, not %s", c.quote(i))
		return tc, false
	}
	before := len(c.probs)
	for _, key := range [...]string{"id", "name"} {
		if f := c.require(i, key, kindString); f >= 0 && c.n(f).start == c.n(f).end {
			c.badAt(key, "is empty")
		}
	}
	if f := c.require(i, "args", kindObject); f >= 0 && c.full {
		tc.Args = c.kept(f)
	}
	tc.Status = c.enum(i, "status", toolCallStatus...)
	if f, ok := c.optional(i, "result", kindString); ok && f >= 0 {
		tc.HasResult = true
		if c.full {
			tc.Result = c.kept(f)
		}
	}
	if f, ok := c.optional(i, "error", kindString); ok && f >= 0 {
		tc.HasError = true
		if c.full {
			tc.Error = c.kept(f)
		}
	}
	if c.full && len(c.probs) == before {
		tc.ID = c.kept(c.field(i, "id"))
		tc.Name = c.kept(c.field(i, "name"))
	}
	return tc, len(c.probs) == before
}

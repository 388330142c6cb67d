package wire

import (
	"fmt"
	"slices"
	"strconv"
)

// kind is the JSON type of a tape node.
type kind uint8

const (
	kindNull kind = iota
	kindFalse
	kindTrue
	kindNumber
	kindString
	kindArray
	kindObject
	// kindPoison marks a value inside the message record that the parser
	// did not record because it is nested too deep to be valid. It only
	// counts if it survives duplicate-key resolution.
	kindPoison
)

func (k kind) String() string {
	switch k {
	case kindNull:
		return "null"
	case kindFalse, kindTrue:
		return "a boolean"
	case kindNumber:
		return "a number"
	case kindString:
		return "a string"
	case kindArray:
		return "an array"
	case kindObject:
		return "an object"
	}
	return "an oversized value"
}

// node is one JSON value on the tape. Offsets index the line being decoded.
// Strings span their content without quotes; containers span from the
// opening to past the closing bracket. Containers that the parser skipped
// (fields nobody validates) have no children on the tape.
type node struct {
	kind     kind
	esc      bool // string value contains escapes
	keyEsc   bool // member key contains escapes
	keyPlain bool // member key is ASCII without escapes: compare its bytes
	over     bool // container with too many entries; children not recorded
	dead     bool // member whose key a later member repeats: JSON.parse drops it
	full     bool // message record cut short: it holds more values than allowed
	start    uint32
	end      uint32
	keyStart uint32
	keyEnd   uint32
	next     uint32 // tape index just past this value's subtree
	n        uint32 // number of recorded children
}

// mode says which children of a container the parser records. Only the
// parts of an event that some rule reads are recorded; everything else is
// checked for syntax and skipped, so unknown fields cost no memory.
type mode uint8

const (
	modeTop     mode = iota // the event object: known envelope fields
	modePayload             // the payload object: known payload fields
	modeShallow             // usage, error, lineage: scalars only
	modeFull                // the messages array: everything, to bounded depth
	modeSkip                // syntax only, no children
)

// Fields that some rule reads, by the mode of their parent object. Other
// members of those objects are skipped without a node.
var (
	envelopeFields = []string{"protocol", "version", "eventId", "sessionId", "turnId", "sequence", "emittedAt", "event", "payload"}
	payloadFields  = []string{"input", "status", "usage", "messages", "error", "lineage", "version", "code", "message", "retryable"}
	shallowFields  = []string{"promptTokens", "completionTokens", "totalTokens", "version", "code", "message", "retryable", "operation", "parentTurnId", "sourceMessageId"}
)

// Bounds of the message record (json-validation in the reference). The
// record {version, messages} is depth 0, so the messages array is depth 1.
const (
	maxRecordDepth   = 32
	maxRecordValues  = 10000
	maxRecordEntries = 10000
	maxRecordKeyLen  = 256
)

// recordCap bounds the tape nodes of one message record in the first pass.
// A valid record has at most maxRecordValues values, so more nodes mean
// members dropped for repeated keys, or an invalid record.
const recordCap = 4 * maxRecordValues

// errRestart stops the first pass over a message record that outgrew
// recordCap; parser.record catches it, so it never reaches a caller.
var errRestart = &syntaxError{msg: "message record too large for the first pass"}

// syntaxError is a JSON syntax problem at a byte offset of the line. It
// holds the parts of its message, not the message: a run of broken lines
// formats it only when it differs from the line before (Decoder.syntax),
// and the parts make it comparable.
type syntaxError struct {
	off int
	msg string // what is wrong, unless the offending byte c says it
	c   byte
	// want is what was expected instead of c; a control character c in a
	// string has neither msg nor want.
	want string
}

func (e *syntaxError) Error() string {
	return "invalid JSON at byte " + strconv.Itoa(e.off) + ": " + e.detail()
}

func (e *syntaxError) detail() string {
	switch {
	case e.msg != "":
		return e.msg
	case e.want == "":
		return fmt.Sprintf("control character 0x%02x in a string", e.c)
	case e.c >= 0x20 && e.c < 0x7f:
		return fmt.Sprintf("unexpected %q, expected %s", rune(e.c), e.want)
	}
	return fmt.Sprintf("unexpected byte 0x%02x, expected %s", e.c, e.want)
}

// parser turns one line into a tape of the recorded values. It owns its
// buffers and reuses them from line to line.
type parser struct {
	data     []byte
	tape     []node
	skipBuf  []uint64 // bit stack for skipValue: 1 = object
	scratch  []byte   // decoded strings for comparisons
	scratch2 []byte
	err      syntaxError
	// fields holds, for the open object of each mode above the message
	// record, the tape index of its member for each known field, or -1.
	fields [modeFull][10]int32
	// keys indexes the members of the open objects of the message record,
	// one per depth, so that a repeated key is found in constant time.
	keys []keySet
	// recStart is the tape index of the message record being parsed.
	recStart int
	// recOdd is set once the record being parsed has a node the
	// checker's walk must see (checker.bounds): a member marked dead, an
	// object or array over its bound, a value nested too deep, a number
	// with an exponent or of over 300 bytes (which may overflow), a key
	// of more bytes than maxRecordKeyLen. Without one, its walk would only
	// count the record's nodes, all live: the span of its subtree.
	recOdd bool
	// alwaysWalk makes the checker walk every record, so that tests can
	// compare the two.
	alwaysWalk bool
	// prescan is set while a message record is parsed the second way:
	// each object's keys first, then only the members that survive.
	prescan bool
	// ends maps the offset of a big container that skipFast passed over
	// to the offset past it, for this line (see endsMin); endsSeen has
	// the endsBit of each offset in ends; opens holds the offsets of the
	// containers a skipFast is inside.
	ends     map[uint32]uint32
	endsSeen uint64
	opens    [maxRecordDepth]uint32
	// restartAt overrides recordCap when positive, so that tests can
	// send every record down the prescan path.
	restartAt int
	// work counts the steps whose number could grow faster than the line
	// (key comparisons, index operations, moved nodes, prescanned
	// members), so that tests can check it stays linear.
	work int
}

var jsonSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// strByte is true for bytes that end the fast path of a string scan.
var strByte = func() (t [256]bool) {
	for i := 0; i < 0x20; i++ {
		t[i] = true
	}
	t['"'] = true
	t['\\'] = true
	return t
}()

func (p *parser) fail(off int, msg string) *syntaxError {
	p.err = syntaxError{off: off, msg: msg}
	return &p.err
}

func (p *parser) ws(i int) int {
	// Compact JSON, the common case, has none: a byte above the space
	// is none, without the table.
	if i < len(p.data) && p.data[i] > ' ' {
		return i
	}
	for i < len(p.data) && jsonSpace[p.data[i]] {
		i++
	}
	return i
}

func (p *parser) unexpected(i int, want string) *syntaxError {
	if i >= len(p.data) {
		return p.fail(i, "unexpected end of input")
	}
	p.err = syntaxError{off: i, c: p.data[i], want: want}
	return &p.err
}

// parse records data on the tape. It returns a syntax error for anything
// JSON.parse would reject.
func (p *parser) parse(data []byte) *syntaxError {
	p.data = data
	p.tape = p.tape[:0]
	p.work = 0
	if p.endsSeen != 0 {
		p.ends, p.endsSeen = nil, 0 // rarely used, and sized by the line before
	}
	i := p.ws(0)
	if i >= len(data) {
		return p.fail(i, "unexpected end of input")
	}
	m := modeTop
	if data[i] != '{' {
		m = modeSkip
	}
	i, err := p.value(i, m, 0, 0, 0, false, true)
	if err != nil {
		return err
	}
	if i = p.ws(i); i < len(data) {
		return p.fail(i, "unexpected data after the JSON value")
	}
	return nil
}

// value records the value at data[i] as a node whose children follow the
// given mode, and returns the offset just past it. Recursion is bounded:
// only modeFull nests, and it stops recording at maxRecordDepth.
func (p *parser) value(i int, m mode, depth int, ks, ke uint32, kesc, kplain bool) (int, *syntaxError) {
	idx := len(p.tape)
	p.tape = append(p.tape, node{keyStart: ks, keyEnd: ke, keyEsc: kesc, start: uint32(i),
		keyPlain: kplain})
	var err *syntaxError
	switch c := p.data[i]; c {
	case '"':
		var esc bool
		var end int
		end, esc, _, err = p.scanString(i)
		if err != nil {
			return 0, err
		}
		p.tape[idx].kind, p.tape[idx].esc = kindString, esc
		p.tape[idx].start, p.tape[idx].end = uint32(i+1), uint32(end-1)
		i = end
	case '{', '[':
		p.tape[idx].kind = kindArray
		if c == '{' {
			p.tape[idx].kind = kindObject
		}
		if m == modeSkip {
			i, err = p.skipValue(i)
		} else if c == '{' {
			i, err = p.object(i, idx, m, depth)
		} else {
			i, err = p.array(i, idx, m, depth)
		}
		if err != nil {
			return 0, err
		}
		p.tape[idx].end = uint32(i)
	default:
		var k kind
		k, i, err = p.scalar(i)
		if err != nil {
			return 0, err
		}
		p.tape[idx].kind, p.tape[idx].end = k, uint32(i)
		if k == kindNumber && m == modeFull && mayOverflow(p.data[p.tape[idx].start:i]) {
			p.recOdd = true
		}
	}
	p.tape[idx].next = uint32(len(p.tape))
	return i, nil
}

// The known fields whose values are containers with recorded children.
var (
	envPayload = slices.Index(envelopeFields, "payload")
	plMessages = slices.Index(payloadFields, "messages")
	plUsage    = slices.Index(payloadFields, "usage")
	plError    = slices.Index(payloadFields, "error")
	plLineage  = slices.Index(payloadFields, "lineage")
)

// childMode says how a member of a container in mode m is recorded. Above
// the message record it also returns the member's index in its mode's
// list of known fields; -1 means the member is not recorded at all.
func (p *parser) childMode(m mode, key []byte, kesc bool) (mode, int) {
	switch m {
	case modeTop:
		f := p.keyIndex(key, kesc, envelopeFields)
		if f == envPayload {
			return modePayload, f
		}
		return modeSkip, f
	case modePayload:
		f := p.keyIndex(key, kesc, payloadFields)
		switch f {
		case plMessages:
			return modeFull, f
		case plUsage, plError, plLineage:
			return modeShallow, f
		}
		return modeSkip, f
	case modeShallow:
		return modeSkip, p.keyIndex(key, kesc, shallowFields)
	case modeFull:
		return modeFull, 0
	}
	return modeSkip, -1
}

// keyIndex is the index of a key in names, or -1.
func (p *parser) keyIndex(key []byte, esc bool, names []string) int {
	key = unescaped(key, esc, &p.scratch)
	for i, n := range names {
		if string(key) == n {
			return i
		}
	}
	return -1
}

func (p *parser) object(i, idx int, m mode, depth int) (int, *syntaxError) {
	if m < modeFull {
		for f := range p.fields[m] {
			p.fields[m][f] = -1
		}
	}
	if m == modeFull {
		if p.prescan {
			return p.survivors(i, idx, depth)
		}
		p.keySet(depth).reset()
	}
	end, err := p.eachMember(i, func(v int, ks, ke uint32, kesc, kplain bool) (int, *syntaxError) {
		end, err := p.member(v, idx, m, depth, ks, ke, kesc, kplain)
		if err == nil && p.tape[idx].over {
			return 0, errOver // too many entries: the rest is only checked
		}
		return end, err
	})
	if err == errOver {
		return p.skipValue(i)
	}
	return end, err
}

func (p *parser) array(i, idx int, m mode, depth int) (int, *syntaxError) {
	open := i
	i = p.ws(i + 1)
	if i < len(p.data) && p.data[i] == ']' {
		return i + 1, nil
	}
	for {
		if i >= len(p.data) {
			return 0, p.unexpected(i, "a value")
		}
		var err *syntaxError
		if i, err = p.member(i, idx, m, depth, 0, 0, false, true); err != nil {
			return 0, err
		}
		if p.tape[idx].over {
			return p.skipValue(open)
		}
		i = p.ws(i)
		if i < len(p.data) && p.data[i] == ',' {
			i = p.ws(i + 1)
			continue
		}
		if i < len(p.data) && p.data[i] == ']' {
			return i + 1, nil
		}
		return 0, p.unexpected(i, "',' or ']'")
	}
}

// member records one child of the container at tape[idx]. depth counts
// from the message record (the messages array is depth 1) once in modeFull.
func (p *parser) member(i, idx int, m mode, depth int, ks, ke uint32, kesc, kplain bool) (int, *syntaxError) {
	// Inside the message record every member is recorded (childMode),
	// told here without the call: most members are there.
	cm, field := modeFull, 0
	if m != modeFull {
		if cm, field = p.childMode(m, p.data[ks:ke], kesc); field < 0 {
			return p.skipValue(i)
		}
	}
	if m == modeFull {
		if ke-ks > maxRecordKeyLen {
			p.recOdd = true // a key's characters are at most its bytes
		}
		if p.tape[p.recStart].full {
			return p.skipValue(i)
		}
		if !p.prescan {
			if n := len(p.tape) - p.recStart; n >= recordCap || (p.restartAt > 0 && n >= p.restartAt) {
				return 0, errRestart
			}
		} else if len(p.tape)-p.recStart > maxRecordValues {
			// Every node of a prescanned record survives: this many
			// already break the value bound, whatever follows.
			p.tape[p.recStart].full = true
			return p.skipValue(i)
		}
	}
	if m < modeFull {
		// JSON.parse keeps the last member with a key: drop an earlier one.
		at := &p.fields[m][field]
		if *at >= 0 {
			p.drop(idx, int(*at), m)
		}
		*at = int32(len(p.tape))
	} else if p.tape[idx].kind == kindObject && !p.prescan && !p.newKey(idx, depth, ks, ke, kplain) {
		if p.repeated(idx, depth, ks, ke, kesc, kplain) {
			return p.skipValue(i) // the object has too many keys: see over
		}
	}
	p.tape[idx].n++
	if m == modeFull && p.tape[idx].n > maxRecordEntries && p.tape[idx].kind == kindArray {
		// Too many entries to be valid: stop recording this array.
		p.tape = p.tape[:idx+1]
		p.tape[idx].over, p.tape[idx].n = true, 0
		p.recOdd = true
		return i, nil
	}
	if m == modeFull && depth+1 > maxRecordDepth {
		ci := len(p.tape)
		end, err := p.skipValue(i)
		if err != nil {
			return 0, err
		}
		p.recOdd = true
		p.tape = append(p.tape, node{kind: kindPoison, start: uint32(i), end: uint32(end),
			keyStart: ks, keyEnd: ke, keyEsc: kesc, next: uint32(ci + 1), keyPlain: kplain})
		return end, nil
	}
	if cm == modeFull && m != modeFull {
		return p.record(i, ks, ke, kesc, kplain)
	}
	return p.value(i, cm, depth+1, ks, ke, kesc, kplain)
}

// record parses the messages array, the message record. The first pass
// records every value, dropping members whose key repeats as it goes. A
// record that still needs more than recordCap nodes (hostile repeated
// keys, or far more values than valid) is parsed again with prescan, which
// records only surviving members and stops once the value bound is broken,
// so the tape never outgrows a fixed size whatever the line holds.
func (p *parser) record(i int, ks, ke uint32, kesc, kplain bool) (int, *syntaxError) {
	p.recStart, p.recOdd = len(p.tape), false
	end, err := p.value(i, modeFull, 1, ks, ke, kesc, kplain)
	if err == errRestart {
		p.tape, p.recOdd = p.tape[:p.recStart], false
		p.prescan = true
		end, err = p.value(i, modeFull, 1, ks, ke, kesc, kplain)
		p.prescan = false
	}
	return end, err
}

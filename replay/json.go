package replay

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
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
	over     bool // container with too many entries; children not recorded
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

// syntaxError is a JSON syntax problem at a byte offset of the line.
type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.off, e.msg)
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

func (p *parser) fail(off int, format string, args ...any) *syntaxError {
	p.err = syntaxError{off: off, msg: fmt.Sprintf(format, args...)}
	return &p.err
}

func (p *parser) ws(i int) int {
	for i < len(p.data) && jsonSpace[p.data[i]] {
		i++
	}
	return i
}

func (p *parser) unexpected(i int, want string) *syntaxError {
	if i >= len(p.data) {
		return p.fail(i, "unexpected end of input")
	}
	c := p.data[i]
	if c >= 0x20 && c < 0x7f {
		return p.fail(i, "unexpected %q, expected %s", rune(c), want)
	}
	return p.fail(i, "unexpected byte 0x%02x, expected %s", c, want)
}

// parse records data on the tape. It returns a syntax error for anything
// JSON.parse would reject.
func (p *parser) parse(data []byte) *syntaxError {
	p.data = data
	p.tape = p.tape[:0]
	i := p.ws(0)
	if i >= len(data) {
		return p.fail(i, "unexpected end of input")
	}
	m := modeTop
	if data[i] != '{' {
		m = modeSkip
	}
	i, err := p.value(i, m, 0, 0, 0, false)
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
func (p *parser) value(i int, m mode, depth int, ks, ke uint32, kesc bool) (int, *syntaxError) {
	idx := len(p.tape)
	p.tape = append(p.tape, node{keyStart: ks, keyEnd: ke, keyEsc: kesc, start: uint32(i)})
	var err *syntaxError
	switch c := p.data[i]; c {
	case '"':
		var esc bool
		var end int
		end, esc, err = p.scanString(i)
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
	}
	p.tape[idx].next = uint32(len(p.tape))
	return i, nil
}

// childMode says how a member of a container in mode m is recorded, and
// reports false when it is not recorded at all.
func (p *parser) childMode(m mode, key []byte, kesc bool) (mode, bool) {
	switch m {
	case modeTop:
		if p.keyIs(key, kesc, "payload") {
			return modePayload, true
		}
		return modeSkip, p.keyIn(key, kesc, envelopeFields)
	case modePayload:
		if p.keyIs(key, kesc, "messages") {
			return modeFull, true
		}
		if p.keyIs(key, kesc, "usage") || p.keyIs(key, kesc, "error") || p.keyIs(key, kesc, "lineage") {
			return modeShallow, true
		}
		return modeSkip, p.keyIn(key, kesc, payloadFields)
	case modeShallow:
		return modeSkip, p.keyIn(key, kesc, shallowFields)
	case modeFull:
		return modeFull, true
	}
	return modeSkip, false
}

func (p *parser) keyIn(key []byte, esc bool, names []string) bool {
	if esc {
		p.scratch = appendUnescaped(p.scratch[:0], key)
		key = p.scratch
	}
	for _, n := range names {
		if string(key) == n {
			return true
		}
	}
	return false
}

func (p *parser) keyIs(key []byte, esc bool, want string) bool {
	if !esc {
		return string(key) == want
	}
	p.scratch = appendUnescaped(p.scratch[:0], key)
	return string(p.scratch) == want
}

func (p *parser) object(i, idx int, m mode, depth int) (int, *syntaxError) {
	open := i
	i = p.ws(i + 1)
	if i < len(p.data) && p.data[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(p.data) || p.data[i] != '"' {
			return 0, p.unexpected(i, "a string key")
		}
		kend, kesc, err := p.scanString(i)
		if err != nil {
			return 0, err
		}
		ks, ke := uint32(i+1), uint32(kend-1)
		i = p.ws(kend)
		if i >= len(p.data) || p.data[i] != ':' {
			return 0, p.unexpected(i, "':'")
		}
		i = p.ws(i + 1)
		if i >= len(p.data) {
			return 0, p.unexpected(i, "a value")
		}
		if i, err = p.member(i, idx, m, depth, ks, ke, kesc); err != nil {
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
		if i < len(p.data) && p.data[i] == '}' {
			return i + 1, nil
		}
		return 0, p.unexpected(i, "',' or '}'")
	}
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
		if i, err = p.member(i, idx, m, depth, 0, 0, false); err != nil {
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
func (p *parser) member(i, idx int, m mode, depth int, ks, ke uint32, kesc bool) (int, *syntaxError) {
	cm, record := p.childMode(m, p.data[ks:ke], kesc)
	if !record {
		return p.skipValue(i)
	}
	p.tape[idx].n++
	if m == modeFull && p.tape[idx].n > maxRecordEntries && p.tape[idx].kind == kindArray {
		// Too many entries to be valid: stop recording this array. Objects
		// are kept, since repeated keys may leave few members.
		p.tape = p.tape[:idx+1]
		p.tape[idx].over, p.tape[idx].n = true, 0
		return i, nil
	}
	if m == modeFull && depth+1 > maxRecordDepth {
		ci := len(p.tape)
		end, err := p.skipValue(i)
		if err != nil {
			return 0, err
		}
		p.tape = append(p.tape, node{kind: kindPoison, start: uint32(i), end: uint32(end),
			keyStart: ks, keyEnd: ke, keyEsc: kesc, next: uint32(ci + 1)})
		return end, nil
	}
	if cm == modeFull && m != modeFull {
		return p.value(i, cm, 1, ks, ke, kesc)
	}
	return p.value(i, cm, depth+1, ks, ke, kesc)
}

// scalar scans a number or literal at data[i].
func (p *parser) scalar(i int) (kind, int, *syntaxError) {
	d := p.data
	switch d[i] {
	case 't':
		if len(d)-i >= 4 && string(d[i:i+4]) == "true" {
			return kindTrue, i + 4, nil
		}
	case 'f':
		if len(d)-i >= 5 && string(d[i:i+5]) == "false" {
			return kindFalse, i + 5, nil
		}
	case 'n':
		if len(d)-i >= 4 && string(d[i:i+4]) == "null" {
			return kindNull, i + 4, nil
		}
	default:
		if d[i] == '-' || (d[i] >= '0' && d[i] <= '9') {
			end, err := p.scanNumber(i)
			return kindNumber, end, err
		}
		return 0, 0, p.unexpected(i, "a value")
	}
	return 0, 0, p.fail(i, "invalid literal")
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (p *parser) scanNumber(i int) (int, *syntaxError) {
	d := p.data
	start := i
	if d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	default:
		return 0, p.fail(i, "invalid number")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || !isDigit(d[i]) {
			return 0, p.fail(i, "invalid number")
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || !isDigit(d[i]) {
			return 0, p.fail(i, "invalid number")
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	if i < len(d) && isDigit(d[i]) && i > start {
		// "01": a leading zero followed by more digits.
		return 0, p.fail(i, "invalid number")
	}
	return i, nil
}

// scanString scans the string whose opening quote is at data[i] and
// returns the offset past its closing quote and whether it has escapes.
func (p *parser) scanString(i int) (int, bool, *syntaxError) {
	d := p.data
	esc := false
	i++
	for {
		// Eight bytes at a time while none of them can end the fast path
		// (a quote, a backslash or a control character): most of a
		// capture is message text.
		for i+8 <= len(d) {
			x := binary.LittleEndian.Uint64(d[i:])
			if hasLess(x, 0x20)|hasZero(x^(0x22*lsb))|hasZero(x^(0x5c*lsb)) != 0 {
				break
			}
			i += 8
		}
		for i < len(d) && !strByte[d[i]] {
			i++
		}
		if i >= len(d) {
			return 0, false, p.fail(i, "unexpected end of input in a string")
		}
		switch c := d[i]; {
		case c == '"':
			return i + 1, esc, nil
		case c == '\\':
			esc = true
			if i+1 >= len(d) {
				return 0, false, p.fail(i+1, "unexpected end of input in a string")
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(d)-i < 6 || !isHex4(d[i+2:i+6]) {
					return 0, false, p.fail(i, "invalid \\u escape")
				}
				i += 6
			default:
				return 0, false, p.fail(i, "invalid escape")
			}
		default:
			return 0, false, p.fail(i, "control character 0x%02x in a string", c)
		}
	}
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// hasZero is non-zero when some byte of x is zero.
func hasZero(x uint64) uint64 { return (x - lsb) &^ x & msb }

// hasLess is non-zero when some byte of x is below n (n <= 128).
func hasLess(x uint64, n uint64) uint64 { return (x - n*lsb) &^ x & msb }

func isHex4(b []byte) bool {
	for _, c := range b[:4] {
		if !(isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) {
			return false
		}
	}
	return true
}

// skipValue checks the syntax of the value at data[i] without recording
// it and returns the offset past it. It does not recurse, so nesting depth
// costs one bit per level.
func (p *parser) skipValue(i int) (int, *syntaxError) {
	d := p.data
	depth := 0
	stack := p.skipBuf[:0]
	push := func(obj bool) {
		w, b := depth/64, uint(depth%64)
		if w == len(stack) {
			stack = append(stack, 0)
		}
		if obj {
			stack[w] |= 1 << b
		} else {
			stack[w] &^= 1 << b
		}
		depth++
	}
	topObj := func() bool {
		return stack[(depth-1)/64]&(1<<uint((depth-1)%64)) != 0
	}
	defer func() { p.skipBuf = stack }()
	var err *syntaxError
value:
	if i >= len(d) {
		return 0, p.unexpected(i, "a value")
	}
	switch d[i] {
	case '"':
		if i, _, err = p.scanString(i); err != nil {
			return 0, err
		}
	case '{':
		push(true)
		i = p.ws(i + 1)
		if i < len(d) && d[i] == '}' {
			depth--
			i++
			break
		}
		goto key
	case '[':
		push(false)
		i = p.ws(i + 1)
		if i < len(d) && d[i] == ']' {
			depth--
			i++
			break
		}
		goto value
	default:
		if _, i, err = p.scalar(i); err != nil {
			return 0, err
		}
	}
	// After a value: close containers or move to the next member.
	for depth > 0 {
		i = p.ws(i)
		if i >= len(d) {
			return 0, p.unexpected(i, "',' or a closing bracket")
		}
		obj := topObj()
		switch c := d[i]; {
		case c == ',':
			i = p.ws(i + 1)
			if obj {
				goto key
			}
			goto value
		case c == '}' && obj, c == ']' && !obj:
			depth--
			i++
		default:
			if obj {
				return 0, p.unexpected(i, "',' or '}'")
			}
			return 0, p.unexpected(i, "',' or ']'")
		}
	}
	return i, nil
key:
	if i >= len(d) || d[i] != '"' {
		return 0, p.unexpected(i, "a string key")
	}
	if i, _, err = p.scanString(i); err != nil {
		return 0, err
	}
	i = p.ws(i)
	if i >= len(d) || d[i] != ':' {
		return 0, p.unexpected(i, "':'")
	}
	i = p.ws(i + 1)
	goto value
}

// appendUnescaped appends the decoded content of a JSON string (without
// quotes) to dst. Lone surrogates, which JavaScript keeps, become U+FFFD.
func appendUnescaped(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			j := i + 1
			for j < len(s) && s[j] != '\\' {
				j++
			}
			dst = append(dst, s[i:j]...)
			i = j
			continue
		}
		switch s[i+1] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := rune(hexVal(s[i+2 : i+6]))
			i += 6
			if utf16.IsSurrogate(r) && r < 0xdc00 && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
				r2 := rune(hexVal(s[i+2 : i+6]))
				if r2 >= 0xdc00 && r2 < 0xe000 {
					r = utf16.DecodeRune(r, r2)
					i += 6
				}
			}
			dst = utf8.AppendRune(dst, r) // a lone surrogate encodes as U+FFFD
			continue
		default: // " \ /
			dst = append(dst, s[i+1])
		}
		i += 2
	}
	return dst
}

func hexVal(b []byte) uint32 {
	var v uint32
	for _, c := range b[:4] {
		v <<= 4
		switch {
		case c <= '9':
			v |= uint32(c - '0')
		case c >= 'a':
			v |= uint32(c - 'a' + 10)
		default:
			v |= uint32(c - 'A' + 10)
		}
	}
	return v
}

// parseNumber converts a JSON number literal the way JSON.parse does:
// to the nearest float64, overflowing to ±Inf.
func parseNumber(b []byte) float64 {
	// Short integers are common (sequence, tokens): no strconv needed.
	if len(b) > 0 && len(b) <= 15 {
		neg := b[0] == '-'
		digits := b
		if neg {
			digits = b[1:]
		}
		var v int64
		ok := len(digits) > 0
		for _, c := range digits {
			if !isDigit(c) {
				ok = false
				break
			}
			v = v*10 + int64(c-'0')
		}
		if ok {
			if neg {
				return -float64(v)
			}
			return float64(v)
		}
	}
	f, _ := strconv.ParseFloat(string(b), 64)
	return f
}

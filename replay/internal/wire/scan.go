package wire

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// The scanners below check JSON syntax exactly as JSON.parse does and
// record nothing: numbers, literals, strings, and whole values skipped
// without recursion.

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
	if lit := literals[d[i]]; len(d)-i < len(lit) && string(d[i:]) == lit[:len(d)-i] {
		// "tru" at the end: the line stops inside the literal (cut
		// short, Result.Cut), which is the error's place.
		return 0, 0, p.fail(len(d), "unexpected end of input")
	}
	return 0, 0, p.fail(i, "invalid literal")
}

// literals are JSON's literals, by their first byte.
var literals = [256]string{'t': "true", 'f': "false", 'n': "null"}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// mayOverflow reports whether the number b might overflow to infinity:
// one with an exponent, or of more than 300 bytes.
func mayOverflow(b []byte) bool {
	if len(b) > 300 {
		return true
	}
	for _, c := range b {
		if c|0x20 == 'e' {
			return true
		}
	}
	return false
}

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
// returns the offset past its closing quote, whether it has escapes, and,
// for a string of fewer than shortRun bytes, whether it is plain: no
// escape, and every byte ASCII (a key's node and its repeated-key check
// compare a plain key's bytes). That is told by the words the scan reads
// anyway; for a longer string plain is false, and isASCII tells
// (plainKey).
func (p *parser) scanString(i int) (end int, esc, plain bool, err *syntaxError) {
	d := p.data
	i++
	// hi gathers the bytes of the short run before its end; long, that
	// the run went on past it.
	var hi uint64
	long := false
	for {
		// Eight bytes at a time for a short run (most strings are ids,
		// roles, statuses and times), then longRun for a long one.
		for k := 0; ; k++ {
			if i+8 > len(d) {
				for i < len(d) && !strByte[d[i]] {
					hi |= uint64(d[i])
					i++
				}
				break
			}
			x := binary.LittleEndian.Uint64(d[i:])
			if m := hasLess(x, 0x20) | hasZero(x^(0x22*lsb)) | hasZero(x^(0x5c*lsb)); m != 0 {
				// The bytes before the one that ends the run.
				n := bits.TrailingZeros64(m) / 8
				hi |= x & (1<<(8*n) - 1)
				i += n
				break
			}
			hi |= x
			if i += 8; k == shortRun/8-1 {
				i, long = longRun(d, i), true
				break
			}
		}
		if i >= len(d) {
			return 0, false, false, p.fail(i, "unexpected end of input in a string")
		}
		switch c := d[i]; {
		case c == '"':
			return i + 1, esc, !esc && !long && hi&msb == 0, nil
		case c == '\\':
			esc = true
			if i+1 >= len(d) {
				return 0, false, false, p.fail(i+1, "unexpected end of input in a string")
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(d)-i < 6 || !isHex4(d[i+2:i+6]) {
					if len(d)-i < 6 && isHexRun(d[i+2:]) {
						// "\u00" at the end: the line stops inside
						// the escape (cut short, Result.Cut).
						return 0, false, false, p.fail(len(d), "unexpected end of input in a string")
					}
					return 0, false, false, p.fail(i, "invalid \\u escape")
				}
				i += 6
			default:
				return 0, false, false, p.fail(i, "invalid escape")
			}
		default:
			p.err = syntaxError{off: i, c: c}
			return 0, false, false, &p.err
		}
	}
}

// shortRun is the length from which scanString leaves a run to longRun:
// its first words, eight bytes each.
const shortRun = 32

// plainKey reports whether the key data[ks:ke] is ASCII without escapes,
// given what scanString told of it.
func (p *parser) plainKey(ks, ke uint32, kesc, plain bool) bool {
	if kesc || ke-ks < shortRun {
		return plain
	}
	return isASCII(p.data[ks:ke])
}

// longRun returns the offset of the first byte at or after i that ends
// the fast path of a string scan (a quote, a backslash or a control
// character), or len(d), for a run already long.
func longRun(d []byte, i int) int {
	if i += plainPrefix(d[i:]); i < len(d) && strByte[d[i]] {
		return i
	}
	// Message text: the quote and the backslash by
	// bytes.IndexByte, which is vectorized, and the control characters by
	// one test a word, in chunks that double from 64 bytes, so that no
	// byte is looked at more than a few times past the end of the run,
	// however many escapes a string holds.
	for n := 64; i < len(d); n = min(2*n, 4096) {
		c := d[i:min(i+n, len(d))]
		end := len(c)
		if q := bytes.IndexByte(c, '"'); q >= 0 {
			end = q
		}
		if b := bytes.IndexByte(c[:end], '\\'); b >= 0 {
			end = b
		}
		if k := firstControl(c[:end]); k >= 0 {
			end = k
		}
		if end < len(c) {
			return i + end
		}
		i += len(c)
	}
	return len(d)
}

// firstControl returns the offset of the first byte of b below 0x20, or
// -1: four words a test while there is none.
func firstControl(b []byte) int {
	i := 0
	for ; i+32 <= len(b); i += 32 {
		w := b[i : i+32 : i+32]
		m := hasLess(binary.LittleEndian.Uint64(w), 0x20) | hasLess(binary.LittleEndian.Uint64(w[8:]), 0x20) |
			hasLess(binary.LittleEndian.Uint64(w[16:]), 0x20) | hasLess(binary.LittleEndian.Uint64(w[24:]), 0x20)
		if m != 0 {
			break
		}
	}
	for ; i+8 <= len(b); i += 8 {
		if m := hasLess(binary.LittleEndian.Uint64(b[i:]), 0x20); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if b[i] < 0x20 {
			return i
		}
	}
	return -1
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// hasZero is non-zero when some byte of x is zero. Its lowest set bit is
// always that of a zero byte: a byte above a zero one may be flagged by
// the borrow, none below it.
func hasZero(x uint64) uint64 { return (x - lsb) &^ x & msb }

// hasLess is non-zero when some byte of x is below n (n <= 128).
func hasLess(x uint64, n uint64) uint64 { return (x - n*lsb) &^ x & msb }

func isHex4(b []byte) bool { return isHexRun(b[:4]) }

// isHexRun says whether every byte of b is a hex digit.
func isHexRun(b []byte) bool {
	for _, c := range b {
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
		if i, _, _, err = p.scanString(i); err != nil {
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
	if i, _, _, err = p.scanString(i); err != nil {
		return 0, err
	}
	i = p.ws(i)
	if i >= len(d) || d[i] != ':' {
		return 0, p.unexpected(i, "':'")
	}
	i = p.ws(i + 1)
	goto value
}

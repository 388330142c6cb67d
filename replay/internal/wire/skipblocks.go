package wire

import (
	"encoding/binary"
	"math/bits"
)

// blockStops is how many quotes and brackets skipFast meets one at a
// time inside a container before it passes over the rest 64 bytes at a
// time (skipBlocks): a small value ends sooner, where a block would cost
// more than its few stops.
const blockStops = 16

// skipBlocks passes over the inside of a container from data[j], at
// depth (at least 1) and outside any string, a block of 64 bytes at a
// time: masks of its quotes, backslashes and brackets, which strings the
// block is in (each quote not escaped toggles), and so which brackets
// count. It checks nothing else, not even what skipFast's scanString
// checks of a string, and reads a backslash outside a string as an
// escape: on bad syntax its end may be wrong, and the pass that follows
// (survivors) finds the error. When the container
// ends, it returns the offset past it and done; otherwise, where fewer
// than 64 bytes are left, the offset to go on from one byte at a time
// and the depth there: the start of the string the last block ended in,
// if it did, so that nothing is resumed inside a string.
func (p *parser) skipBlocks(j, depth int) (next, nextDepth int, done bool) {
	d := p.data
	var inString uint64 // all ones while the scan is inside a string
	escapedFirst := false
	strStart := j
	for ; j+64 <= len(d); j += 64 {
		quote, backslash, open, close := blockMasks(d[j : j+64])
		// Each backslash not itself escaped escapes the byte after it.
		var escaped uint64
		if escapedFirst {
			escaped, backslash = 1, backslash&^1
		}
		escapedFirst = false
		for backslash != 0 {
			k := uint(bits.TrailingZeros64(backslash))
			if k == 63 {
				escapedFirst = true
				break
			}
			escaped |= 1 << (k + 1)
			backslash &^= 3 << k
		}
		quote &^= escaped
		// A byte is in a string when an odd number of quotes is at or
		// before it: the opening quote is in, the closing one out.
		in := prefixXor(quote) ^ inString
		for st := (open | close) &^ in; st != 0; st &= st - 1 {
			k := bits.TrailingZeros64(st)
			if open>>k&1 != 0 {
				depth = p.enter(depth, j+k)
			} else if depth = p.leave(depth, j+k); depth == 0 {
				return j + k + 1, 0, true
			}
		}
		if inString = uint64(int64(in) >> 63); inString != 0 && quote != 0 {
			strStart = j + 63 - bits.LeadingZeros64(quote)
		}
	}
	if inString != 0 {
		return strStart, depth, false
	}
	return j, depth, false
}

// blockMasks returns, for the 64 bytes of b, a bit for each quote, each
// backslash, each opening bracket ('{' or '[') and each closing one.
func blockMasks(b []byte) (quote, backslash, open, close uint64) {
	_ = b[63]
	for k := 0; k < 64; k += 8 {
		x := binary.LittleEndian.Uint64(b[k:])
		y := x | 0x2020202020202020 // [ and ] as { and }, as in skipFast
		quote |= byteBits(x^('"'*lsb)) << k
		backslash |= byteBits(x^('\\'*lsb)) << k
		open |= byteBits(y^('{'*lsb)) << k
		close |= byteBits(y^('}'*lsb)) << k
	}
	return
}

// byteBits returns a bit for each zero byte of x, the lowest for its
// lowest byte: exactly the zero bytes, unlike hasZero.
func byteBits(x uint64) uint64 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	z := ^((x&low7 + low7) | x | low7) // 0x80 in each zero byte
	return (z >> 7) * 0x0102040810204080 >> 56
}

// prefixXor returns the parity of the bits of x at or below each bit.
func prefixXor(x uint64) uint64 {
	x ^= x << 1
	x ^= x << 2
	x ^= x << 4
	x ^= x << 8
	x ^= x << 16
	x ^= x << 32
	return x
}

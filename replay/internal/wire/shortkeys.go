package wire

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
)

// shortKey is the longest canonical key a shortKeys table holds: two
// words, compared and hashed without a call.
const shortKey = 16

// shortSeed keys shortKeys' hash, drawn for each process: a capture
// cannot choose keys that fall in one run of the table, since it cannot
// know where any key falls.
var shortSeed = [2]uint64{rand.Uint64(), rand.Uint64()}

// shortKeys maps canonical keys of at most shortKey bytes to their slots
// in a keySet: an open-addressing table, probed linearly, at most three
// quarters full: the 10,001 keys an object may reach (maxRecordEntries)
// take 16,384 entries, 384 KiB, about what the Go map took.
type shortKeys struct {
	tab  []shortEntry
	used int
}

type shortEntry struct {
	lo, hi uint64 // the key's bytes, zero-padded
	n      uint32 // the key's length + 1; 0 is an empty entry
	slot   int32
}

// find returns the slot of key, or, when the key is new, adds it with
// slot next and reports so.
func (t *shortKeys) find(key []byte, next int32) (slot int32, added bool) {
	if 4*(t.used+1) > 3*len(t.tab) {
		t.grow()
	}
	var b [shortKey]byte
	copy(b[:], key)
	lo, hi := binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:])
	n := uint32(len(key)) + 1
	mask := uint64(len(t.tab) - 1)
	for i := shortHash(lo, hi, n) & mask; ; i = (i + 1) & mask {
		e := &t.tab[i]
		if e.n == 0 {
			*e = shortEntry{lo: lo, hi: hi, n: n, slot: next}
			t.used++
			return next, true
		}
		if e.lo == lo && e.hi == hi && e.n == n {
			return e.slot, false
		}
	}
}

// shortHash mixes a key's words and length with the seed: the two halves
// of a 128-bit product, folded (as wyhash does), then avalanched (the
// finalizer of splitmix64). Folded alone, keys that differ only in the
// top byte of each word differ in the low bits of the fold by about a
// linear function of those bytes, and fell in runs of the table: 146
// probes a lookup for the worst of 2,000 seeds.
func shortHash(lo, hi uint64, n uint32) uint64 {
	h, l := bits.Mul64(lo^shortSeed[0], hi^shortSeed[1]^uint64(n)<<56)
	z := h ^ l
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// grow doubles the table (16 entries at first) and puts its keys back.
func (t *shortKeys) grow() {
	old := t.tab
	t.tab, t.used = make([]shortEntry, max(16, 2*len(old))), 0
	mask := uint64(len(t.tab) - 1)
	for _, e := range old {
		if e.n == 0 {
			continue
		}
		i := shortHash(e.lo, e.hi, e.n) & mask
		for t.tab[i].n != 0 {
			i = (i + 1) & mask
		}
		t.tab[i] = e
		t.used++
	}
}

// reset empties the table for a new object. A table that grew large is
// dropped rather than cleared, as keySet.reset drops its map.
func (t *shortKeys) reset() {
	switch {
	case t.used == 0:
	case len(t.tab) > 128:
		t.tab = nil
	default:
		clear(t.tab)
	}
	t.used = 0
}

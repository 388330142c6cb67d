package inspect

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"unsafe"
)

// The fingerprints the inspector keeps across snapshots live in two
// open-addressing tables of fixed-size slots, not in Go maps: maps of
// 524,288 keys and values of 56 bytes, in slots up to half empty, made
// inspect peak at 192 MB on one session; a slot here takes 24 or 32
// bytes, and the tables grow only as far as the budget lets them.
//
// Only the table of event ids must be exact: two ids that hash alike
// would otherwise make a duplicate-event-id of two different events. So
// it keeps each id's bytes in an arena and compares them; every other
// fingerprint (of contents, of an event id in seqTable) is compared for
// inequality, so that a collision can only hide a difference, never
// invent one.

// Bits of a packedPos: a line's file and number, and the bits of
// print.listed, in one word.
const (
	listedBits = 4
	lineBits   = 36
	fileBits   = 64 - lineBits - listedBits
)

// packedPos is a pos and the listed bits of its print. A position past
// its range (over 2^24 files or 2^36 lines) is not tracked.
type packedPos uint64

func packPos(p pos, listed uint8) (packedPos, bool) {
	if p.file < 0 || p.file >= 1<<fileBits || p.line < 0 || int64(p.line) >= 1<<lineBits {
		return 0, false
	}
	return packedPos(uint64(p.file)<<(lineBits+listedBits) | uint64(p.line)<<listedBits | uint64(listed&(1<<listedBits-1))), true
}

func (q packedPos) unpack() (pos, uint8) {
	return pos{file: int32(q >> (lineBits + listedBits)), line: int(q >> listedBits & (1<<lineBits - 1))},
		uint8(q & (1<<listedBits - 1))
}

// slot is a table's slot type: used says whether it holds an entry.
type slot interface {
	idSlot | seqSlot
	used() bool
}

// probe returns the slot of slots that holds the entry of hash h (eq says
// whether a slot holds it), or else the empty slot where it would go, and
// whether it was found; -1 without slots. Tables are never full (see
// grow), so that the probe ends.
func probe[S slot](slots []S, h uint64, eq func(*S) bool) (int, bool) {
	if len(slots) == 0 {
		return -1, false
	}
	i, _ := bits.Mul64(h, uint64(len(slots)))
	for {
		s := &slots[i]
		if !(*s).used() {
			return int(i), false
		}
		if eq(s) {
			return int(i), true
		}
		if i++; i == uint64(len(slots)) {
			i = 0
		}
	}
}

// grow returns slots with room for one more entry than the n it holds:
// slots itself while a quarter of it stays empty, or else a larger copy
// rehashed with hash, twice as large or as large as the budget allows;
// with no room in the budget, slots itself while an eighth of it stays
// empty. (A probe for a missing key reads some 8 slots in a table three
// quarters full, and 32 in one seven eighths full.) It reports false, and
// returns slots, when the budget leaves no room.
func grow[S slot](in *Inspector, slots []S, n, size int, hash func(*S) uint64) ([]S, bool) {
	if (n+1)*4 <= len(slots)*3 {
		return slots, true
	}
	want := max(16, 2*len(slots))
	if free := (in.budget - in.used) / size; len(slots)+free < want {
		want = len(slots) + free
	}
	if want <= len(slots) || (n+1)*8 > want*7 {
		return slots, (n+1)*8 <= len(slots)*7
	}
	in.used += (want - len(slots)) * size
	grown := make([]S, want)
	// Written before it is read: a new table's pages are then faulted in
	// once each, not mapped to the zero page by the first probe and
	// copied on the first write, which on two cores also flushes the
	// other core's TLB (an interrupt, costly in a virtual machine).
	clear(grown)
	for k := range slots {
		if s := &slots[k]; (*s).used() {
			i, _ := probe(grown, hash(s), func(*S) bool { return false })
			grown[i] = *s
		}
	}
	return grown, true
}

// idSlot is the fingerprint of the first line of one event id.
type idSlot struct {
	content uint64
	at      packedPos
	// h is the low half of the key's hash, to skip most other keys
	// without reading the arena.
	h uint32
	// key is 1 + the offset of the key in idTable.keys; 0 when empty.
	key uint32
}

func (s idSlot) used() bool { return s.key != 0 }

// idSize is the bytes of an idSlot.
const idSize = int(unsafe.Sizeof(idSlot{}))

// idTable maps each session's event ids, exactly, to the fingerprint of
// their first line.
type idTable struct {
	slots []idSlot
	n     int
	// keys holds each entry's key: its session's index and its id's
	// length as uvarints, then the id. One key is never a prefix of
	// another.
	keys []byte
	// scratch is the key of the last call, so that a lookup does not
	// allocate.
	scratch []byte
}

// idKey returns the key of the event id of the session with index s, in
// t.scratch.
func (t *idTable) idKey(s int, id string) []byte {
	k := binary.AppendUvarint(t.scratch[:0], uint64(s))
	k = binary.AppendUvarint(k, uint64(len(id)))
	t.scratch = append(k, id...)
	return t.scratch
}

// stored returns the key that a used slot holds.
func (t *idTable) stored(s *idSlot) []byte {
	k := t.keys[s.key-1:]
	_, a := binary.Uvarint(k)
	n, b := binary.Uvarint(k[a:])
	return k[:a+b+int(n)]
}

// findEvent returns the fingerprint of the session's event id, and the slot
// that holds it or would hold it (-1 when the table has none) with the
// hash of its key, for addEvent.
func (in *Inspector) findEvent(s int, id string) (p print, i int, h uint64, ok bool) {
	t := &in.events
	key := t.idKey(s, id)
	h = maphash.Bytes(in.seed, key)
	i, ok = probe(t.slots, h, func(sl *idSlot) bool {
		return sl.h == uint32(h) && bytes.HasPrefix(t.keys[sl.key-1:], key)
	})
	if ok {
		sl := &t.slots[i]
		p.content = sl.content
		p.at, p.listed = sl.at.unpack()
	}
	return p, i, h, ok
}

// addEvent keeps the fingerprint of the first line of the session's
// event id, not found before, if the budget has room; it reports whether
// it did. i and h are what findEvent returned for it.
func (in *Inspector) addEvent(s int, id string, p print, i int, h uint64) bool {
	t := &in.events
	at, ok := packPos(p.at, p.listed)
	key := t.idKey(s, id)
	need := len(t.keys) + len(key)
	if !ok || int64(need) >= 1<<32-1 || in.used+len(key) > in.budget {
		return false
	}
	slots, ok := grow(in, t.slots, t.n, idSize, func(sl *idSlot) uint64 { return maphash.Bytes(in.seed, t.stored(sl)) })
	if !ok {
		return false
	}
	if len(slots) != len(t.slots) {
		i, _ = probe(slots, h, func(*idSlot) bool { return false })
	}
	t.slots = slots
	// The arena grows as the slots do, counted by its capacity.
	if need > cap(t.keys) {
		c := min(max(2*cap(t.keys), 256, need), cap(t.keys)+in.budget-in.used)
		if c < need {
			return false
		}
		in.used += c - cap(t.keys)
		t.keys = append(make([]byte, 0, c), t.keys...)
	}
	t.keys = append(t.keys, key...)
	t.slots[i] = idSlot{content: p.content, at: at, h: uint32(h), key: uint32(len(t.keys) - len(key) + 1)}
	t.n++
	return true
}

// setEvent rewrites the listed bits of the fingerprint in slot i.
func (in *Inspector) setEvent(i int, p print) {
	if at, ok := packPos(p.at, p.listed); ok {
		in.events.slots[i].at = at
	}
}

// seqSlot is the fingerprint of an earlier accepted snapshot of a
// session, at its sequence.
type seqSlot struct {
	seq     int64
	content uint64
	at      packedPos
	eventID uint32
	// s is 1 + the session's index; 0 when empty.
	s uint32
}

func (s seqSlot) used() bool { return s.s != 0 }

// seqSize is the bytes of a seqSlot.
const seqSize = int(unsafe.Sizeof(seqSlot{}))

// seqTable maps each session's earlier accepted sequences to the
// fingerprint of their snapshot.
type seqTable struct {
	slots []seqSlot
	n     int
}

func (in *Inspector) seqHash(s uint32, seq int64) uint64 {
	var b [12]byte
	binary.LittleEndian.PutUint32(b[:], s)
	binary.LittleEndian.PutUint64(b[4:], uint64(seq))
	return maphash.Bytes(in.seed, b[:])
}

// findSeq returns the fingerprint kept for the session's sequence, and
// the slot that holds it or would (-1 when the table has none).
func (in *Inspector) findSeq(s int, seq int64) (p print, i int, ok bool) {
	if int64(s) >= 1<<32-1 {
		return p, -1, false
	}
	s1 := uint32(s + 1)
	i, ok = probe(in.bySeq.slots, in.seqHash(s1, seq), func(sl *seqSlot) bool { return sl.s == s1 && sl.seq == seq })
	if ok {
		sl := &in.bySeq.slots[i]
		p.content, p.eventID = sl.content, sl.eventID
		p.at, p.listed = sl.at.unpack()
	}
	return p, i, ok
}

// putSeq keeps p as the fingerprint of the session's sequence, over the
// one kept before or, if the budget has room, as a new one.
func (in *Inspector) putSeq(s int, seq int64, p print) {
	at, ok := packPos(p.at, p.listed)
	if !ok || int64(s) >= 1<<32-1 {
		return
	}
	t := &in.bySeq
	sl := seqSlot{seq: seq, content: p.content, at: at, eventID: p.eventID, s: uint32(s + 1)}
	_, i, ok := in.findSeq(s, seq)
	if ok {
		t.slots[i] = sl
		return
	}
	slots, ok := grow(in, t.slots, t.n, seqSize, func(sl *seqSlot) uint64 { return in.seqHash(sl.s, sl.seq) })
	if !ok {
		return
	}
	if len(slots) != len(t.slots) {
		i, _ = probe(slots, in.seqHash(sl.s, seq), func(*seqSlot) bool { return false })
	}
	t.slots = slots
	t.slots[i] = sl
	t.n++
}

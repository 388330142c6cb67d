package wire

import (
	"crypto/sha256"
	"encoding/binary"
	"math/bits"
	"slices"
)

// Repeated keys. JSON.parse keeps the last member of an object with a
// given key, so an earlier member with the same key is as good as absent:
// it counts toward no bound and no rule reads it. The parser drops such
// members as it meets their successors, in constant time per member, so
// that neither the work nor the tape grows with the number of repeats.

// smallObject is how many plain, short keys an object in the message
// record may have before its keys are indexed in a map; below it, a new
// key is compared with each earlier one, which is cheaper than hashing.
const (
	smallObject = 16
	smallKey    = 64
)

// maxIndexedKey is the longest canonical key a keySet holds as itself.
const maxIndexedKey = 512

// keySet indexes the members of the open object at one depth of the
// message record.
type keySet struct {
	// linear is set while every key so far is plain and short, and the
	// object has fewer than smallObject members: keys are then compared
	// one by one instead of through m.
	linear bool
	// seen has a bit for each key of the object so far while linear
	// (newKey, keyBit): a key whose bit is clear is new, with no key
	// compared, which the fields of a message always are.
	seen uint64
	// m maps a canonical key to its slot in at, which holds the tape
	// index of the key's live member (or, in the prescan, the ordinal of
	// its last member): a repeated key then updates a slot without
	// allocating a new map key.
	// Keys of at most shortKey bytes are in short instead, which finds
	// one in a few instructions where the map hashes it through a call
	// and probes a control group: 20% of the decoding of an object of
	// 100,000 members with 500 keys.
	m     map[string]int32
	short shortKeys
	at    []int32
	// last is scratch for survivors: the slots of at, sorted.
	last []int32
}

// slot returns the slot of key, adding one holding -1 when it is new.
func (s *keySet) slot(key []byte) *int32 {
	if len(key) <= shortKey {
		k, added := s.short.find(key, int32(len(s.at)))
		if added {
			s.at = append(s.at, -1)
		}
		return &s.at[k]
	}
	if len(key) > maxIndexedKey {
		// A long key is indexed by its digest, so the map never holds a
		// second copy of it. 0xff never occurs in a canonical key (UTF-8,
		// or WTF-8 for lone surrogates), so no short key can collide.
		d := sha256.Sum256(key)
		key = append([]byte{0xff}, d[:]...)
	}
	if k, ok := s.m[string(key)]; ok {
		return &s.at[k]
	}
	s.m[string(key)] = int32(len(s.at))
	s.at = append(s.at, -1)
	return &s.at[len(s.at)-1]
}

// keyBit is a key's bit in keySet.seen, of its length n and its first two
// bytes (the closing quote for a key of one byte, the quote and the byte
// after it for the empty key): the fields of a message, of its parts and
// of its tool calls have a bit each (TestKeyBits).
func keyBit(first2 uint16, n uint32) uint64 {
	return 1 << ((2*n + uint32(first2&0xff) + uint32(first2>>8)) & 63)
}

func (p *parser) keySet(depth int) *keySet {
	for len(p.keys) <= depth {
		p.keys = append(p.keys, keySet{})
	}
	return &p.keys[depth]
}

// reset prepares the set for a new object. A map that grew large is
// dropped rather than cleared, since clearing costs its capacity.
func (s *keySet) reset() {
	s.linear, s.seen = true, 0
	if len(s.at) > 64 {
		s.at = nil
	}
	if len(s.m) > 64 {
		s.m = nil
	}
	s.short.reset()
	clear(s.m)
	s.at = s.at[:0]
	if s.m == nil {
		s.m = make(map[string]int32)
	}
}

// canon returns a key in canonKey form, in scratch until the next call.
func (p *parser) canon(ks, ke uint32, kesc, plain bool) []byte {
	if plain {
		return p.data[ks:ke]
	}
	p.scratch = canonKey(p.scratch[:0], p.data[ks:ke], kesc)
	return p.scratch
}

// newKey reports whether the key data[ks:ke] of a member about to be
// recorded in object idx of the message record is new to it by its bit in
// seen alone (keyBit); it then sets the bit. For any other key, repeated
// compares it with the object's keys.
func (p *parser) newKey(idx, depth int, ks, ke uint32, plain bool) bool {
	set := &p.keys[depth] // the object's reset made it
	if !set.linear || !plain || ke-ks > smallKey || p.tape[idx].n >= smallObject {
		return false
	}
	// The key's closing quote and more follow it: its first two bytes
	// are there, even for the empty key.
	b := keyBit(binary.LittleEndian.Uint16(p.data[ks:]), ke-ks)
	if set.seen&b != 0 {
		return false
	}
	set.seen |= b
	return true
}

// repeated drops the member of object idx of the message record whose key
// the member about to be recorded repeats. It may instead find that the
// object has more distinct keys than any valid object: it then marks the
// object over, drops its members and reports true.
func (p *parser) repeated(idx int, depth int, ks, ke uint32, kesc, plain bool) bool {
	set := p.keySet(depth)
	if set.linear {
		if n := p.tape[idx].n; plain && ke-ks <= smallKey && n < smallObject {
			key, size := p.data[ks:ke], ke-ks
			tape, ch := p.tape, idx+1
			p.work += int(n)
			for k := uint32(0); k < n; k++ {
				// The lengths first: keys of one object mostly differ in it.
				if c := &tape[ch]; c.keyEnd-c.keyStart == size && !c.dead && string(key) == string(p.data[c.keyStart:c.keyEnd]) {
					p.drop(idx, ch, modeFull)
					return false
				}
				ch = int(tape[ch].next)
			}
			return false
		}
		set.linear = false
		ch := idx + 1
		for k := uint32(0); k < p.tape[idx].n; k++ {
			if c := &p.tape[ch]; !c.dead {
				p.work++
				*set.slot(p.canon(c.keyStart, c.keyEnd, c.keyEsc, c.keyPlain)) = int32(ch)
			}
			ch = int(p.tape[ch].next)
		}
	}
	p.work++
	at := set.slot(p.canon(ks, ke, kesc, plain))
	if *at >= 0 {
		p.drop(idx, int(*at), modeFull)
	}
	*at = int32(len(p.tape))
	if len(set.at) > maxRecordEntries {
		p.tape = p.tape[:idx+1]
		p.tape[idx].over, p.tape[idx].n = true, 0
		p.recOdd = true
		return true
	}
	return false
}

// drop removes member di of object idx (in mode m), whose key a later
// member repeats. The last member is cut off the tape. Inside the message
// record an earlier one is only marked dead, since moving the members
// after it could cost as much as the object for every repeat; recordCap
// bounds what dead members may occupy. Above the record, objects record a
// few known fields, and the later ones move down over the dropped one.
func (p *parser) drop(idx, di int, m mode) {
	t := p.tape
	end := int(t[di].next)
	switch {
	case end == len(t):
		p.tape = t[:di]
		t[idx].n--
	case m == modeFull:
		t[di].dead, p.recOdd = true, true
	default:
		s := end - di
		p.work += len(t) - end
		copy(t[di:], t[end:])
		for k := di; k < len(t)-s; k++ {
			t[k].next -= uint32(s)
		}
		p.tape = t[:len(t)-s]
		t[idx].n--
		for f, at := range p.fields[m] {
			if int(at) > di {
				p.fields[m][f] = at - int32(s)
			}
		}
	}
}

// errOver stops the prescan of an object with too many keys.
var errOver = &syntaxError{msg: "object has too many keys"}

// survivors records object data[open] (tape[idx]) of a message record in
// the prescan way: a first pass finds the last member of each key, and
// only those are recorded, so nothing recorded is ever dropped again.
func (p *parser) survivors(open, idx, depth int) (int, *syntaxError) {
	set := p.keySet(depth)
	err := p.lastMembers(open, set, p.skipFast)
	if err != nil && err != errOver {
		// The fast skip delimits values by their brackets alone: on bad
		// syntax, find the exact error the way every other pass does.
		err = p.lastMembers(open, set, p.skipValue)
	}
	if err == errOver {
		p.tape[idx].over, p.recOdd = true, true
		return p.skipValue(open)
	}
	if err != nil {
		return 0, err
	}
	// The survivors' ordinals in order, so that the second pass tells a
	// survivor by its ordinal alone, without hashing its key again. The
	// slice is local: deeper objects may move p.keys.
	last := append(set.last[:0], set.at...)
	slices.Sort(last)
	set.last = last
	p.work += len(last)
	ord := int32(0)
	return p.eachMember(open, func(i int, ks, ke uint32, kesc, kplain bool) (int, *syntaxError) {
		p.work++
		k := ord
		ord++
		if len(last) == 0 || last[0] != k {
			return p.skipValue(i)
		}
		last = last[1:]
		return p.member(i, idx, modeFull, depth, ks, ke, kesc, kplain)
	})
}

// lastMembers fills set with the ordinal of the last member of each key
// of the object at data[open], skipping values with skip.
func (p *parser) lastMembers(open int, set *keySet, skip func(int) (int, *syntaxError)) *syntaxError {
	set.reset()
	ord := int32(0)
	_, err := p.eachMember(open, func(i int, ks, ke uint32, kesc, kplain bool) (int, *syntaxError) {
		p.work++
		*set.slot(p.canon(ks, ke, kesc, kplain)) = ord
		ord++
		if len(set.at) > maxRecordEntries {
			return 0, errOver
		}
		return skip(i)
	})
	return err
}

// skipFast returns the offset past the value at data[i], found by its
// brackets and strings alone without checking the rest of its syntax: the
// prescan's first pass needs only where each member ends, and nested
// objects are passed over once per level, so this pass is the one whose
// speed counts. The second pass checks every byte of the object, so bad
// syntax is still reported.
func (p *parser) skipFast(i int) (int, *syntaxError) {
	d := p.data
	if p.endsSeen&endsBit(i) != 0 && (d[i] == '{' || d[i] == '[') {
		if end, ok := p.ends[uint32(i)]; ok {
			return int(end), nil
		}
	}
	depth, stops := 0, 0
	for j := i; j < len(d); {
		if depth > 0 {
			if stops++; stops == blockStops && j+64 <= len(d) {
				var done bool
				if j, depth, done = p.skipBlocks(j, depth); done {
					return j, nil
				}
			}
			// Inside a container only quotes and brackets matter: pass
			// eight bytes at a time while none is one. ORing 0x20 turns
			// [ and ] into { and }, and nothing else into them.
			// The lowest flagged byte is a real one (see hasZero), so
			// the scan goes straight to it.
			for j+8 <= len(d) {
				x := binary.LittleEndian.Uint64(d[j:])
				y := x | 0x2020202020202020
				if m := hasZero(x^('"'*lsb)) | hasZero(y^('{'*lsb)) | hasZero(y^('}'*lsb)); m != 0 {
					j += bits.TrailingZeros64(m) / 8
					break
				}
				j += 8
			}
			if j >= len(d) {
				break
			}
		}
		switch d[j] {
		case '"':
			end, _, _, err := p.scanString(j)
			if err != nil {
				return 0, err
			}
			if j = end; depth == 0 {
				return j, nil
			}
			continue
		case '{', '[':
			depth = p.enter(depth, j)
		case '}', ']':
			if depth == 0 {
				return j, nil // a scalar, ended by its container
			}
			if depth = p.leave(depth, j); depth == 0 {
				return j + 1, nil
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return j, nil
			}
		}
		j++
	}
	return 0, p.fail(len(d), "unexpected end of input")
}

// enter notes, for a skip at depth, the container opened at data[at], and
// returns the depth inside it.
func (p *parser) enter(depth, at int) int {
	if depth < len(p.opens) {
		p.opens[depth] = uint32(at)
	}
	return depth + 1
}

// leave notes, for a skip at depth, that the container it is in closes at
// data[at], remembering its end if it is big, and returns the depth
// outside it.
func (p *parser) leave(depth, at int) int {
	depth--
	if depth < len(p.opens) && at+1-int(p.opens[depth]) >= endsMin {
		p.remember(p.opens[depth], at+1)
	}
	return depth
}

// endsMin is the smallest container whose end skipFast remembers. The
// prescan skips each object's members before it descends into the ones
// that survive, so a container nested k objects deep is skipped k times;
// remembering where the big ones end makes each later skip of them one
// lookup. Only containers at most len(parser.opens) levels below a skip's
// start, which itself is at most maxRecordDepth deep, are remembered, and
// those of one depth are disjoint: a line of n bytes remembers at most
// (maxRecordDepth+len(opens))·n/endsMin ends, about n/1000.
const endsMin = 64 << 10

// remember records that the container opened at data[open] ends before
// data[end], as skipFast found it.
func (p *parser) remember(open uint32, end int) {
	if p.ends == nil {
		p.ends = make(map[uint32]uint32)
	}
	p.ends[open] = uint32(end)
	p.endsSeen |= endsBit(int(open))
}

// endsBit is the bit of parser.endsSeen for offset i: a skip of a small
// value, the common case, then costs no map lookup.
func endsBit(i int) uint64 { return 1 << (uint32(i) * 0x9e3779b1 >> 26) }

// eachMember calls fn for each member of the object at data[open], with
// the offset of the member's value; fn returns the offset past the value.
// It returns the offset past the object.
func (p *parser) eachMember(open int, fn func(i int, ks, ke uint32, kesc, kplain bool) (int, *syntaxError)) (int, *syntaxError) {
	i := p.ws(open + 1)
	if i < len(p.data) && p.data[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(p.data) || p.data[i] != '"' {
			return 0, p.unexpected(i, "a string key")
		}
		kend, kesc, kplain, err := p.scanString(i)
		if err != nil {
			return 0, err
		}
		ks, ke := uint32(i+1), uint32(kend-1)
		kplain = p.plainKey(ks, ke, kesc, kplain)
		i = p.ws(kend)
		if i >= len(p.data) || p.data[i] != ':' {
			return 0, p.unexpected(i, "':'")
		}
		i = p.ws(i + 1)
		if i >= len(p.data) {
			return 0, p.unexpected(i, "a value")
		}
		if i, err = fn(i, ks, ke, kesc, kplain); err != nil {
			return 0, err
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

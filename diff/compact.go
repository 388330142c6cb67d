package diff

import (
	"encoding/binary"
	"hash/maphash"
	"strings"
	"unsafe"

	"github.com/agentskit/snapctl/internal/runes"
	"github.com/agentskit/snapctl/replay"
)

// keptBudget bounds the older projections a Differ keeps whole, all
// sessions together, in bytes (Projection.cost). A projection that does
// not fit is kept compact instead: see compactOf. Projections of up to
// smallCost are kept whole outside the budget: their compact form would
// cost as much.
const (
	keptBudget = 8 << 20
	smallCost  = 1 << 10
)

// perMessageCost is what a message of a whole projection costs beyond its
// text: its record in the decoder's copy of the messages array (keys,
// quotes, numbers) and its Message.
const perMessageCost = 256

// headRunes is how much of a long text a compact projection keeps: more
// than any preview shows.
const headRunes = 64

// compactMax is the longest string a compact projection keeps whole.
const compactMax = 4 * headRunes

// cost is what keeping the projection whole costs, roughly: its text,
// which shares the decoder's copy of the messages array, and a fixed cost
// per message.
func (p *Projection) cost() int { return p.Size() + perMessageCost*len(p.Messages) }

// digest is what a compact projection keeps of a string longer than
// compactMax besides its head: the length in bytes and runes and the hash
// of the whole. The zero digest means the string was kept whole.
type digest struct {
	n, runes int
	h        uint64
}

var digestSeed = maphash.MakeSeed()

// same says whether a, a string of the older side as kept, with its
// digest, stands for b.
func (d digest) same(a, b string) bool {
	if d.n == 0 {
		return a == b
	}
	return len(b) == d.n && maphash.String(digestSeed, b) == d.h
}

// prefixOf says whether a, as kept, is a prefix of b, and returns the rest
// of b.
func (d digest) prefixOf(a, b string) (string, bool) {
	if d.n == 0 {
		if strings.HasPrefix(b, a) {
			return b[len(a):], true
		}
		return "", false
	}
	if len(b) >= d.n && maphash.String(digestSeed, b[:d.n]) == d.h {
		return b[d.n:], true
	}
	return "", false
}

// msgDigest holds the digests of one message of a compact projection;
// a whole projection has none, which reads as zero digests.
type msgDigest struct {
	toolCallID, content, parts, metadata digest
	toolCalls                            []callDigest
}

// callDigest holds the digests of one tool call.
type callDigest struct {
	name, args, result, error digest
}

func (m *msgDigest) call(i int) callDigest {
	if m == nil || i >= len(m.toolCalls) {
		return callDigest{}
	}
	return m.toolCalls[i]
}

// compactOf copies what later pairs need of a projection too large to keep
// whole: ids whole, every other string whole up to compactMax bytes and
// otherwise as its first headRunes runes and a digest, all in one
// allocation. A pair against a compact projection (PairDiff.Coarse) finds
// the same added, removed, changed and moved messages and the same
// appended text; what it cannot do is diff a long text by word (it is
// Replaced) or a long JSON value by path (it is one change at $).
func compactOf(p Projection) Projection {
	q := p
	q.Messages = make([]replay.Message, len(p.Messages))
	q.digests = make([]msgDigest, len(p.Messages))
	var c copier
	for i := range p.Messages {
		m, k, d := &p.Messages[i], &q.Messages[i], &q.digests[i]
		k.HasToolCallID, k.HasToolCalls = m.HasToolCallID, m.HasToolCalls
		c.add(&k.ID, m.ID)
		c.add(&k.Role, m.Role)
		c.add(&k.Status, m.Status)
		c.add(&k.CreatedAt, m.CreatedAt)
		d.toolCallID = c.cut(&k.ToolCallID, m.ToolCallID)
		d.content = c.cut(&k.Content, m.Content)
		d.parts = c.cut(&k.Parts, m.Parts)
		d.metadata = c.cut(&k.Metadata, m.Metadata)
		if len(m.ToolCalls) > 0 {
			k.ToolCalls = make([]replay.ToolCall, len(m.ToolCalls))
			d.toolCalls = make([]callDigest, len(m.ToolCalls))
		}
		for j := range m.ToolCalls {
			tc, kc, dc := &m.ToolCalls[j], &k.ToolCalls[j], &d.toolCalls[j]
			kc.HasResult, kc.HasError = tc.HasResult, tc.HasError
			c.add(&kc.ID, tc.ID)
			c.add(&kc.Status, tc.Status)
			dc.name = c.cut(&kc.Name, tc.Name)
			dc.args = c.cut(&kc.Args, tc.Args)
			dc.result = c.cut(&kc.Result, tc.Result)
			dc.error = c.cut(&kc.Error, tc.Error)
		}
	}
	c.copy()
	return q
}

// copier copies many strings into one allocation: add records where each
// goes, copy makes the allocation and points every destination into it.
// A copier is used again once copy has returned (Differ.own keeps one):
// copy lets go of what it recorded, but not of the lists' capacity.
type copier struct {
	dst []*string
	src []string
	n   int
}

func (c *copier) add(dst *string, s string) {
	if s == "" {
		*dst = ""
		return
	}
	c.dst, c.src = append(c.dst, dst), append(c.src, s)
	c.n += len(s)
}

// cut adds s whole when it is short, or its head, and returns its digest.
func (c *copier) cut(dst *string, s string) digest {
	if len(s) <= compactMax {
		c.add(dst, s)
		return digest{}
	}
	head, n := s, 0
	for i := range s {
		if n == headRunes {
			head = s[:i]
			break
		}
		n++
	}
	c.add(dst, head)
	return digest{n: len(s), runes: runes.Count(s), h: maphash.String(digestSeed, s)}
}

func (c *copier) copy() {
	var b strings.Builder
	b.Grow(c.n)
	for _, s := range c.src {
		b.WriteString(s)
	}
	all, off := b.String(), 0
	for i, d := range c.dst {
		*d = all[off : off+len(c.src[i])]
		off += len(c.src[i])
	}
	// The sources are a result's strings, which may point into a batch
	// the run reuses, and the destinations are in arrays the Differ may
	// drop: neither is kept past the copy. Lists grown by one very large
	// projection are not kept either.
	if cap(c.src) > copierKeep {
		*c = copier{}
		return
	}
	clear(c.dst)
	clear(c.src)
	c.dst, c.src, c.n = c.dst[:0], c.src[:0], 0
}

// copierKeep is the most strings a copier's lists keep room for between
// uses.
const copierKeep = 1 << 10

// Whole returns the length in runes and bytes of a string of the pair:
// for a head of a long string of a compact older projection (Coarse),
// those of the whole string, so that a renderer that shows lengths
// (--redact) shows the right ones; for any other string, its own.
func (p *PairDiff) Whole(s string) (chars, bytes int) {
	if d, ok := p.heads[unsafe.StringData(s)]; ok && s != "" {
		return d.runes, d.n
	}
	return runes.Count(s), len(s)
}

// noteHeads records the heads of a compact older message that the pair
// hands out, for Whole. Heads are keyed by where their bytes are, not by
// their text: two long texts may share a head but not a length, and each
// head has its own place in the compact projection's one allocation.
func (p *PairDiff) noteHeads(m *replay.Message, d *msgDigest) {
	if d == nil {
		return
	}
	note := func(s string, d digest) {
		if d.n > 0 {
			if p.heads == nil {
				p.heads = map[*byte]digest{}
			}
			p.heads[unsafe.StringData(s)] = d
		}
	}
	note(m.ToolCallID, d.toolCallID)
	note(m.Content, d.content)
	note(m.Parts, d.parts)
	note(m.Metadata, d.metadata)
	for i := range m.ToolCalls {
		tc, cd := &m.ToolCalls[i], d.call(i)
		note(tc.Name, cd.name)
		note(tc.Args, cd.args)
		note(tc.Result, cd.result)
		note(tc.Error, cd.error)
	}
}

// wholeJSON is the change of a JSON value whose older side was kept as a
// head: one change at $, since its paths are gone.
func wholeJSON(old, new string) []PathChange {
	if new == "" {
		return []PathChange{{Kind: Removed, Path: "$", Old: old}}
	}
	out := JSON("", new)
	for i := range out {
		out[i].Kind, out[i].Old = Changed, old
	}
	return out
}

// pack writes a small projection's messages into one string: each
// message's flags and number of tool calls, then each of its strings
// (eachString) as its length and its bytes, then its tool calls' flags.
// A session keeps its last projection until the next, and a capture of
// many one-snapshot sessions keeps one per session: the records (168
// bytes a message) and the decoder's copy of the messages array they
// point into (keys, quotes and numbers too) took some 500 bytes for two
// short messages, their packed form about a quarter of that. unpack
// makes the messages again, for the rare pair.
func pack(ms []replay.Message) string {
	b := binary.AppendUvarint(nil, uint64(len(ms)))
	for i := range ms {
		m := &ms[i]
		b = append(b, flags(m.HasToolCallID, m.HasToolCalls))
		b = binary.AppendUvarint(b, uint64(len(m.ToolCalls)))
		eachString(m, func(s *string) {
			b = binary.AppendUvarint(b, uint64(len(*s)))
			b = append(b, *s...)
		})
		for _, tc := range m.ToolCalls {
			b = append(b, flags(tc.HasResult, tc.HasError))
		}
	}
	return string(b)
}

// unpack is the messages pack wrote; their strings share p.
func unpack(p string) []replay.Message {
	at := 0
	next := func() int {
		v, n := binary.Uvarint([]byte(p[at:min(len(p), at+binary.MaxVarintLen64)]))
		at += n
		return int(v)
	}
	ms := make([]replay.Message, next())
	for i := range ms {
		m := &ms[i]
		f := p[at]
		at++
		m.HasToolCallID, m.HasToolCalls = f&1 != 0, f&2 != 0
		if n := next(); n > 0 {
			m.ToolCalls = make([]replay.ToolCall, n)
		}
		eachString(m, func(s *string) {
			n := next()
			*s = p[at : at+n]
			at += n
		})
		for j := range m.ToolCalls {
			f := p[at]
			at++
			m.ToolCalls[j].HasResult, m.ToolCalls[j].HasError = f&1 != 0, f&2 != 0
		}
	}
	return ms
}

func flags(a, b bool) byte {
	var f byte
	if a {
		f |= 1
	}
	if b {
		f |= 2
	}
	return f
}

// eachString calls f with every string of a message, its tool calls'
// included, always in the same order.
func eachString(m *replay.Message, f func(*string)) {
	for _, s := range []*string{&m.ID, &m.Role, &m.Content, &m.Status, &m.CreatedAt, &m.ToolCallID, &m.Parts, &m.Metadata} {
		f(s)
	}
	for i := range m.ToolCalls {
		tc := &m.ToolCalls[i]
		for _, s := range []*string{&tc.ID, &tc.Name, &tc.Status, &tc.Args, &tc.Result, &tc.Error} {
			f(s)
		}
	}
}

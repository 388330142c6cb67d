package model

import (
	"encoding/binary"
	"strings"

	"github.com/agentskit/snapctl/replay"
)

// IDSeq is a projection's message ids, in order: what the rule of
// removals looks at.
type IDSeq interface {
	Len() int
	ID(i int) string
}

// Messages is a projection's message records as an IDSeq.
type Messages []replay.Message

// Len is the number of messages.
func (m Messages) Len() int { return len(m) }

// ID is the id of message i.
func (m Messages) ID(i int) string { return m[i].ID }

// IDs is a projection's message ids in one allocation: the ids one after
// the other, then where each ends, four bytes apiece. The text is a copy,
// so that the decoder's buffer of a whole snapshot does not stay alive for
// a few ids, and one string rather than a string and a slice saves a
// header and an allocation in every session of a capture. A line is at
// most 1 GiB, so every end fits in four bytes.
type IDs struct {
	buf string
	n   int32
}

// newIDs copies the message ids of a projection.
func newIDs(ms []replay.Message) IDs {
	n := 0
	for i := range ms {
		n += len(ms[i].ID)
	}
	var b strings.Builder
	b.Grow(n + 4*len(ms))
	for i := range ms {
		b.WriteString(ms[i].ID)
	}
	var end [4]byte
	for i, at := 0, 0; i < len(ms); i++ {
		at += len(ms[i].ID)
		binary.LittleEndian.PutUint32(end[:], uint32(at))
		b.Write(end[:])
	}
	return IDs{buf: b.String(), n: int32(len(ms))}
}

// idsOf returns the message ids of ms: prev itself when they are the
// ids prev holds, as they are in most snapshots of a streaming turn, or
// else a copy (newIDs).
func idsOf(ms []replay.Message, prev IDs) IDs {
	if int(prev.n) != len(ms) {
		return newIDs(ms)
	}
	at := 0
	for i := range ms {
		id := ms[i].ID
		if end := at + len(id); prev.end(i) != end || prev.buf[at:end] != id {
			return newIDs(ms)
		}
		at += len(id)
	}
	return prev
}

// Len is the number of ids.
func (l IDs) Len() int { return int(l.n) }

// ID is id i.
func (l IDs) ID(i int) string {
	start := 0
	if i > 0 {
		start = l.end(i - 1)
	}
	return l.buf[start:l.end(i)]
}

// end is where id i ends in buf.
func (l IDs) end(i int) int {
	at := len(l.buf) - 4*(int(l.n)-i)
	b := l.buf[at : at+4]
	return int(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)
}

package model

import (
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

// IDs is a projection's message ids in one allocation: id i is
// text[ends[i-1]:ends[i]]. The text is a copy, so that the decoder's
// buffer of a whole snapshot does not stay alive for a few ids.
type IDs struct {
	text string
	ends []int
}

// newIDs copies the message ids of a projection.
func newIDs(ms []replay.Message) IDs {
	n := 0
	for i := range ms {
		n += len(ms[i].ID)
	}
	var b strings.Builder
	b.Grow(n)
	ends := make([]int, len(ms))
	for i := range ms {
		b.WriteString(ms[i].ID)
		ends[i] = b.Len()
	}
	return IDs{text: b.String(), ends: ends}
}

// Len is the number of ids.
func (l IDs) Len() int { return len(l.ends) }

// ID is id i.
func (l IDs) ID(i int) string {
	start := 0
	if i > 0 {
		start = l.ends[i-1]
	}
	return l.text[start:l.ends[i]]
}

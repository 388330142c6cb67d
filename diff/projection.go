// Package diff compares accepted snapshots of agentskit.chat.turn v1
// captures. Every accepted snapshot is a complete projection of the
// conversation, so comparing two of them says exactly what appeared,
// what changed and what disappeared in between.
//
// Compare is the pure core: two projections in, one PairDiff out, in time
// linear in their size. Differ streams replay results through Compare,
// holding at most two projections per session.
package diff

import (
	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/replay"
)

// Projection is what the differ keeps of one accepted snapshot: where it
// came from and its payload, messages included.
type Projection struct {
	SessionID string
	TurnID    string
	EventID   string
	Sequence  int64
	File      string
	Line      int
	// Entry is the HAR entry whose body held the line (replay's
	// Origin.Entry), 0 for other formats.
	Entry int

	Status   replay.Status
	Usage    replay.Usage
	Lineage  replay.Lineage
	HasError bool
	Error    replay.Diagnostic
	Messages []replay.Message

	// digests is set for a compact projection (compactOf), one per
	// message: its long strings are heads.
	digests []msgDigest
}

// ProjectionOf copies what a Projection needs out of an accepted snapshot's
// result. The event itself is reused by the replay run, but the messages
// slice is allocated per event, so it is kept without copying.
func ProjectionOf(res *replay.Result) Projection {
	ev := res.Event
	s := &ev.Snapshot
	return Projection{
		SessionID: ev.SessionID, TurnID: ev.TurnID, EventID: ev.EventID, Sequence: ev.Sequence,
		File: res.File, Line: res.Line, Entry: model.EntryOf(res),
		Status: s.Status, Usage: s.Usage, Lineage: s.Lineage,
		HasError: s.HasError, Error: s.Error, Messages: s.Messages,
	}
}

// Size is a rough count of the bytes of message text a projection holds,
// for benchmarks and memory reasoning.
func (p *Projection) Size() int {
	n := 0
	for i := range p.Messages {
		m := &p.Messages[i]
		n += len(m.ID) + len(m.Content) + len(m.Parts) + len(m.Metadata)
		for _, tc := range m.ToolCalls {
			n += len(tc.ID) + len(tc.Name) + len(tc.Args) + len(tc.Result) + len(tc.Error)
		}
	}
	return n
}

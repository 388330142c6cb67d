package lineage

import (
	"hash/maphash"
	"slices"
	"strings"

	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
)

// maxVariants bounds the conflicting lineages kept per turn: a turn whose
// lineage changes on every snapshot must not grow without end.
const maxVariants = 3

// Builder collects, result by result, what the lineage graph needs: per
// session and per turn a node, the message ids of the turn's last accepted
// projection (as hashes) and one preview string. It keeps no event and no
// projection: each accepted one is reduced to those as it comes, so
// memory grows neither with the number of sessions nor with the size of
// their snapshots.
type Builder struct {
	pinned   string
	sessions map[string]*sessionState
	order    []*sessionState
	turns    map[turnKey]*Node
}

type sessionState struct {
	id  string
	idx int
	// first chains the session's nodes through Node.next; turns counts
	// them.
	first *Node
	turns int
	// listed is set once the session has an accepted snapshot.
	listed bool
}

// turnKey names a turn of the session with index s. One map of every
// session's turns costs less than a map per session when sessions are
// many and short.
type turnKey struct {
	s  int
	id string
}

// NewBuilder returns a builder. pinned is the trusted session given to
// replay, or "": submit inputs of other sessions are then ignored, as the
// cursor ignores their snapshots.
func NewBuilder(pinned string) *Builder {
	return &Builder{pinned: pinned, sessions: map[string]*sessionState{}, turns: map[turnKey]*Node{}}
}

// Add records one replay result: accepted snapshots shape the nodes and
// submit events give their input. Everything else is ignored.
func (b *Builder) Add(res *replay.Result) {
	ev := res.Event
	switch {
	case ev == nil:
		return
	case ev.Kind == replay.KindSubmit:
		if b.pinned != "" && ev.SessionID != b.pinned {
			return
		}
		n := b.node(ev.SessionID, ev.TurnID)
		n.Input, n.HasInput = preview(ev.Input), true
	case res.Verdict() == replay.Accepted:
		b.accept(ev)
	}
}

func (b *Builder) node(session, turn string) *Node {
	s, ok := b.sessions[session]
	if !ok {
		s = &sessionState{id: session, idx: len(b.sessions)}
		b.sessions[session] = s
	}
	k := turnKey{s.idx, turn}
	n, ok := b.turns[k]
	if !ok {
		n = &Node{TurnID: turn, next: s.first}
		s.first = n
		s.turns++
		b.turns[k] = n
	}
	return n
}

// accept folds one accepted snapshot into its turn's node.
func (b *Builder) accept(ev *replay.Event) {
	n := b.node(ev.SessionID, ev.TurnID)
	if s := b.sessions[ev.SessionID]; !s.listed {
		s.listed = true
		b.order = append(b.order, s)
	}
	snap := &ev.Snapshot
	if !n.accepted {
		n.accepted = true
		n.FirstSequence, n.FirstEmittedAt = ev.Sequence, ev.EmittedAt
	}
	n.LastSequence, n.LastEmittedAt = ev.Sequence, ev.EmittedAt
	n.Status, n.Usage, n.ErrorCode = string(snap.Status), snap.Usage, ""
	if snap.HasError {
		n.ErrorCode = snap.Error.Code
	}
	n.Preview = assistantPreview(snap.Messages)
	n.messageIDs = messageIDs(n.messageIDs[:0], snap.Messages)
	if snap.Lineage.Operation != "" {
		n.noteLineage(ev.Sequence, snap.Lineage)
	}
}

// noteLineage keeps the first lineage of the turn and each distinct one
// that differs from it.
func (n *Node) noteLineage(seq int64, l replay.Lineage) {
	if !n.hasLineage {
		n.hasLineage, n.lineageSeq = true, seq
		n.Operation, n.ParentTurnID, n.SourceMessageID = Operation(l.Operation), l.ParentTurnID, l.SourceMessageID
		return
	}
	if n.lineage() == l {
		return
	}
	for _, v := range n.variants {
		if v.lin == l {
			return
		}
	}
	if len(n.variants) == maxVariants {
		n.moreVariants++
		return
	}
	n.variants = append(n.variants, variant{seq: seq, lin: l})
}

func (n *Node) lineage() replay.Lineage {
	return replay.Lineage{Operation: replay.Operation(n.Operation), ParentTurnID: n.ParentTurnID, SourceMessageID: n.SourceMessageID}
}

// idSeed hashes message ids for Node.messageIDs.
var idSeed = maphash.MakeSeed()

// messageIDs replaces ids with the sorted hashes of a projection's message
// ids: eight bytes a message, however long its id, and nothing that keeps
// the decoder's buffer of the snapshot alive. A child's source message is
// looked up by hash; two different ids share one with probability 2⁻⁶⁴.
func messageIDs(ids []uint64, msgs []replay.Message) []uint64 {
	for i := range msgs {
		ids = append(ids, maphash.String(idSeed, msgs[i].ID))
	}
	slices.Sort(ids)
	return slices.Clip(ids)
}

// assistantPreview previews the turn's final assistant message: the last
// assistant message after the projection's last user message, so that a
// turn that failed before answering does not borrow an earlier answer.
func assistantPreview(msgs []replay.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		switch msgs[i].Role {
		case "user":
			return ""
		case "assistant":
			return preview(msgs[i].Content)
		}
	}
	return ""
}

// preview makes text one terminal-safe line of at most PreviewRunes runes.
// Only the head of the text is escaped, so a huge message costs little.
func preview(text string) string {
	head, runes := text, 0
	for i := range text {
		if runes == PreviewRunes+1 {
			head = text[:i]
			break
		}
		runes++
	}
	// A copy, so the preview does not keep the snapshot's buffer alive.
	return strings.Clone(termsafe.Line(head, PreviewRunes))
}

// Sessions links the collected turns into one graph per session, in order
// of each session's first accepted snapshot, and finds their problems.
// It may be called again after more results were added.
func (b *Builder) Sessions() []*Session {
	out := make([]*Session, 0, len(b.order))
	for _, s := range b.order {
		nodes := make([]*Node, 0, s.turns)
		for n := s.first; n != nil; n = n.next {
			if n.accepted {
				nodes = append(nodes, n)
			}
		}
		out = append(out, Link(s.id, nodes))
	}
	return out
}

// describeLineage says what a lineage is, with ids only.
func describeLineage(l replay.Lineage) string {
	if l.ParentTurnID == "" {
		return string(l.Operation)
	}
	return string(l.Operation) + " of " + l.ParentTurnID + " (source " + l.SourceMessageID + ")"
}

// conflictDetail lists the turn's first lineage and the ones that differ.
func (n *Node) conflictDetail() string {
	var b strings.Builder
	b.WriteString("lineage differs between accepted snapshots: seq ")
	b.WriteString(itoa(n.lineageSeq) + " " + describeLineage(n.lineage()))
	for _, v := range n.variants {
		b.WriteString("; seq " + itoa(v.seq) + " " + describeLineage(v.lin))
	}
	if n.moreVariants > 0 {
		b.WriteString("; " + itoa(int64(n.moreVariants)) + " more differing snapshots")
	}
	return b.String()
}

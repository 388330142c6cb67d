package lineage

import (
	"hash/maphash"
	"slices"
	"strings"

	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/replay"
)

// Builder collects, result by result, what the lineage graph needs. The
// model keeps each turn's lineage, status and sequences; the builder adds
// per turn the message ids of its last accepted projection (as hashes)
// and the heads of one reply and one input. It keeps no event and no
// projection: each accepted one is reduced to those as it comes, so
// memory grows neither with the number of sessions nor with the size of
// their snapshots.
type Builder struct {
	model *model.Model
	nodes map[*model.Turn]*Node
	// order lists the sessions in order of their first accepted snapshot.
	order  []*model.Session
	listed map[*model.Session]bool
}

// NewBuilder returns a builder. pinned is the trusted session given to
// replay, or "": submit inputs of other sessions are then ignored, as the
// cursor ignores their snapshots.
func NewBuilder(pinned string) *Builder {
	return &Builder{model: model.New(pinned), nodes: map[*model.Turn]*Node{}, listed: map[*model.Session]bool{}}
}

// Add records one replay result: accepted snapshots shape the nodes and
// submit events give their input. Everything else is ignored.
func (b *Builder) Add(res *replay.Result) {
	st := b.model.Observe(res)
	switch {
	case st.Session == nil || st.Foreign:
	case res.Event.Kind == replay.KindSubmit:
		n := b.node(st.Turn)
		n.Input, n.InputCut = head(res.Event.Input)
		n.HasInput = true
	case st.Accepted:
		if !b.listed[st.Session] {
			b.listed[st.Session] = true
			b.order = append(b.order, st.Session)
		}
		n := b.node(st.Turn)
		msgs := res.Event.Snapshot.Messages
		n.Preview, n.PreviewCut = assistantPreview(msgs)
		n.messageIDs = messageIDs(n.messageIDs[:0], msgs)
	}
}

func (b *Builder) node(t *model.Turn) *Node {
	n, ok := b.nodes[t]
	if !ok {
		n = &Node{turn: t}
		b.nodes[t] = n
	}
	return n
}

// fill copies the model's facts about the node's turn into the node.
func (n *Node) fill() {
	t := n.turn
	n.TurnID = t.ID
	n.Operation, n.ParentTurnID, n.SourceMessageID = t.Operation(), "", ""
	if t.HasLineage {
		n.ParentTurnID, n.SourceMessageID = t.Lineage.ParentTurnID, t.Lineage.SourceMessageID
	}
	n.FirstSequence, n.LastSequence = t.FirstSequence, t.LastSequence
	n.FirstEmittedAt, n.LastEmittedAt = t.FirstEmittedAt, t.LastEmittedAt
	n.FirstEmitted, n.LastEmitted = t.FirstEmitted, t.LastEmitted
	n.Status, n.ErrorCode, n.Usage = t.Status, t.ErrorCode, t.Usage
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

// assistantPreview is the head of the turn's final assistant message: the
// last assistant message after the projection's last user message, so that
// a turn that failed before answering does not borrow an earlier answer.
func assistantPreview(msgs []replay.Message) (string, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		switch msgs[i].Role {
		case "user":
			return "", false
		case "assistant":
			return head(msgs[i].Content)
		}
	}
	return "", false
}

// head is the first PreviewRunes runes of text, raw, and whether text
// goes on past them. It looks at no more than that, however long text is.
func head(text string) (string, bool) {
	runes := 0
	for i := range text {
		if runes == PreviewRunes {
			// A copy, so the head does not keep the snapshot's buffer alive.
			return strings.Clone(text[:i]), true
		}
		runes++
	}
	return strings.Clone(text), false
}

// Sessions links the collected turns into one graph per session, in order
// of each session's first accepted snapshot, and finds their problems.
// It may be called again after more results were added.
func (b *Builder) Sessions() []*Session {
	out := make([]*Session, 0, len(b.order))
	for _, s := range b.order {
		nodes := make([]*Node, 0, s.Turns)
		for t := s.FirstTurn(); t != nil; t = t.Next() {
			if t.Accepted > 0 {
				n := b.node(t)
				n.fill()
				nodes = append(nodes, n)
			}
		}
		out = append(out, link(s.ID, nodes))
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
	t := n.turn
	var b strings.Builder
	b.WriteString("lineage differs between accepted snapshots: seq ")
	b.WriteString(itoa(t.LineageSequence) + " " + describeLineage(t.Lineage))
	for _, v := range t.Variants {
		b.WriteString("; seq " + itoa(v.Sequence) + " " + describeLineage(v.Lineage))
	}
	if t.MoreVariants > 0 {
		b.WriteString("; " + itoa(int64(t.MoreVariants)) + " more differing snapshots")
	}
	return b.String()
}

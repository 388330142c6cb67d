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
// their snapshots. Nodes are made only when the graphs are: a turn costs
// its notes until then.
type Builder struct {
	model *model.Model
	notes map[*model.Turn]*notes
	// order lists the sessions in order of their first accepted snapshot.
	order []*model.Session
}

// notes are what the builder keeps of a turn beside the model's: the
// fields of its Node that come from its messages and its submit.
type notes struct {
	preview, input                 string
	previewCut, inputCut, hasInput bool
	messageIDs                     []uint64
	// idsHash is the decoder's hash of the ids messageIDs holds
	// (replay.Snapshot.IDsHash), 0 when unknown.
	idsHash uint64
}

// NewBuilder returns a builder. pinned is the trusted session given to
// replay, or "": submit inputs of other sessions are then ignored, as the
// cursor ignores their snapshots.
func NewBuilder(pinned string) *Builder {
	return NewBuilderOn(model.New(pinned, true))
}

// NewBuilderOn returns a builder on m, a model made with outcomes that
// something else observes the results with: the builder is then given
// each result with its step (AddStep).
func NewBuilderOn(m *model.Model) *Builder {
	if !m.KeepsOutcomes() {
		// Each node is drawn from its turn's outcome.
		panic("lineage.NewBuilderOn: the model keeps no outcomes (inspect.Options.Outcomes)")
	}
	return &Builder{model: m, notes: map[*model.Turn]*notes{}}
}

// Add records one replay result: accepted snapshots shape the nodes and
// submit events give their input. Everything else is ignored.
func (b *Builder) Add(res *replay.Result) { b.AddStep(res, b.model.Observe(res)) }

// AddStep is Add for a builder on a model that another observed res with,
// st being that step.
func (b *Builder) AddStep(res *replay.Result, st model.Step) {
	switch {
	case st.Session == nil || st.Foreign:
	case res.Event.Kind == replay.KindSubmit:
		nt := b.note(st.Turn)
		nt.input, nt.inputCut = head(res.Event.Input, nt.input)
		nt.hasInput = true
	case st.Accepted:
		// A session's first accepted snapshot has no previous
		// projection: the model says so without a set of the sessions.
		if st.Prev == nil {
			b.order = append(b.order, st.Session)
		}
		nt := b.note(st.Turn)
		snap := &res.Event.Snapshot
		msgs := snap.Messages
		nt.preview, nt.previewCut = assistantPreview(msgs, nt.preview)
		// The ids of most snapshots of a turn are those of the one
		// before: they are hashed and sorted again only when not.
		if h := snap.IDsHash; h == 0 || h != nt.idsHash {
			nt.messageIDs, nt.idsHash = messageIDs(nt.messageIDs[:0], msgs), h
		}
	}
}

func (b *Builder) note(t *model.Turn) *notes {
	nt, ok := b.notes[t]
	if !ok {
		nt = &notes{}
		b.notes[t] = nt
	}
	return nt
}

// newNode makes the node of a turn with an accepted snapshot from the
// model's facts and the builder's notes (nil for none).
func newNode(t *model.Turn, nt *notes) *Node {
	n := &Node{}
	if nt != nil {
		n.Preview, n.PreviewCut, n.Input, n.InputCut, n.HasInput = nt.preview, nt.previewCut, nt.input, nt.inputCut, nt.hasInput
		n.messageIDs = nt.messageIDs
	}
	o := t.Outcome()
	if len(o.Variants()) > 0 {
		n.conflict = conflictDetail(o)
	}
	n.TurnID = t.ID
	n.Operation, n.ParentTurnID, n.SourceMessageID = t.Operation(), "", ""
	if o.HasLineage() {
		n.ParentTurnID, n.SourceMessageID = o.Lineage.ParentTurnID, o.Lineage.SourceMessageID
	}
	n.FirstSequence, n.LastSequence = o.FirstSequence, o.LastSequence
	n.FirstEmittedAt, n.LastEmittedAt = o.FirstEmittedAt, o.LastEmittedAt
	n.duration = o.LastEmitted().Sub(o.FirstEmitted())
	n.Status, n.ErrorCode, n.Usage = t.Status(), o.ErrorCode, o.Usage
	e, code, at := t.Ending()
	n.ending, n.end = e, &nodeEnd{code: code, at: at, later: t.Later(), window: t.CutByWindow()}
	return n
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
// prev is the preview before, kept when the head is the same.
func assistantPreview(msgs []replay.Message, prev string) (string, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		switch msgs[i].Role {
		case "user":
			return "", false
		case "assistant":
			return head(msgs[i].Content, prev)
		}
	}
	return "", false
}

// head is the first PreviewRunes runes of text, raw, and whether text
// goes on past them. It looks at no more than that, however long text is.
// The head is a copy, so that it does not keep the snapshot's buffer
// alive: prev itself when it is the same text, as it is in most
// snapshots of a streaming reply.
func head(text, prev string) (string, bool) {
	h, cut := text, false
	runes := 0
	for i := range text {
		if runes == PreviewRunes {
			h, cut = text[:i], true
			break
		}
		runes++
	}
	if h == prev {
		return prev, cut
	}
	return strings.Clone(h), cut
}

// Sessions links the collected turns into one graph per session, in order
// of each session's first accepted snapshot, and finds their problems.
// It may be called again after more results were added.
func (b *Builder) Sessions() []*Session { return b.sessions(false) }

// NoteWindow notes the turns the run's window ended
// (model.Session.NoteWindow), before Sessions or Finish: a builder on a
// model of its own needs it; on an inspector's model, the inspector's
// report has done it.
func (b *Builder) NoteWindow(sum replay.Summary) {
	for _, s := range b.order {
		if s != nil {
			s.NoteWindow(&sum)
		}
	}
}

// Finish returns the graphs as Sessions does, letting go of each
// session's turns and notes once its graph is made, so that the graphs
// of many sessions take the place of that state instead of coming on top
// of it. The builder takes no result after.
func (b *Builder) Finish() []*Session { return b.sessions(true) }

func (b *Builder) sessions(release bool) []*Session {
	out := make([]*Session, 0, len(b.order))
	if release {
		// The sessions stay reachable through order alone.
		b.model = nil
	}
	for i, s := range b.order {
		nodes := make([]*Node, 0, s.Turns)
		for t := s.FirstTurn(); t != nil; t = t.Next() {
			if t.Accepted > 0 {
				nodes = append(nodes, newNode(t, b.notes[t]))
				if release {
					delete(b.notes, t)
				}
			}
		}
		out = append(out, link(s.ID, nodes))
		if release {
			b.order[i] = nil
		}
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
func conflictDetail(o *model.Outcome) string {
	var b strings.Builder
	b.WriteString("lineage differs between accepted snapshots: seq ")
	b.WriteString(itoa(o.LineageSequence) + " " + describeLineage(o.Lineage))
	for _, v := range o.Variants() {
		b.WriteString("; seq " + itoa(v.Sequence) + " " + describeLineage(v.Lineage))
	}
	if o.MoreVariants() > 0 {
		b.WriteString("; " + itoa(int64(o.MoreVariants())) + " more differing snapshots")
	}
	return b.String()
}

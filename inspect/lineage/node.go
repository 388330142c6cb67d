// Package lineage rebuilds, from the accepted snapshots of a capture, how
// each turn came about: which turn was submitted, retried, edited or
// regenerated, from which parent turn and source message, and how each
// attempt ended. It finds the problems of that graph (orphans, missing
// source messages, conflicting lineage, cycles) without stopping, and
// never prints.
package lineage

import (
	"time"

	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/replay"
)

// Operation is how a turn came about: the lineage operation of its
// accepted snapshots, replay's type.
type Operation = replay.Operation

// The operations of protocol v1, and OpUnknown.
const (
	OpSubmit     = replay.OpSubmit
	OpRetry      = replay.OpRetry
	OpEdit       = replay.OpEdit
	OpRegenerate = replay.OpRegenerate
	// OpUnknown is not an operation of the protocol but the graph's own
	// value for a turn whose accepted snapshots carried no lineage.
	OpUnknown = model.OpUnknown
)

// Operations lists every operation in a fixed order, for legends.
var Operations = []Operation{OpSubmit, OpRetry, OpEdit, OpRegenerate, OpUnknown}

// PreviewRunes is the longest preview of a message or input, in runes.
const PreviewRunes = 60

// Node is one turn seen in accepted snapshots, with where it hangs in the
// tree and what is wrong with it.
type Node struct {
	TurnID string
	// Operation, ParentTurnID and SourceMessageID come from the first
	// accepted snapshot of the turn that carried lineage.
	Operation       Operation
	ParentTurnID    string
	SourceMessageID string

	// FirstSequence and LastSequence are the turn's first and last
	// accepted sequence; the other fields come from those snapshots.
	FirstSequence, LastSequence   int64
	FirstEmittedAt, LastEmittedAt string
	// Status, ErrorCode and Usage are those of the last accepted
	// snapshot; ErrorCode is its error diagnostic's code, or "".
	Status    replay.Status
	ErrorCode string
	Usage     replay.Usage

	// Preview is the head of the final assistant message of the turn's
	// last accepted projection, raw: at most PreviewRunes runes, cut on a
	// rune boundary, PreviewCut set when the message goes on. It is
	// empty when the projection ends without one. Making it safe for a
	// terminal is the renderer's work.
	Preview string
	// Input is the same kind of head of the turn's last submit input;
	// HasInput says whether the capture held a submit for the turn.
	Input                          string
	PreviewCut, InputCut, HasInput bool

	// Parent is the node this one hangs under, nil at the session root
	// (a trunk turn, an orphan, or where a cycle was broken).
	Parent *Node
	// Children are the turns that hang under this one, in sequence order.
	Children []*Node
	// Problems are what is wrong with this turn's lineage.
	Problems []Problem

	// conflict details the turn's differing lineages, "" without any.
	conflict string
	// messageIDs are the sorted hashes of the message ids of the last
	// accepted projection: enough to check a child's source message.
	messageIDs []uint64
	// end is how the turn ended beside ending, copied when the node is
	// made, since the model's turns are let go of once their graph is
	// drawn; it goes behind a pointer so that the node stays in its size
	// class.
	end *nodeEnd
	// duration is the time between the instants of the first and the
	// last accepted snapshot: 8 bytes where the two instants took 48, in
	// every node of a graph.
	duration time.Duration
	// walk state for cycle detection; ending sits in its padding.
	state   int8
	ending  model.Ending
	pathIdx int
}

// nodeEnd is the code and line of a turn's ending and the later snapshot
// that showed its reply complete (model.Turn.Ending, model.Turn.Later).
type nodeEnd struct {
	code   string
	at     model.Position
	later  *model.Later
	window *model.Position
}

// Ending is how the turn ended for the client, with its code and line,
// as the model decides (model.Turn.Ending).
func (n *Node) Ending() (model.Ending, string, model.Position) {
	if n.end == nil {
		return n.ending, "", model.Position{}
	}
	return n.ending, n.end.code, n.end.at
}

// Later is the later snapshot that showed the turn's unfinished reply
// complete, or nil (model.Turn.Later).
func (n *Node) Later() *model.Later {
	if n.end == nil {
		return nil
	}
	return n.end.later
}

// CutByWindow is where the capture goes on with the turn past the window
// that cut it, nil when none did (model.Turn.CutByWindow): its ending is
// then no problem.
func (n *Node) CutByWindow() *model.Position {
	if n.end == nil {
		return nil
	}
	return n.end.window
}

// Duration is the time from the first to the last accepted snapshot of
// the turn.
func (n *Node) Duration() time.Duration { return n.duration }

// ProblemKind names one kind of lineage problem; the names are part of the
// JSON contract.
type ProblemKind string

// The lineage problems. None stops the rendering.
const (
	// ProblemOrphan: the parent turn is not in the capture; the node is
	// placed under the session root.
	ProblemOrphan ProblemKind = "orphan"
	// ProblemSourceMissing: the source message is not in the parent
	// turn's last accepted projection.
	ProblemSourceMissing ProblemKind = "source-missing"
	// ProblemConflict: accepted snapshots of the turn carry different
	// lineage.
	ProblemConflict ProblemKind = "lineage-conflict"
	// ProblemCycle: following parent turns comes back to the turn; the
	// cycle is broken at its earliest turn, placed under the session root.
	ProblemCycle ProblemKind = "cycle"
)

// ProblemKinds are the lineage problems, in the order above.
var ProblemKinds = []ProblemKind{ProblemOrphan, ProblemSourceMissing, ProblemConflict, ProblemCycle}

var problemMeanings = map[ProblemKind]string{
	ProblemOrphan: "the turn's lineage names a parent turn that is not in the capture " +
		"(an earlier part of the session was not captured, or the parent id is wrong); " +
		"the tree places the turn under the session root and names the parent beside it.",
	ProblemSourceMissing: "the turn's lineage names a source message that is not in the parent turn's " +
		"last accepted projection: the retry, edit or regenerate points at a message the client never held.",
	ProblemConflict: "accepted snapshots of the turn carry different lineage (operation, parent or source): " +
		"the server changed its mind about where the turn came from; the tree uses the first.",
	ProblemCycle: "following the parent turns from the turn comes back to it: the lineage ids loop; " +
		"the tree breaks the cycle at its earliest turn and places that one under the session root.",
}

// Meaning says what the problem is and how the tree shows it, for
// explain.
func (k ProblemKind) Meaning() string { return problemMeanings[k] }

// Problem is one thing wrong with a turn's lineage. Detail names only
// ids, operations and sequences, never message text.
type Problem struct {
	Kind   ProblemKind
	Detail string
}

// ParentElsewhere reports whether the turn declares a parent under which
// it does not hang in the tree: the parent never appeared (an orphan), or
// hanging it there would have closed a cycle. Views name such a parent
// next to the turn, since the tree does not show it.
func (n *Node) ParentElsewhere() bool {
	return n.ParentTurnID != "" && (n.Parent == nil || n.Parent.TurnID != n.ParentTurnID)
}

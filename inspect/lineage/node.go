// Package lineage rebuilds, from the accepted snapshots of a capture, how
// each turn came about: which turn was submitted, retried, edited or
// regenerated, from which parent turn and source message, and how each
// attempt ended. It finds the problems of that graph (orphans, missing
// source messages, conflicting lineage, cycles) without stopping, and
// never prints.
package lineage

import (
	"time"

	"github.com/agentskit/snapctl/replay"
)

// Operation is how a turn came about: the lineage operation of its
// accepted snapshots.
type Operation string

// The operations of protocol v1, and OpUnknown for a turn whose accepted
// snapshots carried no lineage.
const (
	OpSubmit     Operation = "submit"
	OpRetry      Operation = "retry"
	OpEdit       Operation = "edit"
	OpRegenerate Operation = "regenerate"
	OpUnknown    Operation = "unknown"
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
	Status    string
	ErrorCode string
	Usage     replay.Usage

	// Preview is the final assistant message of the turn's last accepted
	// projection, control characters made visible, at most PreviewRunes
	// runes; empty when the projection ends without one.
	Preview string
	// Input is the same kind of preview of the turn's last submit input;
	// HasInput says whether the capture held a submit for the turn.
	Input    string
	HasInput bool

	// Parent is the node this one hangs under, nil at the session root
	// (a trunk turn, an orphan, or where a cycle was broken).
	Parent *Node
	// Children are the turns that hang under this one, in sequence order.
	Children []*Node
	// Problems are what is wrong with this turn's lineage.
	Problems []Problem

	accepted bool
	// next chains the nodes of one session in the builder.
	next *Node
	// lineage state: the first lineage seen and the distinct others.
	hasLineage   bool
	lineageSeq   int64
	variants     []variant
	moreVariants int
	// messageIDs are the sorted hashes of the message ids of the last
	// accepted projection: enough to check a child's source message.
	messageIDs []uint64
	// walk state for cycle detection.
	state   int8
	pathIdx int
}

// variant is a lineage that differs from the turn's first one.
type variant struct {
	seq int64
	lin replay.Lineage
}

// Duration is the time from the first to the last accepted snapshot of
// the turn, when both emittedAt values parse.
func (n *Node) Duration() (time.Duration, bool) {
	first, ok1 := parseTime(n.FirstEmittedAt)
	last, ok2 := parseTime(n.LastEmittedAt)
	if !ok1 || !ok2 {
		return 0, false
	}
	return last.Sub(first), true
}

// parseTime reads a protocol emittedAt: RFC 3339 with optional seconds.
func parseTime(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

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

// Problem is one thing wrong with a turn's lineage. Detail names only
// ids, operations and sequences, never message text.
type Problem struct {
	Kind   ProblemKind
	Detail string
}

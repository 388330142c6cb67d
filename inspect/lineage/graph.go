package lineage

import (
	"cmp"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"
)

// Session is the lineage graph of one session.
type Session struct {
	SessionID string
	// Turns lists every node in order of first accepted sequence.
	Turns []*Node
	// Roots are the nodes at the session root, in sequence order: the
	// trunk, orphans, and turns where a cycle was broken.
	Roots []*Node
}

// Problems counts the problems of the session's turns.
func (s *Session) Problems() int {
	n := 0
	for _, t := range s.Turns {
		n += len(t.Problems)
	}
	return n
}

// Turn returns the node of a turn id, or nil.
func (s *Session) Turn(id string) *Node {
	for _, t := range s.Turns {
		if t.TurnID == id {
			return t
		}
	}
	return nil
}

// walk states for cycle detection.
const (
	unvisited int8 = iota
	onPath
	done
)

// maxCycleIDs bounds the turn ids spelled out in a cycle's detail.
const maxCycleIDs = 6

// link builds the graph of one session from its nodes: it sorts them by
// first sequence, hangs each retry, edit or regenerate under its parent,
// and records every problem on the node concerned. It replaces any
// placement and problems the nodes had, and works without recursion, so
// chains of any depth are fine.
func link(sessionID string, nodes []*Node) *Session {
	slices.SortFunc(nodes, func(a, b *Node) int {
		if a.FirstSequence != b.FirstSequence {
			return cmp.Compare(a.FirstSequence, b.FirstSequence)
		}
		return strings.Compare(a.TurnID, b.TurnID)
	})
	byID := make(map[string]*Node, len(nodes))
	for _, n := range nodes {
		byID[n.TurnID] = n
		n.Parent, n.Children, n.Problems, n.state = nil, nil, nil, unvisited
	}
	for _, n := range nodes {
		if n.ParentTurnID == "" {
			continue
		}
		p, ok := byID[n.ParentTurnID]
		if !ok {
			n.addProblem(ProblemOrphan, "parent turn "+n.ParentTurnID+" is not in the capture; placed under the session root")
			continue
		}
		n.Parent = p
		if n.SourceMessageID != "" && !p.hasMessage(n.SourceMessageID) {
			n.addProblem(ProblemSourceMissing, "source message "+n.SourceMessageID+" is not in the last accepted projection of "+
				p.TurnID+" (seq "+itoa(p.LastSequence)+")")
		}
	}
	for _, n := range nodes {
		if n.conflict != "" {
			n.addProblem(ProblemConflict, n.conflict)
		}
	}
	breakCycles(nodes)
	s := &Session{SessionID: sessionID, Turns: nodes}
	for _, n := range nodes {
		if n.Parent == nil {
			s.Roots = append(s.Roots, n)
		} else {
			n.Parent.Children = append(n.Parent.Children, n)
		}
	}
	return s
}

// breakCycles follows each node's parents until a node already settled.
// Coming back to a node on the current path is a cycle: it is cut at its
// earliest turn, which moves to the session root.
func breakCycles(nodes []*Node) {
	var path []*Node
	for _, start := range nodes {
		path = path[:0]
		cur := start
		for cur != nil && cur.state == unvisited {
			cur.state, cur.pathIdx = onPath, len(path)
			path = append(path, cur)
			cur = cur.Parent
		}
		if cur != nil && cur.state == onPath {
			cutCycle(path[cur.pathIdx:])
		}
		for _, n := range path {
			n.state = done
		}
	}
}

// cutCycle marks every turn of a cycle and cuts the earliest one loose.
func cutCycle(cycle []*Node) {
	cut := cycle[0]
	for _, n := range cycle {
		if n.FirstSequence < cut.FirstSequence {
			cut = n
		}
	}
	// Spell the loop from the cut turn down its parent chain and back.
	var b strings.Builder
	n := cut
	for i := 0; i <= len(cycle); i++ {
		if i > 0 {
			b.WriteString(" -> ")
		}
		if i == maxCycleIDs && len(cycle) > maxCycleIDs {
			b.WriteString("... (" + strconv.Itoa(len(cycle)) + " turns) -> " + cut.TurnID)
			break
		}
		b.WriteString(n.TurnID)
		n = n.Parent
	}
	detail := "parent turns loop: " + b.String() + "; cut at " + cut.TurnID + ", placed under the session root"
	for _, n := range cycle {
		n.addProblem(ProblemCycle, detail)
	}
	cut.Parent = nil
}

func (n *Node) addProblem(k ProblemKind, detail string) {
	n.Problems = append(n.Problems, Problem{Kind: k, Detail: detail})
}

// hasMessage says whether a message id is in the node's last accepted
// projection.
func (n *Node) hasMessage(id string) bool {
	_, ok := slices.BinarySearch(n.messageIDs, maphash.String(idSeed, id))
	return ok
}

// Walk visits the session's tree in pre-order with an explicit stack, so
// any depth is fine: fn gets each node, its depth (0 at the session root)
// and whether it is the last of its siblings.
func (s *Session) Walk(fn func(n *Node, depth int, last bool)) {
	type frame struct {
		n     *Node
		depth int
		last  bool
	}
	stack := make([]frame, 0, len(s.Roots))
	push := func(kids []*Node, depth int) {
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, frame{kids[i], depth, i == len(kids)-1})
		}
	}
	push(s.Roots, 0)
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		fn(f.n, f.depth, f.last)
		push(f.n.Children, f.depth+1)
	}
}

// Select returns the part of the session that concerns one turn: the
// turn, its ancestors and its descendants, as copies linked among
// themselves. It returns nil when the session has no such turn.
func (s *Session) Select(turnID string) *Session {
	target := s.Turn(turnID)
	if target == nil {
		return nil
	}
	keep := map[*Node]*Node{}
	for n := target; n != nil; n = n.Parent {
		keep[n] = nil
	}
	stack := []*Node{target}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		keep[n] = nil
		stack = append(stack, n.Children...)
	}
	out := &Session{SessionID: s.SessionID}
	for _, n := range s.Turns {
		if _, ok := keep[n]; ok {
			c := *n
			c.Parent, c.Children = nil, nil
			keep[n] = &c
			out.Turns = append(out.Turns, &c)
		}
	}
	// Turns are in sequence order, so each copy's children come out in
	// sequence order too.
	for _, n := range s.Turns {
		c, ok := keep[n]
		if !ok {
			continue
		}
		if n.Parent == nil {
			out.Roots = append(out.Roots, c)
			continue
		}
		c.Parent = keep[n.Parent]
		c.Parent.Children = append(c.Parent.Children, c)
	}
	return out
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

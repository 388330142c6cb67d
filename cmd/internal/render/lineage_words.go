package render

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/inspect/lineage"
	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
)

// RedactSessions drops every text that came from a message or a submit, so that
// no format can print one by mistake.
func RedactSessions(sessions []*lineage.Session) {
	for _, s := range sessions {
		for _, n := range s.Turns {
			n.Preview, n.Input, n.HasInput = "", "", false
		}
	}
}

// How a turn is put in words, the same in every format.

// OpCounts counts a session's turns by operation.
func OpCounts(s *lineage.Session) string {
	counts := map[lineage.Operation]int{}
	for _, n := range s.Turns {
		counts[n.Operation]++
	}
	var parts []string
	for _, op := range lineage.Operations {
		if counts[op] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[op], op))
		}
	}
	return strings.Join(parts, ", ")
}

// TurnCount counts a session's turns for its headline: those of its tree
// by operation, and the undrawn ones with no node (no accepted snapshot),
// so that the count is every turn's, as inspect's and the report's are:
// "2 turns (1 submit, 1 with no accepted snapshot)".
func TurnCount(s *lineage.Session, undrawn int) string {
	ops := OpCounts(s)
	if undrawn > 0 {
		if ops != "" {
			ops += ", "
		}
		ops += fmt.Sprintf("%d with no accepted snapshot", undrawn)
	}
	return text.Plural(len(s.Turns)+undrawn, "turn") + " (" + ops + ")"
}

// ProblemCount says how many problems there are, "no problems" for none.
func ProblemCount(n int) string {
	if n == 0 {
		return "no problems"
	}
	return text.Plural(n, "problem")
}

// Origin says how a turn came about: its operation, its declared parent
// when it does not hang under it (an orphan, a cut cycle), and its source
// message.
func Origin(n *lineage.Node) string {
	s := string(n.Operation)
	if n.ParentElsewhere() {
		s += " of " + n.ParentTurnID
	}
	if n.SourceMessageID != "" {
		s += " from " + n.SourceMessageID
	}
	return termsafe.String(s)
}

// originFit is origin with its ids shortened in the middle to idLimit
// cells (0: whole), for a tree that fits a terminal.
func originFit(n *lineage.Node, idLimit int) string {
	if idLimit == 0 {
		return Origin(n)
	}
	id := func(s string) string { return text.Shorten(termsafe.String(s), idLimit, text.FitMiddle) }
	s := string(n.Operation)
	if n.ParentElsewhere() {
		s += " of " + id(n.ParentTurnID)
	}
	if n.SourceMessageID != "" {
		s += " from " + id(n.SourceMessageID)
	}
	return s
}

// Outcome is how the turn ended for the client (the model's Outcome),
// with its code, and whether a later snapshot showed the reply complete.
func Outcome(n *lineage.Node) string {
	e, code, _ := n.Ending()
	return OutcomeIn(e, code, n.Later() != nil, n.CutByWindow() != nil)
}

// OutcomeOf is an ending in the words of every view, with its code, and
// "(completed later)" when later: "timed-out SERVER_TIMEOUT".
func OutcomeOf(e model.Ending, code string, later bool) string {
	return OutcomeIn(e, code, later, false)
}

// OutcomeIn is OutcomeOf of a turn that the window cut, when window
// (model.Turn.CutByWindow): "cut-off by the window", "unanswered in the
// window", the same in every view, since the window ended it and not the
// server.
func OutcomeIn(e model.Ending, code string, later, window bool) string {
	s := e.String()
	if code != "" {
		s += " " + code
	}
	if window {
		s += windowWords(e)
	}
	if later {
		s += " (completed later)"
	}
	return termsafe.String(s)
}

// windowWords say, after ending e, that the window cut the turn.
func windowWords(e model.Ending) string {
	if e == model.EndUnanswered || e == model.EndNeverAccepted {
		return " in the window"
	}
	return " by the window"
}

// PastWindowAt is where the capture goes on with a turn past the window
// that cut it, " (the turn goes on past the window, at cap.jsonl:21)", ""
// for none; at names the position as the view names positions.
func PastWindowAt(p *model.Position, at func(model.Position) string) string {
	if p == nil {
		return ""
	}
	return " (the turn goes on past the window, at " + at(*p) + ")"
}

// LaterAt is where a later snapshot showed the reply complete and how its
// text differs, " (completed later at cap.jsonl:10, +0 characters)", ""
// for none; at names the position as the view names positions.
func LaterAt(l *model.Later, at func(model.Position) string) string {
	if l == nil {
		return ""
	}
	return " (completed later at " + at(l.At) + ", " + LaterWords(l) + ")"
}

// Unfinished says whether the turn ended other than complete for the
// client (the model's Ending), and not by the window (CutByWindow): a
// problem of its session's verdict, drawn as one in every picture
// (UnfinishedFill).
func Unfinished(n *lineage.Node) bool {
	e, _, _ := n.Ending()
	return e != model.EndComplete && n.CutByWindow() == nil
}

// EndedWords says that a turn ended here other than complete, in the
// close-up of its line (inspect --line, explore's Event tab): "turn-1
// cut-off here (completed later at cap.jsonl:10, +0 characters)"; at
// names the later snapshot's position as the view names positions.
func EndedWords(turnID string, e model.Ending, code string, later *model.Later, at func(model.Position) string) string {
	return termsafe.String(turnID) + " " + OutcomeOf(e, code, false) + " here" + LaterAt(later, at)
}

// LaterWords is how the text a later snapshot showed complete differs
// from the one the client got (model.Later), the same in every view: "+8
// characters", and ", not starting with the delivered text" when the
// delivered text is not where the later one starts.
func LaterWords(l *model.Later) string {
	s := fmt.Sprintf("%+d characters", l.Chars)
	if !l.Prefix {
		s += ", not starting with the delivered text"
	}
	return s
}

// SeqRange is the turn's accepted sequences, "seq 4" or "seq 4-9".
func SeqRange(n *lineage.Node) string {
	if n.FirstSequence == n.LastSequence {
		return "seq " + strconv.FormatInt(n.FirstSequence, 10)
	}
	return fmt.Sprintf("seq %d-%d", n.FirstSequence, n.LastSequence)
}

// ProblemKinds lists the kinds of a turn's problems, each once, in order.
func ProblemKinds(n *lineage.Node) string {
	kinds := make([]string, 0, len(n.Problems))
	for _, p := range n.Problems {
		if !slices.Contains(kinds, string(p.Kind)) {
			kinds = append(kinds, string(p.Kind))
		}
	}
	return strings.Join(kinds, ", ")
}

// GraphLabel is the text of a turn's box in mermaid and dot, one line per
// entry, every entry terminal-safe.
func GraphLabel(n *lineage.Node) []string {
	lines := []string{termsafe.String(n.TurnID), Origin(n) + " · " + Outcome(n),
		SeqRange(n) + " · " + Tokens(n)}
	if len(n.Problems) > 0 {
		lines = append(lines, "! "+ProblemKinds(n))
	}
	if n.HasInput {
		lines = append(lines, "input: "+previewLine(n.Input, n.InputCut))
	}
	if n.Preview != "" {
		lines = append(lines, "reply: "+previewLine(n.Preview, n.PreviewCut))
	}
	return lines
}

// previewLine makes the raw head of a text one terminal-safe line of at
// most lineage.PreviewRunes runes, ending in "…" when the text went on.
func previewLine(head string, cut bool) string {
	if cut {
		head += "…"
	}
	return termsafe.Line(head, lineage.PreviewRunes)
}

// Tokens is the turn's final token usage, "37 tokens"; "no usage" for a
// turn whose last accepted snapshot is not complete and reports none,
// as a real server's are until a turn's final snapshot: not a turn that
// used no token.
func Tokens(n *lineage.Node) string {
	if n.Usage.TotalTokens == 0 && n.Status != replay.StatusComplete {
		return "no usage"
	}
	return text.Plural(int(n.Usage.TotalTokens), "token")
}

package render

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/jsonout"
	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/inspect/lineage"
	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
)

// treeGlyphs are the connectors of the tree format.
type treeGlyphs struct{ tee, elbow, pipe, space string }

var (
	unicodeGlyphs = treeGlyphs{tee: "├─ ", elbow: "└─ ", pipe: "│  ", space: "   "}
	asciiGlyphs   = treeGlyphs{tee: "|- ", elbow: "`- ", pipe: "|  ", space: "   "}
)

// MaxTreeIndent is the deepest level drawn with its own indentation:
// deeper turns are drawn at this level with their depth, so a chain of
// thousands of regenerations does not print megabytes of connectors.
const MaxTreeIndent = 32

// Tree draws one tree per session, then its problems.
type Tree struct {
	w      io.Writer
	pal    iostreams.Palette
	glyphs treeGlyphs
	// width is the terminal's, or 0 to write every value whole.
	width int
	// open[d] is set while the ancestor at depth d has siblings to come.
	open []bool
	// verdicts are inspect's, by session id (see Verdicts).
	verdicts map[string]inspect.Verdict
	// overviews are inspect's sessions, in its order (see Overviews).
	overviews []inspect.SessionOverview
	// input is what the run read (see Input), or nil.
	input *replay.Stats
}

// Verdicts gives the tree inspect's verdict on each session, by id, for
// the sessions' headlines. A tree without them states only lineage's own
// problems: no view may say "no problems" without a verdict.
func (t *Tree) Verdicts(v map[string]inspect.Verdict) *Tree {
	t.verdicts = v
	return t
}

// Overviews gives the tree inspect's overview of every session, for what
// the tree itself cannot say: the history a session's first accepted
// snapshot holds, and the turns it has no node of (no accepted snapshot:
// a diagnostic alone, a submit unanswered or refused, snapshots all kept
// inert), listed after the tree with how each ended, as inspect's
// outcomes, the report's turn list and explore's outcomes have them, so
// that no turn the verdict counts is left out. A session with no tree at
// all gets its verdict and its turns too. Not for a tree cut to one
// turn's family (--turn), which the others are not part of.
func (t *Tree) Overviews(ov []inspect.SessionOverview) *Tree {
	t.overviews = ov
	return t
}

// Input gives the tree what the run read, for the warnings every human
// summary ends with (a window that left events out, lines too long to
// decode, lines of another format), written after the trees.
func (t *Tree) Input(in replay.Stats) *Tree {
	t.input = &in
	return t
}

// SelectTurn cuts sessions and overviews to turn's family: in each
// session whose tree has a node of the turn, the node, its ancestors and
// its descendants (lineage.Session.Select), with its overview cut to that
// turn (SessionOverview.WithTurn: its history, and no other turn left
// out of the tree); and the overview of each session that has the turn
// with no node (no accepted snapshot of it), cut to that turn alone, for
// the tree to list as Overviews does. Both are empty when no session has
// the turn.
func SelectTurn(sessions []*lineage.Session, overviews []inspect.SessionOverview, turn string) ([]*lineage.Session, []inspect.SessionOverview) {
	var out []*lineage.Session
	drawn := map[string]bool{}
	for _, s := range sessions {
		if sel := s.Select(turn); sel != nil {
			out, drawn[s.SessionID] = append(out, sel), true
		}
	}
	var ovs []inspect.SessionOverview
	for _, ov := range overviews {
		if cut, ok := ov.WithTurn(turn); ok || drawn[ov.SessionID] {
			ovs = append(ovs, cut)
		}
	}
	return out, ovs
}

// headline is what follows a session's id: its verdict and the problems
// of its graph first, so that a line cut to fit a terminal keeps them,
// then its turns by operation.
func headline(s *lineage.Session, verdicts map[string]inspect.Verdict, undrawn int) string {
	var parts []string
	if v, ok := verdicts[s.SessionID]; ok {
		parts = append(parts, VerdictWords(v))
	}
	if n := s.Problems(); n > 0 {
		parts = append(parts, text.Plural(n, "lineage problem"))
	}
	turns := TurnCount(s, undrawn)
	if len(parts) == 0 {
		return turns
	}
	return strings.Join(parts, ", ") + "; " + turns
}

// NewTree draws trees to w, fitted to width cells (0: every value
// whole), in ASCII connectors when ascii is set.
func NewTree(w io.Writer, pal iostreams.Palette, width int, ascii bool) *Tree {
	t := &Tree{w: w, pal: pal, glyphs: unicodeGlyphs, width: width}
	if ascii {
		t.glyphs = asciiGlyphs
	}
	return t
}

func (t *Tree) Write(sessions []*lineage.Session) error {
	if err := t.write(sessions); err != nil {
		return err
	}
	if t.input != nil {
		var b strings.Builder
		writeInputWarnings(&b, t.pal, *t.input)
		if b.Len() > 0 {
			// Wrapped to the terminal as diff's and inspect's are: the
			// tree's own lines are cut to it instead.
			fmt.Fprintf(text.FitLines(t.w, t.width), "\n%s", b.String())
		}
	}
	return nil
}

func (t *Tree) write(sessions []*lineage.Session) error {
	byID, treeless := pairOverviews(sessions, t.overviews)
	if len(sessions) == 0 && len(treeless) == 0 {
		fmt.Fprintln(t.w, "no accepted snapshots: no turns to draw")
		return nil
	}
	for i, s := range sessions {
		if i > 0 {
			fmt.Fprintln(t.w)
		}
		ov := byID[s.SessionID]
		var rows []inspect.TurnEnding
		if ov != nil {
			rows = undrawnTurns(s, ov)
		}
		t.sessionLine(s.SessionID, headline(s, t.verdicts, len(rows)))
		if ov != nil {
			if h := HistoryWords(ov.Earlier); h != "" {
				fmt.Fprintln(t.w, t.fit("history: "+h))
			}
		}
		t.open = t.open[:0]
		s.Walk(t.node)
		t.undrawn(rows)
		if err := t.problems(s); err != nil {
			return err
		}
	}
	for i, ov := range treeless {
		if i > 0 || len(sessions) > 0 {
			fmt.Fprintln(t.w)
		}
		t.sessionLine(ov.SessionID, VerdictWords(ov.Verdict())+"; "+NoTree(ov))
		t.undrawn(undrawnTurns(nil, ov))
	}
	return nil
}

// pairOverviews finds the overview of each session drawn, by id, and
// lists in the overview's order those of the sessions with no tree whose
// turns ended even so (see Tree.Overviews).
func pairOverviews(sessions []*lineage.Session, overviews []inspect.SessionOverview) (map[string]*inspect.SessionOverview, []*inspect.SessionOverview) {
	byID := make(map[string]*inspect.SessionOverview, len(overviews))
	for i := range overviews {
		byID[overviews[i].SessionID] = &overviews[i]
	}
	drawn := make(map[string]bool, len(sessions))
	for _, s := range sessions {
		drawn[s.SessionID] = true
	}
	var treeless []*inspect.SessionOverview
	for i := range overviews {
		if ov := &overviews[i]; !drawn[ov.SessionID] && len(ov.Endings()) > 0 {
			treeless = append(treeless, ov)
		}
	}
	return byID, treeless
}

// undrawnTurns are the endings of session ov's turns that the tree s
// (nil for none) has no node of: the model's, in its order.
func undrawnTurns(s *lineage.Session, ov *inspect.SessionOverview) []inspect.TurnEnding {
	nodes := map[string]bool{}
	if s != nil {
		for _, n := range s.Turns {
			nodes[n.TurnID] = true
		}
	}
	var rows []inspect.TurnEnding
	for _, e := range ov.Endings() {
		if !nodes[e.TurnID] {
			rows = append(rows, e)
		}
	}
	return rows
}

// sessionLine writes a session's headline: its id, then what follows it,
// each cut to fit.
func (t *Tree) sessionLine(sessionID, headline string) {
	id := termsafe.String(sessionID)
	rest := ": " + headline
	if t.width > 0 {
		id = text.Shorten(id, max(text.MinMiddle, t.width-len("session ")-text.Width(rest)), text.FitMiddle)
		rest = text.Shorten(rest, max(text.MinLast, t.width-len("session ")-text.Width(id)), text.FitTail)
	}
	fmt.Fprintf(t.w, "%s %s%s\n", t.pal.Bold("session"), t.pal.Bold(id), rest)
}

// fit cuts a line to the tree's width, if it has one.
func (t *Tree) fit(line string) string {
	if t.width > 0 {
		return text.Shorten(line, t.width, text.FitTail)
	}
	return line
}

// undrawn lists the turns of a session that its tree has no node of
// (undrawnTurns), with how each ended and where (see Overviews).
func (t *Tree) undrawn(rows []inspect.TurnEnding) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(t.w, t.fit(text.Plural(len(rows), "turn")+" with no accepted snapshot, not in the tree:"))
	for _, e := range rows {
		id, outcome, at := termsafe.String(e.TurnID), OutcomeIn(e.Ending, e.Code, e.Later != nil, e.Window != nil), EndedAt(e, modelPosition)
		if t.width > 0 {
			// A long id gives way first, so that how the turn ended stays.
			id = text.Shorten(id, max(text.MinMiddle, t.width-len("    ")-text.Width(outcome+at)), text.FitMiddle)
		}
		line := "  " + id + "  " + outcome + at
		if t.width > 0 && text.Width(line) > t.width {
			fmt.Fprintln(t.w, text.Shorten(line, t.width, text.FitTail))
			continue
		}
		colour := t.pal.Red
		if e.Window != nil {
			colour = t.pal.Dim // the window cut it: no problem
		}
		fmt.Fprintln(t.w, "  "+t.pal.Bold(id)+"  "+colour(outcome)+at)
	}
}

// node draws one turn: its line, then its input and reply previews.
func (t *Tree) node(n *lineage.Node, depth int, last bool) {
	t.open = t.open[:depth]
	var prefix strings.Builder
	for _, open := range t.open[:min(depth, t.maxIndent())] {
		prefix.WriteString(t.pick(open, t.glyphs.pipe, t.glyphs.space))
	}
	t.open = append(t.open, !last)
	conn := t.pick(last, t.glyphs.elbow, t.glyphs.tee)
	lead := prefix.String() + conn
	fmt.Fprintf(t.w, "%s%s\n", lead, t.label(n, depth, t.room(lead)))

	cont := prefix.String() + t.pick(last, t.glyphs.space, t.glyphs.pipe) +
		t.pick(len(n.Children) > 0, t.glyphs.pipe, t.glyphs.space)
	if n.HasInput {
		fmt.Fprintf(t.w, "%s%s\n", cont, t.pal.Dim(text.Shorten("input: "+previewLine(n.Input, n.InputCut), t.room(cont), text.FitTail)))
	}
	if n.Preview != "" {
		fmt.Fprintf(t.w, "%s%s\n", cont, t.pal.Dim(text.Shorten("reply: "+previewLine(n.Preview, n.PreviewCut), t.room(cont), text.FitTail)))
	}
}

// maxIndent is the deepest level drawn with its own indentation: on a
// terminal, as many as leave 40 cells for the turn.
func (t *Tree) maxIndent() int {
	if t.width > 0 {
		return max(1, min(MaxTreeIndent, (t.width-40)/text.Width(t.glyphs.pipe)))
	}
	return MaxTreeIndent
}

// room is what is left of the terminal after the guides of lead, at
// least a few cells; 0 (no limit) when values are whole.
func (t *Tree) room(lead string) int {
	if t.width <= 0 {
		return 0
	}
	return max(text.MinLast, t.width-text.Width(lead))
}

func (t *Tree) pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}

// label is a turn's line: id, how it came about, how it ended, its
// sequences, time and tokens, and its problems. With room > 0 it fits in
// room cells: ids are shortened in the middle first, then the time and the
// tokens left out, then the line cut.
func (t *Tree) label(n *lineage.Node, depth int, room int) string {
	type part struct {
		text   string
		colour func(string) string
	}
	build := func(idLimit int, timed, tokens bool) []part {
		status := part{Outcome(n), nil}
		if e, _, _ := n.Ending(); (e != model.EndComplete && n.CutByWindow() == nil) || n.ErrorCode != "" {
			status.colour = t.pal.Red
		}
		parts := []part{{text.Shorten(termsafe.String(n.TurnID), idLimit, text.FitMiddle), t.pal.Bold},
			{originFit(n, idLimit), t.opColour(n.Operation)}, status, {SeqRange(n), nil}}
		if timed {
			parts = append(parts, part{timing(n), nil})
		}
		if tokens {
			parts = append(parts, part{Tokens(n), nil})
		}
		if depth > t.maxIndent() {
			parts = append(parts, part{fmt.Sprintf("(depth %d)", depth+1), nil})
		}
		if len(n.Problems) > 0 {
			parts = append(parts, part{"! " + ProblemKinds(n), t.pal.Red})
		}
		return parts
	}
	width := func(ps []part) int {
		w := 2 * (len(ps) - 1)
		for _, p := range ps {
			w += text.Width(p.text)
		}
		return w
	}
	parts := build(0, true, true)
	if room > 0 {
		for _, try := range []struct {
			idLimit       int
			timed, tokens bool
		}{{0, true, true}, {text.MinMiddle, true, true}, {text.MinMiddle, false, true}, {text.MinMiddle, false, false}} {
			if parts = build(try.idLimit, try.timed, try.tokens); width(parts) <= room {
				break
			}
		}
		if width(parts) > room {
			// The last resort: cut the line, which then goes uncoloured.
			var plain []string
			for _, p := range parts {
				plain = append(plain, p.text)
			}
			return text.Shorten(strings.Join(plain, "  "), room, text.FitTail)
		}
	}
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.text
		if p.colour != nil {
			out[i] = p.colour(p.text)
		}
	}
	return strings.Join(out, "  ")
}

// timing is when the turn's first accepted snapshot was emitted and how
// long it took until the last one.
func timing(n *lineage.Node) string {
	s := termsafe.String(n.FirstEmittedAt)
	if n.FirstSequence != n.LastSequence {
		s += " +" + n.Duration().Round(time.Millisecond).String()
	}
	return s
}

func (t *Tree) opColour(op lineage.Operation) func(string) string {
	switch op {
	case lineage.OpSubmit:
		return t.pal.Green
	case lineage.OpRetry:
		return t.pal.Yellow
	case lineage.OpEdit:
		return t.pal.Cyan
	case lineage.OpRegenerate:
		return t.pal.Magenta
	}
	return t.pal.Dim
}

// problems lists a session's problems after its tree.
func (t *Tree) problems(s *lineage.Session) error {
	var rows [][]string
	for _, n := range s.Turns {
		for _, p := range n.Problems {
			rows = append(rows, []string{termsafe.String(n.TurnID), string(p.Kind), termsafe.String(p.Detail)})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	fmt.Fprintln(t.w)
	return text.Render(t.w, t.pal.Bold, t.width, problemColumns, rows)
}

var problemColumns = []text.Column{{Name: "TURN", Fit: text.FitMiddle}, {Name: "PROBLEM"}, {Name: "DETAIL", Fit: text.FitTail}}

// OpStyle is the fill and stroke colour of each operation in diagrams.
var OpStyle = map[lineage.Operation][2]string{
	lineage.OpSubmit:     {"#e6f4ea", "#1e8e3e"},
	lineage.OpRetry:      {"#fef7e0", "#e37400"},
	lineage.OpEdit:       {"#e8f0fe", "#1a73e8"},
	lineage.OpRegenerate: {"#f3e8fd", "#9334e6"},
	lineage.OpUnknown:    {"#f1f3f4", "#5f6368"},
}

// ProblemStroke is the outline colour of a turn that has problems.
const ProblemStroke = "#d93025"

// UnfinishedFill is the fill of the box of a turn that ended other than
// complete (Unfinished), in every picture, in place of its operation's
// colour (submit's is green); its outline is ProblemStroke, dashed.
const UnfinishedFill = "#fce8e6"

// WindowStroke is the outline of a turn with no node that the window
// (--lines, --since, --until) cut: grey, as the tree dims its words.
const WindowStroke = "#9aa0a6"

// WriteLineageMermaid writes one fenced flowchart TD block per session.
// Node ids are generated, and labels escaped as entity codes, so any turn
// id or text renders.
func WriteLineageMermaid(w io.Writer, sessions []*lineage.Session, overviews []inspect.SessionOverview) error {
	undrawn, treeless := Undrawn(sessions, overviews)
	if len(sessions) == 0 && len(treeless) == 0 {
		fmt.Fprint(w, "```mermaid\nflowchart TD\n  empty[\"no accepted snapshots\"]\n```\n")
		return nil
	}
	for i, s := range sessions {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprint(w, "```mermaid\nflowchart TD\n")
		fmt.Fprintf(w, "  %%%% snapctl lineage: solid arrows are lineage, dotted ones the trunk in sequence order\n")
		fmt.Fprintf(w, "  s([\"session %s\"])\n", mermaidText(s.SessionID))
		ids := nodeIDs(s, "t")
		used := map[lineage.Operation]bool{}
		for _, n := range s.Turns {
			fmt.Fprintf(w, "  %s[\"%s\"]\n", ids[n], mermaidLabel(GraphLabel(n)))
			used[n.Operation] = true
		}
		prev := "s"
		for _, n := range s.Roots {
			fmt.Fprintf(w, "  %s -.-> %s\n", prev, ids[n])
			prev = ids[n]
		}
		for _, n := range s.Turns {
			for _, c := range n.Children {
				fmt.Fprintf(w, "  %s -->|%s| %s\n", ids[n], mermaidText(string(c.Operation)), ids[c])
			}
		}
		for _, op := range lineage.Operations {
			if used[op] {
				fmt.Fprintf(w, "  classDef %s fill:%s,stroke:%s\n", op, OpStyle[op][0], OpStyle[op][1])
			}
		}
		if s.Problems() > 0 {
			fmt.Fprintf(w, "  classDef problem stroke:%s,stroke-width:3px,stroke-dasharray:5 3\n", ProblemStroke)
		}
		if slices.ContainsFunc(s.Turns, Unfinished) {
			fmt.Fprintf(w, "  classDef unfinished fill:%s,stroke:%s,stroke-width:3px,stroke-dasharray:5 3\n", UnfinishedFill, ProblemStroke)
		}
		for _, n := range s.Turns {
			fmt.Fprintf(w, "  class %s %s\n", ids[n], n.Operation)
			if len(n.Problems) > 0 {
				fmt.Fprintf(w, "  class %s problem\n", ids[n])
			}
			if Unfinished(n) {
				fmt.Fprintf(w, "  class %s unfinished\n", ids[n])
			}
		}
		mermaidUndrawn(w, undrawn[s.SessionID])
		fmt.Fprint(w, "```\n")
	}
	for i, ov := range treeless {
		if i > 0 || len(sessions) > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprint(w, "```mermaid\nflowchart TD\n")
		fmt.Fprintf(w, "  s([\"session %s<br/>%s\"])\n", mermaidText(ov.SessionID), NoTree(ov))
		mermaidUndrawn(w, undrawn[ov.SessionID])
		fmt.Fprint(w, "```\n")
	}
	return nil
}

// mermaidUndrawn draws the turns of a session that have no node (no
// accepted snapshot) as the tree lists them after it: a dashed box each,
// tied to the session, with how the turn ended, so that a diagram shows
// every turn the verdict counts.
func mermaidUndrawn(w io.Writer, rows []inspect.TurnEnding) {
	if len(rows) == 0 {
		return
	}
	// A class for each outline used: a problem's, or the window's.
	classes := map[string]string{ProblemStroke: "undrawn", WindowStroke: "undrawnWindow"}
	defined := map[string]bool{}
	for k, e := range rows {
		fmt.Fprintf(w, "  u%d[\"%s\"]\n", k+1, mermaidLabel(UndrawnLabel(e)))
		fmt.Fprintf(w, "  s -.- u%d\n", k+1)
		defined[undrawnStroke(e)] = true
	}
	for _, stroke := range []string{ProblemStroke, WindowStroke} {
		if defined[stroke] {
			fmt.Fprintf(w, "  classDef %s fill:#ffffff,stroke:%s,stroke-dasharray:5 3\n", classes[stroke], stroke)
		}
	}
	for k, e := range rows {
		fmt.Fprintf(w, "  class u%d %s\n", k+1, classes[undrawnStroke(e)])
	}
}

// undrawnStroke is the outline of a turn with no node: a problem's, or
// grey when the window cut it (no problem then).
func undrawnStroke(e inspect.TurnEnding) string {
	if e.Window != nil {
		return WindowStroke
	}
	return ProblemStroke
}

// Undrawn is, for pictures other than the tree, what the tree lists
// after itself: by session id, the turns with no node of each session,
// drawn or not, and the sessions that have no tree at all, in the
// overview's order.
func Undrawn(sessions []*lineage.Session, overviews []inspect.SessionOverview) (bySession map[string][]inspect.TurnEnding, treeless []*inspect.SessionOverview) {
	byID, treeless := pairOverviews(sessions, overviews)
	bySession = map[string][]inspect.TurnEnding{}
	for _, s := range sessions {
		if ov := byID[s.SessionID]; ov != nil {
			bySession[s.SessionID] = undrawnTurns(s, ov)
		}
	}
	for _, ov := range treeless {
		bySession[ov.SessionID] = undrawnTurns(nil, ov)
	}
	return bySession, treeless
}

// NoTree says why a session has no tree to draw: none of its snapshots
// was accepted, or --turn keeps one of its turns with no node (only a
// turn's family leaves out a session that has a tree).
func NoTree(ov *inspect.SessionOverview) string {
	if ov.Accepted() > 0 {
		return "no node for this turn"
	}
	return "no accepted snapshot, no tree"
}

// UndrawnLabel is the label of a turn with no node, one string a line:
// its id, how it ended and where, and why it has no node.
func UndrawnLabel(e inspect.TurnEnding) []string {
	return []string{termsafe.String(e.TurnID), OutcomeIn(e.Ending, e.Code, e.Later != nil, e.Window != nil) + EndedAt(e, modelPosition), "no accepted snapshot"}
}

// nodeIDs names each turn by its place in sequence order.
func nodeIDs(s *lineage.Session, prefix string) map[*lineage.Node]string {
	ids := make(map[*lineage.Node]string, len(s.Turns))
	for i, n := range s.Turns {
		ids[n] = prefix + strconv.Itoa(i+1)
	}
	return ids
}

func mermaidLabel(lines []string) string {
	// Mermaid strips the last ";" of a line where "style" or "classDef"
	// comes before a ":" and a "#", which would break an entity code:
	// escaping every ":" of such a label leaves the pattern nothing to match.
	joined := strings.Join(lines, " ")
	colon := strings.Contains(joined, "style") || strings.Contains(joined, "classDef")
	for i, l := range lines {
		lines[i] = mermaidEscape(l, colon)
	}
	return strings.Join(lines, "<br/>")
}

// mermaidText escapes text for a quoted mermaid label: every ASCII
// character that mermaid or HTML could read as syntax (a quote, #, ;, <,
// >, &, a backslash, a backtick…), and every character that is not
// printable, becomes an entity code (#35;).
func mermaidText(s string) string { return mermaidEscape(s, false) }

// mermaidEscape is mermaidText that can also escape every ":".
func mermaidEscape(s string, colon bool) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == ':' && colon:
			b.WriteString("#58;")
		case r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(" .,:-_/!?'()+=*@%", r)):
			b.WriteRune(r)
		case r >= 0x80 && unicode.IsPrint(r):
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "#%d;", r)
		}
	}
	return b.String()
}

// WriteLineageDot writes one Graphviz digraph with a cluster per session.
func WriteLineageDot(w io.Writer, sessions []*lineage.Session, overviews []inspect.SessionOverview) error {
	undrawn, treeless := Undrawn(sessions, overviews)
	fmt.Fprint(w, "digraph lineage {\n  rankdir=TB;\n")
	fmt.Fprint(w, "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n")
	fmt.Fprint(w, "  edge [fontname=\"Helvetica\", fontsize=9];\n")
	for i, s := range sessions {
		fmt.Fprintf(w, "  subgraph cluster_%d {\n    label=%s;\n", i+1, dotString("session "+termsafe.String(s.SessionID)))
		ids := nodeIDs(s, "s"+strconv.Itoa(i+1)+"_t")
		for _, n := range s.Turns {
			st := OpStyle[n.Operation]
			attrs := fmt.Sprintf("label=%s, fillcolor=%q, color=%q", dotString(strings.Join(GraphLabel(n), "\n")), st[0], st[1])
			if fill := st[0]; len(n.Problems) > 0 || Unfinished(n) {
				if Unfinished(n) {
					fill = UnfinishedFill
				}
				attrs = fmt.Sprintf("label=%s, fillcolor=%q, color=%q, penwidth=2, style=\"rounded,filled,dashed\"",
					dotString(strings.Join(GraphLabel(n), "\n")), fill, ProblemStroke)
			}
			fmt.Fprintf(w, "    %s [%s];\n", ids[n], attrs)
		}
		for j := 1; j < len(s.Roots); j++ {
			fmt.Fprintf(w, "    %s -> %s [style=dotted, arrowhead=none];\n", ids[s.Roots[j-1]], ids[s.Roots[j]])
		}
		for _, n := range s.Turns {
			for _, c := range n.Children {
				fmt.Fprintf(w, "    %s -> %s [label=%s];\n", ids[n], ids[c], dotString(string(c.Operation)))
			}
		}
		dotUndrawn(w, "s"+strconv.Itoa(i+1)+"_u", undrawn[s.SessionID])
		fmt.Fprint(w, "  }\n")
	}
	for i, ov := range treeless {
		k := len(sessions) + i + 1
		fmt.Fprintf(w, "  subgraph cluster_%d {\n    label=%s;\n", k, dotString("session "+termsafe.String(ov.SessionID)+": "+NoTree(ov)))
		dotUndrawn(w, "s"+strconv.Itoa(k)+"_u", undrawn[ov.SessionID])
		fmt.Fprint(w, "  }\n")
	}
	fmt.Fprint(w, "}\n")
	return nil
}

// dotUndrawn draws a session's turns with no node (no accepted snapshot)
// in its cluster, dashed, as mermaidUndrawn does.
func dotUndrawn(w io.Writer, prefix string, rows []inspect.TurnEnding) {
	for k, e := range rows {
		fmt.Fprintf(w, "    %s%d [label=%s, fillcolor=\"#ffffff\", color=%q, style=\"rounded,filled,dashed\"];\n",
			prefix, k+1, dotString(strings.Join(UndrawnLabel(e), "\n")), undrawnStroke(e))
	}
}

// dotString quotes s as a DOT string. A newline becomes DOT's centred
// line break; backslashes are doubled so no other escape survives.
func dotString(s string) string {
	s = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
	return `"` + s + `"`
}

// The -o json contract, documented in the README: {"sessions": [{
// "sessionId", "roots", "problems", "turns": [turn...]}]}, where a turn is
// a lineageTurnJSON (writeLineageSession writes the rest by hand, turn by
// turn).
type (
	lineageTurnJSON struct {
		TurnID          string               `json:"turnId"`
		Operation       string               `json:"operation"`
		ParentTurnID    *string              `json:"parentTurnId"`
		SourceMessageID *string              `json:"sourceMessageId"`
		FirstSequence   int64                `json:"firstSequence"`
		LastSequence    int64                `json:"lastSequence"`
		Status          string               `json:"status"`
		ErrorCode       *string              `json:"errorCode"`
		Outcome         string               `json:"outcome"`
		OutcomeCode     *string              `json:"outcomeCode"`
		OutcomeFile     *string              `json:"outcomeFile"`
		OutcomeLine     *int                 `json:"outcomeLine"`
		OutcomeEntry    int                  `json:"outcomeEntry,omitempty"`
		CompletedLater  *completedLaterJSON  `json:"completedLater"`
		CutByWindow     bool                 `json:"cutByWindow,omitempty"`
		PastWindow      *positionJSON        `json:"pastWindow,omitempty"`
		FirstEmittedAt  string               `json:"firstEmittedAt"`
		LastEmittedAt   string               `json:"lastEmittedAt"`
		Usage           lineageUsageJSON     `json:"usage"`
		Preview         *string              `json:"preview,omitempty"`
		Input           *string              `json:"input,omitempty"`
		Children        []string             `json:"children"`
		Problems        []lineageProblemJSON `json:"problems"`
	}
	// completedLaterJSON is model.Later: the later snapshot that showed
	// the turn's unfinished reply complete, and how its text differs.
	completedLaterJSON struct {
		File       string `json:"file"`
		Entry      int    `json:"entry,omitempty"`
		Line       int    `json:"line"`
		Characters int    `json:"characters"`
		Prefix     bool   `json:"prefix"`
	}
	lineageUsageJSON struct {
		PromptTokens     int64 `json:"promptTokens"`
		CompletionTokens int64 `json:"completionTokens"`
		TotalTokens      int64 `json:"totalTokens"`
	}
	lineageProblemJSON struct {
		Kind   string `json:"kind"`
		Detail string `json:"detail"`
	}
)

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// WriteLineageJSON writes the flat, stable list of every session's turns,
// one session at a time: encoding the whole document at once held it
// twice more (encoding/json's buffer and its indented copy), over 1 GB for
// 200,000 sessions.
//
// With overviews (inspect's sessions, nil for none, as for --turn), each
// session also has the history its first accepted snapshot holds and
// the turns it has no node of, with how they ended (otherTurns), and a
// session with no accepted snapshot whose turns ended comes after the
// others with those alone, as the tree lists them (Tree.Overviews).
func WriteLineageJSON(w io.Writer, sessions []*lineage.Session, verdicts map[string]inspect.Verdict, overviews []inspect.SessionOverview, redact bool) error {
	e := jsonout.NewEncoder(w, jsonout.Document)
	e.BeginObject()
	e.Key("sessions")
	e.BeginArray()
	err := eachLineageSession(sessions, overviews, func(s *lineage.Session, ov *inspect.SessionOverview) error {
		return writeLineageSession(e, s, ov, overviews != nil, verdicts, redact)
	})
	if err != nil {
		return err
	}
	e.EndArray()
	e.EndObject()
	return e.End()
}

// eachLineageSession calls fn with each session drawn and its overview
// (nil when there are none), then with each session of overviews that has
// no tree but turns that ended (s is then an empty session of its id).
func eachLineageSession(sessions []*lineage.Session, overviews []inspect.SessionOverview, fn func(*lineage.Session, *inspect.SessionOverview) error) error {
	byID, treeless := pairOverviews(sessions, overviews)
	for _, s := range sessions {
		if err := fn(s, byID[s.SessionID]); err != nil {
			return err
		}
	}
	for _, ov := range treeless {
		if err := fn(&lineage.Session{SessionID: ov.SessionID}, ov); err != nil {
			return err
		}
	}
	return nil
}

// writeLineageSession writes one session turn by turn, flushing as it
// goes: a session of a hundred thousand chained turns is never encoded
// whole.
// With others, it writes earlierMessages and otherTurns from ov (nil:
// none known).
func writeLineageSession(e *jsonout.Encoder, s *lineage.Session, ov *inspect.SessionOverview, others bool, verdicts map[string]inspect.Verdict, redact bool) error {
	e.BeginObject()
	e.Key("sessionId")
	e.Str(s.SessionID)
	e.Key("verdict")
	var vj *verdictJSON
	if v, ok := verdicts[s.SessionID]; ok {
		j := verdictToJSON(v)
		vj = &j
	}
	if err := e.Value(vj); err != nil {
		return err
	}
	e.Key("roots")
	e.StringArray(len(s.Roots), func(i int) string { return s.Roots[i].TurnID })
	e.Key("problems")
	e.Int(int64(s.Problems()))
	e.Key("turns")
	e.BeginArray()
	for i, n := range s.Turns {
		lineageTurnToJSON(n, redact).write(e)
		if i%256 == 255 {
			if err := e.Flush(); err != nil {
				return err
			}
		}
	}
	e.EndArray()
	if others {
		earlier, undrawn := 0, []inspect.TurnEnding(nil)
		if ov != nil {
			earlier, undrawn = ov.Earlier, undrawnTurns(s, ov)
		}
		e.Key("earlierMessages")
		e.Int(int64(earlier))
		e.Key("otherTurns")
		e.BeginArray()
		for _, te := range undrawn {
			writeOtherTurn(e, te)
		}
		e.EndArray()
	}
	e.EndObject()
	return e.Flush()
}

// writeOtherTurn writes a turn lineage has no node of: its id and how it
// ended, as inspect's turnOutcomes has it.
func writeOtherTurn(e *jsonout.Encoder, te inspect.TurnEnding) {
	jt := lineageTurnJSON{TurnID: te.TurnID}
	jt.Outcome, jt.OutcomeCode, jt.OutcomeFile, jt.OutcomeLine, jt.OutcomeEntry, jt.CompletedLater = outcomeToJSON(te.Ending, te.Code, te.At, te.Later)
	jt.CutByWindow, jt.PastWindow = windowToJSON(te.Window)
	e.BeginObject()
	e.Key("turnId")
	e.Str(jt.TurnID)
	jt.writeOutcome(e)
	e.EndObject()
}

// WriteLineageJSONL writes one session per line, as in the document's
// sessions.
func WriteLineageJSONL(w io.Writer, sessions []*lineage.Session, verdicts map[string]inspect.Verdict, overviews []inspect.SessionOverview, redact bool) error {
	e := jsonout.NewEncoder(w, jsonout.Lines)
	return eachLineageSession(sessions, overviews, func(s *lineage.Session, ov *inspect.SessionOverview) error {
		if err := writeLineageSession(e, s, ov, overviews != nil, verdicts, redact); err != nil {
			return err
		}
		return e.End()
	})
}

func lineageTurnToJSON(n *lineage.Node, redact bool) lineageTurnJSON {
	jt := lineageTurnJSON{
		TurnID: n.TurnID, Operation: string(n.Operation),
		ParentTurnID: optString(n.ParentTurnID), SourceMessageID: optString(n.SourceMessageID),
		FirstSequence: n.FirstSequence, LastSequence: n.LastSequence, Status: string(n.Status), ErrorCode: optString(n.ErrorCode),
		FirstEmittedAt: n.FirstEmittedAt, LastEmittedAt: n.LastEmittedAt,
		Usage:    lineageUsageJSON{n.Usage.PromptTokens, n.Usage.CompletionTokens, n.Usage.TotalTokens},
		Children: []string{}, Problems: []lineageProblemJSON{},
	}
	e, code, at := n.Ending()
	jt.Outcome, jt.OutcomeCode, jt.OutcomeFile, jt.OutcomeLine, jt.OutcomeEntry, jt.CompletedLater = outcomeToJSON(e, code, at, n.Later())
	jt.CutByWindow, jt.PastWindow = windowToJSON(n.CutByWindow())
	if !redact {
		preview := n.Preview
		jt.Preview = &preview
		if n.HasInput {
			input := n.Input
			jt.Input = &input
		}
	}
	for _, c := range n.Children {
		jt.Children = append(jt.Children, c.TurnID)
	}
	for _, p := range n.Problems {
		jt.Problems = append(jt.Problems, lineageProblemJSON{Kind: string(p.Kind), Detail: p.Detail})
	}
	return jt
}

// write writes the turn as e.Value(jt) does, field by field: encoding/json
// and the layout of its output were most of what writing lineage -o json
// cost, after the run, where nothing runs beside it. TestLineageTurnWrite
// holds the two to the same bytes.
func (jt lineageTurnJSON) write(e *jsonout.Encoder) {
	optStr := func(key string, s *string) {
		e.Key(key)
		writeOptString(e, s)
	}
	e.BeginObject()
	e.Key("turnId")
	e.Str(jt.TurnID)
	e.Key("operation")
	e.Str(jt.Operation)
	optStr("parentTurnId", jt.ParentTurnID)
	optStr("sourceMessageId", jt.SourceMessageID)
	e.Key("firstSequence")
	e.Int(jt.FirstSequence)
	e.Key("lastSequence")
	e.Int(jt.LastSequence)
	e.Key("status")
	e.Str(jt.Status)
	optStr("errorCode", jt.ErrorCode)
	jt.writeOutcome(e)
	e.Key("firstEmittedAt")
	e.Str(jt.FirstEmittedAt)
	e.Key("lastEmittedAt")
	e.Str(jt.LastEmittedAt)
	e.Key("usage")
	writeUsage(e, replay.Usage(jt.Usage))
	if jt.Preview != nil {
		optStr("preview", jt.Preview)
	}
	if jt.Input != nil {
		optStr("input", jt.Input)
	}
	e.Key("children")
	if jt.Children == nil {
		e.Null()
	} else {
		e.StringArray(len(jt.Children), func(i int) string { return jt.Children[i] })
	}
	e.Key("problems")
	if jt.Problems == nil {
		e.Null()
	} else {
		e.BeginArray()
		for _, p := range jt.Problems {
			e.BeginObject()
			e.Key("kind")
			e.Str(p.Kind)
			e.Key("detail")
			e.Str(p.Detail)
			e.EndObject()
		}
		e.EndArray()
	}
	e.EndObject()
}

// writeOutcome writes the turn's outcome keys, from outcome to
// completedLater, and cutByWindow and pastWindow when the window cut it.
func (jt lineageTurnJSON) writeOutcome(e *jsonout.Encoder) {
	e.Key("outcome")
	e.Str(jt.Outcome)
	e.Key("outcomeCode")
	writeOptString(e, jt.OutcomeCode)
	e.Key("outcomeFile")
	writeOptString(e, jt.OutcomeFile)
	e.Key("outcomeLine")
	if jt.OutcomeLine == nil {
		e.Null()
	} else {
		e.Int(int64(*jt.OutcomeLine))
	}
	if jt.OutcomeEntry != 0 {
		e.Key("outcomeEntry")
		e.Int(int64(jt.OutcomeEntry))
	}
	e.Key("completedLater")
	if l := jt.CompletedLater; l == nil {
		e.Null()
	} else {
		e.BeginObject()
		writePlace(e, l.File, l.Entry, l.Line)
		e.Key("characters")
		e.Int(int64(l.Characters))
		e.Key("prefix")
		e.Bool(l.Prefix)
		e.EndObject()
	}
	if jt.CutByWindow {
		e.Key("cutByWindow")
		e.Bool(true)
	}
	if p := jt.PastWindow; p != nil {
		e.Key("pastWindow")
		e.BeginObject()
		writePlace(e, p.File, p.Entry, p.Line)
		e.EndObject()
	}
}

// windowToJSON is where the capture goes on with a turn past the window
// that cut it (model.Turn.CutByWindow) as inspect's and lineage's JSON
// give it: cutByWindow and pastWindow, both left out when no window did.
func windowToJSON(p *model.Position) (bool, *positionJSON) {
	if p == nil {
		return false, nil
	}
	return true, &positionJSON{File: p.File, Entry: p.Entry, Line: p.Line}
}

// writeOptString writes s, or null for nil.
func writeOptString(e *jsonout.Encoder, s *string) {
	if s == nil {
		e.Null()
	} else {
		e.Str(*s)
	}
}

// outcomeToJSON is a turn's outcome as inspect's and lineage's JSON give
// it: the outcome's name, its code and its line (null when there is none)
// with its HAR entry (0 for none), and the later snapshot that completed
// the reply.
func outcomeToJSON(o model.Ending, code string, at model.Position, l *model.Later) (string, *string, *string, *int, int, *completedLaterJSON) {
	var file *string
	var line *int
	if at.Line > 0 {
		file, line = &at.File, &at.Line
	}
	var cl *completedLaterJSON
	if l != nil {
		cl = &completedLaterJSON{File: l.At.File, Entry: l.At.Entry, Line: l.At.Line, Characters: l.Chars, Prefix: l.Prefix}
	}
	return o.String(), optString(code), file, line, at.Entry, cl
}

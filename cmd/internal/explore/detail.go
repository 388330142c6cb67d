package explore

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/render"
	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/diff"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/inspect/lineage"
	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
	"github.com/charmbracelet/x/ansi"
)

// detailLines renders the selected tab for row i at width w, wrapped.
func (m *exploreModel) detailLines(i, w int) []string {
	if i < 0 {
		return nil
	}
	var b bytes.Buffer
	out := bufio.NewWriter(&b)
	switch m.tab {
	case tabEvent:
		m.eventTab(out, i)
	case tabProjection:
		m.projectionTab(out, i)
	case tabDiff:
		m.diffTab(out, i)
	case tabLineage:
		m.lineageTab(out, i, w)
	case tabFindings:
		m.findingsTab(out, i)
	}
	out.Flush()
	text := strings.TrimRight(b.String(), "\n")
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		lines = append(lines, strings.Split(ansi.Wrap(l, w, ""), "\n")...)
	}
	return lines
}

// position names row i's line in the one form (text.Position), with its
// HAR entry when it has one, and its file when there are several.
func (m *exploreModel) position(i int) string {
	r := m.x.row(i)
	return m.at(m.x.name(r), m.x.entry(i), int(r.line))
}

// at names a line of the captures as position does.
func (m *exploreModel) at(file string, entry, line int) string {
	switch {
	case len(m.x.files) > 1:
		return text.Position(termsafe.String(file), entry, line)
	case entry > 0:
		return text.Position("", entry, line)
	}
	return fmt.Sprintf("line %d", line)
}

// atModel is at for a position of the model.
func (m *exploreModel) atModel(p model.Position) string { return m.at(p.File, p.Entry, p.Line) }

func (m *exploreModel) verdictLine(i int) string {
	if m.x.isOff(i) {
		return m.st.dim("toggled off (x): the cursor never sees this line")
	}
	res := m.x.result(i)
	s := m.reasonColour(res.Reason)(fmt.Sprintf("%s (%s)", res.Verdict(), res.Reason))
	if d := render.Detail(res, m.redact, m.x.opts.EventPath); d != "" {
		s += ": " + d
	}
	return s
}

// endedHere says which unfinished turns ended at row i (the rows n stops
// at for no finding), in the words of inspect --line.
func (m *exploreModel) endedHere(out *bufio.Writer, i int) {
	if _, ok := slices.BinarySearch(m.x.ends, int32(i)); !ok || m.x.isOff(i) {
		return
	}
	r := m.x.row(i)
	here := model.Position{File: m.x.name(r), Entry: m.x.entry(i), Line: int(r.line)}
	for _, e := range m.x.ended {
		if e.At == here {
			fmt.Fprintln(out, "ended: "+m.pal.Red(render.EndedWords(e.TurnID, e.Ending, e.Code, e.Later, m.atModel)))
		}
	}
}

func (m *exploreModel) eventTab(out *bufio.Writer, i int) {
	r := m.x.row(i)
	head := m.position(i)
	ev, raw, err := m.x.decode(i)
	if ev != nil {
		head += fmt.Sprintf("  %s  event %s  session %s  turn %s  sequence %d", ev.Kind,
			termsafe.String(ev.EventID), termsafe.String(ev.SessionID), termsafe.String(ev.TurnID), ev.Sequence)
	}
	fmt.Fprintln(out, m.pal.Bold(head))
	fmt.Fprintln(out, "verdict: "+m.verdictLine(i))
	m.endedHere(out, i)
	if fs := m.citing(i); len(fs) > 0 {
		names := make([]string, len(fs))
		for k, f := range fs {
			names[k] = render.SeverityColour(m.pal, f.Severity)(f.ID + " (" + string(f.Severity) + ")")
		}
		fmt.Fprintln(out, "cited by: "+strings.Join(names, ", ")+m.st.dim("  (5 Findings says why)"))
	}
	switch {
	case err != nil:
		fmt.Fprintln(out, m.pal.Red(termsafe.String(err.Error())))
		return
	case r.tooLong():
		fmt.Fprintln(out, m.pal.Dim("(line not shown: longer than --max-line)"))
		return
	}
	if r.malformed() {
		m.malformed(out, raw)
		return
	}
	fmt.Fprintln(out)
	switch {
	case m.redact:
		render.ShowJSON(out, m.pal, render.RedactEvent(raw))
	case json.Valid(raw):
		render.ShowJSON(out, m.pal, raw)
	default:
		fmt.Fprintln(out, termsafe.String(string(raw)))
	}
}

// malformed shows a malformed line: every problem, and the line with the
// offending place marked: ▮ at the byte of a JSON syntax error, or ▶ on
// the lines of the pretty-printed event with the last key of a problem's
// path (every such key: the mark does not follow array indexes).
func (m *exploreModel) malformed(out *bufio.Writer, raw []byte) {
	d := replay.Decoder{AllProblems: true, EventPath: m.x.opts.EventPath}
	var ev replay.Event
	derr := d.Decode(raw, &ev)
	if derr == nil {
		return
	}
	fmt.Fprintf(out, "decode: %s, %s\n", m.pal.Red(string(derr.Code)), text.Plural(len(derr.Problems), "problem"))
	var keys []string
	for _, p := range derr.Problems {
		if m.redact {
			p = p.Redact()
		}
		fmt.Fprintf(out, "  %s\n", m.pal.Red(termsafe.String(p.String())))
		if k := lastPathKey(p.Path); k != "" {
			keys = append(keys, `"`+k+`"`)
		}
	}
	fmt.Fprintln(out)
	switch {
	case m.redact && !json.Valid(raw):
		fmt.Fprintln(out, m.pal.Dim(fmt.Sprintf("(line not shown: not JSON, %s, hidden by --redact)", text.Plural(len(raw), "byte"))))
	case m.redact:
		render.ShowJSON(out, m.pal, render.RedactEvent(raw))
	case !json.Valid(raw):
		at := max(0, min(derr.Offset, len(raw)))
		fmt.Fprintln(out, termsafe.String(string(raw[:at]))+m.pal.Red("▮")+m.st.selected(m.pal.Red(termsafe.String(string(raw[at:])))))
	default:
		var b bytes.Buffer
		render.ShowJSON(&b, noColour, raw)
		for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
			if hasAny(l, keys) {
				l = m.st.selected(m.pal.Red("▶ " + l))
			} else {
				l = "  " + l
			}
			fmt.Fprintln(out, l)
		}
	}
}

// noColour is a iostreams.Palette that leaves text as it is, for text that is
// searched before it is coloured.
var noColour = func() iostreams.Palette {
	same := func(s string) string { return s }
	return iostreams.Palette{Green: same, Yellow: same, Red: same, Cyan: same, Magenta: same, Blue: same, Bold: same, Dim: same}
}()

func hasAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub+":") {
			return true
		}
	}
	return false
}

// lastPathKey is the last object key of a problem's path, such as
// createdAt in payload.messages[2].createdAt.
func lastPathKey(path string) string {
	path = strings.TrimRight(path, "]0123456789[")
	if i := strings.LastIndexAny(path, ".["); i >= 0 {
		path = path[i+1:]
	}
	return strings.Trim(path, `"]`)
}

// projectionRow is the accepted row whose projection the client holds
// after row i: that of row i's session.
func (m *exploreModel) projectionRow(i int) (int, string) {
	if a := m.x.acc(i); a >= 0 {
		return a, ""
	}
	s := m.x.sessionID(m.x.row(i))
	if s == "" {
		return -1, "a malformed line names no session: no projection (pin one with --session)"
	}
	return -1, "session " + termsafe.String(s) + " has no accepted snapshot yet at this line"
}

func (m *exploreModel) projectionTab(out *bufio.Writer, i int) {
	a, why := m.projectionRow(i)
	if a < 0 {
		fmt.Fprintln(out, why)
		return
	}
	ev, _, err := m.x.decode(a)
	if err != nil || ev == nil {
		fmt.Fprintln(out, m.pal.Red("cannot read the accepted line again"))
		return
	}
	s := &ev.Snapshot
	fmt.Fprintf(out, "%s\n", m.pal.Bold(fmt.Sprintf("session %s after %s", termsafe.String(ev.SessionID), m.position(i))))
	fmt.Fprintf(out, "accepted at %s: sequence %d, turn %s, status %s\n", m.position(a), ev.Sequence, termsafe.String(ev.TurnID),
		render.ShownField("payload.status", string(s.Status), m.redact))
	switch p := m.x.prevAcc(a); {
	case a != i:
		fmt.Fprintln(out, m.st.dim("this line changed nothing: the same projection before and after it"))
	case p >= 0:
		fmt.Fprintln(out, m.st.dim(fmt.Sprintf("before this line: sequence %d of %s (3 Diff shows the change)", m.x.row(p).seq, m.position(p))))
	default:
		fmt.Fprintln(out, m.st.dim("before this line: nothing (the session's first accepted snapshot)"))
	}
	fmt.Fprintf(out, "usage: prompt %d, completion %d, total %d\n", s.Usage.PromptTokens, s.Usage.CompletionTokens, s.Usage.TotalTokens)
	if s.HasError {
		fmt.Fprintf(out, "error: %s\n", m.pal.Red(render.ShownField("payload.error.code", string(s.Error.Code), m.redact)))
	}
	for _, msg := range s.Messages {
		fmt.Fprintln(out)
		field := func(name, v string) string { return render.ShownField("payload.messages[]."+name, v, m.redact) }
		fmt.Fprintf(out, "%s %s %s\n", m.pal.Cyan(field("role", string(msg.Role))), m.pal.Dim(field("status", string(msg.Status))), m.pal.Dim(field("id", msg.ID)))
		m.text(out, msg.Content)
		for _, tc := range msg.ToolCalls {
			args := string(tc.Args)
			if m.redact {
				args = "…"
			}
			fmt.Fprintf(out, "  ⚙ %s(%s) %s\n", field("toolCalls[].name", tc.Name), termsafe.Line(args, 200), field("toolCalls[].status", string(tc.Status)))
		}
	}
}

// text writes message text line by line, escaped; --redact hides it.
func (m *exploreModel) text(out *bufio.Writer, s string) {
	if m.redact {
		fmt.Fprintln(out, m.pal.Dim(fmt.Sprintf("  (text hidden: %s)", text.Plural(len(s), "byte"))))
		return
	}
	for _, l := range strings.Split(s, "\n") {
		for _, w := range strings.Split(ansi.Wrap(termsafe.String(l), m.detailWidth()-2, ""), "\n") {
			fmt.Fprintln(out, "  "+w)
		}
	}
}

// diffTab compares the projection after row i with the one accepted
// before it, with snapctl diff's rules and words.
func (m *exploreModel) diffTab(out *bufio.Writer, i int) {
	a, why := m.projectionRow(i)
	if a < 0 {
		fmt.Fprintln(out, why)
		return
	}
	p := m.x.prevAcc(a)
	if p < 0 {
		fmt.Fprintf(out, "%s is the session's first accepted snapshot: nothing to compare\n", m.position(a))
		return
	}
	oldEv, _, err1 := m.x.decode(p)
	newEv, _, err2 := m.x.decode(a)
	if err1 != nil || err2 != nil || oldEv == nil || newEv == nil {
		fmt.Fprintln(out, m.pal.Red("cannot read the accepted lines again"))
		return
	}
	old := diff.ProjectionOf(&replay.Result{File: m.x.name(m.x.row(p)), Line: m.x.line(p), Origin: m.x.origin(p), Event: oldEv})
	cur := diff.ProjectionOf(&replay.Result{File: m.x.name(m.x.row(a)), Line: m.x.line(a), Origin: m.x.origin(a), Event: newEv})
	pd := diff.Compare(old, cur)
	pd.Explain(old.Messages, cur.Lineage)
	pd.Inert = m.inertBetween(p, a)
	w := render.NewDiffText(out, m.pal, render.DiffTextOptions{Redact: m.redact, WithFile: len(m.fileNames()) > 1})
	w.Pair(&pd)
}

// inertBetween counts by reason the inert lines in play between two
// accepted rows of one session, as snapctl diff's Differ does: every
// malformed line, and the inert events of that session, or of any
// session when one is pinned.
func (m *exploreModel) inertBetween(from, to int) map[replay.Reason]int {
	s := m.x.row(to).session
	n := map[replay.Reason]int{}
	for i := from + 1; i < to; i++ {
		reason := m.x.reason(i)
		if m.x.isOff(i) || reason.Verdict() != replay.Inert {
			continue
		}
		if reason == replay.ReasonMalformed || m.x.opts.Session != "" || m.x.row(i).session == s {
			n[reason]++
		}
	}
	return n
}

func (m *exploreModel) fileNames() []string {
	names := make([]string, len(m.x.files))
	for i, f := range m.x.files {
		names[i] = f.name
	}
	return names
}

// lineageTab draws the tree of row i's session, with its turn marked.
func (m *exploreModel) lineageTab(out *bufio.Writer, i, w int) {
	if m.feed != nil {
		fmt.Fprintln(out, "the lineage is drawn once the input ends")
		return
	}
	id := m.x.sessionID(m.x.row(i))
	var sel []*lineage.Session
	for _, s := range m.x.sessions {
		if s.SessionID == id {
			sel = append(sel, s)
		}
	}
	if id == "" {
		// A line that does not decode to an event of a session: a
		// server error body names none, even when the model knows
		// which submit it refused (the Event tab says so).
		fmt.Fprintln(out, "this line names no session: no tree")
		m.whatIfNote(out, "tree")
		return
	}
	if len(sel) == 0 {
		// Its turns ended even so: a diagnostic alone, a submit no
		// snapshot answered, snapshots all inert.
		fmt.Fprintln(out, "no accepted snapshot of this line's session: no tree")
		m.outcomes(out, id)
		m.whatIfNote(out, "tree")
		return
	}
	if m.redact {
		render.RedactSessions(sel)
	}
	var b bytes.Buffer
	for k, s := range sel {
		// The tree's own headline counts lineage's problems only: the
		// session's verdict replaces it, as in every view.
		if k > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s: %s (%s)\nverdict: %s\n", m.pal.Bold("session "+termsafe.String(s.SessionID)),
			text.Plural(len(s.Turns), "turn"), render.OpCounts(s), m.verdict(s.SessionID))
		if h := render.HistoryWords(m.x.endings[s.SessionID].earlier); h != "" {
			fmt.Fprintf(&b, "history: %s\n", h)
		}
		var t bytes.Buffer
		render.NewTree(&t, m.pal, w-2, false).Write([]*lineage.Session{s})
		_, tree, _ := strings.Cut(t.String(), "\n")
		b.WriteString(tree)
	}
	turn := termsafe.String(m.x.turnID(i))
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		if turn != "" && strings.Contains(ansi.Strip(l), " "+turn+" ") || strings.HasSuffix(ansi.Strip(l), " "+turn) {
			fmt.Fprintln(out, m.st.selected("▶ "+ansi.Strip(l)))
			continue
		}
		fmt.Fprintln(out, "  "+l)
	}
	m.outcomes(out, id)
	m.whatIfNote(out, "tree")
}

// outcomes lists how each turn of the session ended for the client, whole,
// with where (the tree cuts its lines to the pane): the model's endings,
// as inspect's outcomes line and the report's turn list have them, so a
// turn the tree has no node of (no accepted snapshot) is listed too.
func (m *exploreModel) outcomes(out *bufio.Writer, session string) {
	endings := m.x.endings[session].endings
	if len(endings) == 0 {
		return // a session the pin leaves foreign ended no turn
	}
	fmt.Fprintln(out)
	fmt.Fprintln(out, m.pal.Bold("outcomes"))
	for _, e := range endings {
		colour := m.pal.Green
		switch {
		case e.Window != nil:
			colour = m.st.dim // the window cut it: no problem
		case e.Ending != model.EndComplete:
			colour = m.pal.Red
		}
		fmt.Fprintf(out, "  %s  %s%s\n", termsafe.String(e.TurnID), colour(render.OutcomeIn(e.Ending, e.Code, false, e.Window != nil)), render.EndedAt(e, m.atModel))
	}
}

// whatIfNote says which lines the findings or the tree are of.
func (m *exploreModel) whatIfNote(out *bufio.Writer, what string) {
	switch n := m.toggled(); {
	case m.pending:
		fmt.Fprintln(out, m.st.dim(fmt.Sprintf("recomputing the %s without the %s toggled off…", what, text.Plural(n, "line"))))
	case n > 0:
		fmt.Fprintln(out, m.st.dim(fmt.Sprintf("the %s of the capture without the %s toggled off", what, text.Plural(n, "line"))))
	}
}

// findingsTab lists the inspect findings that name row i.
func (m *exploreModel) findingsTab(out *bufio.Writer, i int) {
	if m.feed != nil {
		fmt.Fprintln(out, "findings are known once the input ends")
		return
	}
	if id := m.x.sessionID(m.x.row(i)); id != "" {
		fmt.Fprintf(out, "%s verdict: %s\n\n", m.pal.Bold("session "+termsafe.String(id)), m.verdict(id))
	}
	fs := m.citing(i)
	for _, f := range fs {
		fmt.Fprintf(out, "%s  %s\n  %s\n", render.SeverityColour(m.pal, f.Severity)(fmt.Sprintf("%-7s", f.Severity)),
			m.pal.Bold(f.ID), termsafe.String(f.Message))
	}
	if len(fs) == 0 {
		fmt.Fprintf(out, "no finding involves this line (%s in the capture)\n", text.Plural(len(m.x.findings), "finding"))
	}
	m.whatIfNote(out, "findings")
}

// verdict is a session's verdict in the words of every view
// (render.VerdictWords, from inspect.Verdict), coloured by its worst: green
// when clean, red with an error, else yellow.
func (m *exploreModel) verdict(session string) string {
	v, ok := m.x.verdicts[session]
	if !ok {
		return m.st.dim("no verdict")
	}
	colour := m.pal.Green
	switch {
	case v.Count(inspect.SeverityError) > 0:
		colour = m.pal.Red
	case !v.Clean():
		colour = m.pal.Yellow
	}
	return colour(render.VerdictWords(v))
}

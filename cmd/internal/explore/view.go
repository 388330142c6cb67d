package explore

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
	"github.com/charmbracelet/x/ansi"
)

// exploreStyles are the explorer's own styles; each is the identity when
// colour is off (NO_COLOR, --color never).
type exploreStyles struct {
	selected, header, dim, marked func(string) string
}

func newExploreStyles(pal iostreams.Palette) exploreStyles {
	on := pal.Bold("x") != "x"
	style := func(s lipgloss.Style) func(string) string {
		if !on {
			return func(t string) string { return t }
		}
		return func(t string) string { return s.Render(t) }
	}
	return exploreStyles{
		selected: style(lipgloss.NewStyle().Reverse(true)),
		header:   style(lipgloss.NewStyle().Bold(true)),
		dim:      style(lipgloss.NewStyle().Faint(true)),
		marked:   style(lipgloss.NewStyle().Strikethrough(true)),
	}
}

// listWidth is the width of the event list; the detail takes the rest,
// after a one-cell rule.
func (m *exploreModel) listWidth() int {
	_, lw := m.layout()
	return lw
}

// sessionColumn says whether the list shows sessions: when the capture
// has several and all are listed.
func (m *exploreModel) sessionColumn() bool { return len(m.x.ids) > 1 && m.session == 0 }

func (m *exploreModel) detailWidth() int { return max(1, m.width-m.listWidth()-1) }

// View lays the model out: the timeline, the list beside the detail,
// and the help bar or prompt.
func (m *exploreModel) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "snapctl explore"
	return v
}

// render is the screen as text, one line per terminal row.
func (m *exploreModel) render() string {
	if m.width < 20 || m.height < 5 {
		return ansi.Truncate("snapctl explore: terminal too small", m.width, "")
	}
	out := make([]string, 0, m.height)
	cells, top := m.strip()
	out = append(out, m.timeline(cells))
	if m.legendRows() > 0 {
		out = append(out, fitCells(m.legend(cells, top), m.width))
	}
	lw, dw, h := m.listWidth(), m.detailWidth(), m.listHeight()
	if m.showHelp {
		out = append(out, m.helpLines(h+1)...)
	} else {
		out = append(out, fitCells(m.st.header(m.listHeader()), lw)+"│"+fitCells(m.tabBar(), dw))
		list := m.listLines(lw, h)
		for i := 0; i < h; i++ {
			d := ""
			if j := m.scroll + i; j < len(m.lines) {
				d = m.lines[j]
			}
			out = append(out, fitCells(list[i], lw)+"│"+fitCells(d, dw))
		}
	}
	out = append(out, fitCells(m.bottomLine(), m.width))
	return strings.Join(out, "\n")
}

// fitCells cuts or pads s, which may hold styles, to exactly w cells.
func fitCells(s string, w int) string {
	s = ansi.Truncate(s, w, "")
	if n := text.Width(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

// listColumns are the widths of the list's columns after the mark and
// the finding column: ENTRY (0 when no line is of a HAR entry), LINE,
// KIND, SESSION (0 when the list shows one session), TURN, SEQ and REASON
// (whose colour gives the verdict).
type listColumns struct{ entry, line, session, turn, seq, reason int }

const colKind = 4

// width is the list's width with these columns.
func (c listColumns) width() int {
	w := 2 + c.line + 1 + colKind + 1 + c.turn + 1 + c.seq + 1 + c.reason
	if c.entry > 0 {
		w += c.entry + 1
	}
	if c.session > 0 {
		w += c.session + 1
	}
	return w
}

// listedRows is what the list needs of the rows it lists, gathered row
// by row as they are listed: the ids they share, the widths of their
// values.
type listedRows struct {
	sessions, turns prefixes
	top             uint32 // the last line number
	// seqLo and seqHi are the smallest and largest sequence, whose digits
	// are the most, when seqs is set.
	seqLo, seqHi int64
	seqs         bool
	turnWidth    int
	// sessionWidth is the widest of the first ids of x.ids, every
	// session's, listed or not.
	sessionWidth, ids int
}

// add takes row r, listed.
func (l *listedRows) add(x *exploreIndex, r *exploreRow) {
	l.top = max(l.top, r.line)
	if r.kind() != "" {
		if !l.seqs {
			l.seqLo, l.seqHi, l.seqs = r.seq, r.seq, true
		}
		l.seqLo, l.seqHi = min(l.seqLo, r.seq), max(l.seqHi, r.seq)
	}
	l.sessions.add(x.sessionID(r))
	// Only the turns of the table: one read from its line is left out.
	if t, ok := x.listedTurn(r); ok {
		l.turns.add(t)
		l.turnWidth = max(l.turnWidth, text.Width(termsafe.String(t)))
	}
}

// naturalColumns are the widths the listed rows need, every value whole.
func (m *exploreModel) naturalColumns() listColumns {
	l := &m.listed
	c := listColumns{line: len("LINE"), seq: len("SEQ"), turn: max(len("TURN"), l.turnWidth), reason: len("non-snapshot")}
	if m.x.opts.Session != "" {
		c.reason = len(replay.ReasonForeignSession)
	}
	if len(m.x.entries) > 0 {
		entry := 0
		for _, e := range m.x.entries {
			entry = max(entry, int(e.entry))
		}
		c.entry = max(len("ENTRY"), len(strconv.Itoa(entry)))
	}
	c.line = max(c.line, len(strconv.FormatUint(uint64(l.top), 10)))
	if l.seqs {
		c.seq = max(c.seq, len(strconv.FormatInt(l.seqLo, 10)), len(strconv.FormatInt(l.seqHi, 10)))
	}
	if m.sessionColumn() {
		c.session = max(len("SESSION"), l.sessionWidth)
	}
	return c
}

// layout fits the columns to the list's room, about half the screen: a
// list that needs less leaves the rest to the detail; one that needs more
// shortens free text only, never a number: the reason and long ids first
// (session ids, then the reason, then turn ids, to 10 cells), then it
// takes up to 70% of the screen, and only then are ids cut further (to 6
// cells, the reason to 5). A list of numbers wider than the screen is cut
// at its edge.
func (m *exploreModel) layout() (listColumns, int) {
	c := m.natural
	if !m.sessionColumn() {
		c.session = 0
	} else if c.session == 0 {
		c.session = len("SESSION")
	}
	room := m.width * 55 / 100
	if m.width < 100 {
		room = m.width * 60 / 100
	}
	if c.width() <= room {
		// Room to spare goes to the detail.
		return c, c.width()
	}
	over := c.width() - room
	take := func(w *int, least int) {
		if d := min(over, *w-least); d > 0 {
			*w -= d
			over -= d
		}
	}
	shorten := func(least int) {
		if c.session > 0 {
			take(&c.session, least)
		}
		take(&c.reason, least-1)
		take(&c.turn, least)
	}
	shorten(10)
	if wider := m.width * 70 / 100; over > 0 && wider > room {
		over = max(0, over-(wider-room))
		room = wider
	}
	shorten(6)
	return c, min(c.width(), max(1, m.width-2))
}

// ids are the session and turn cells, each fitted to its width.
func (m *exploreModel) ids(session, turn string, sw, tw int) string {
	if sw <= 0 {
		return idCell(turn, m.turnPrefix, tw)
	}
	return idCell(session, m.sessionPrefix, sw) + " " + idCell(turn, m.turnPrefix, tw)
}

// idCell fits an id to w cells, escaped. An id too long for it loses the
// prefix every listed id shares first (session-alpha as …alpha), then its
// middle.
func idCell(id, prefix string, w int) string {
	if text.Width(termsafe.String(id)) > w && prefix != "" && len(id) > len(prefix) && strings.HasPrefix(id, prefix) {
		id = "…" + id[len(prefix):]
	}
	return padCells(text.Shorten(termsafe.String(id), w, text.FitMiddle), w)
}

// sharedPrefix is the prefix all of ids share, cut after its last
// character that is not a letter or digit (session- of session-a and
// session-b, turn- of turn-1 and turn-10), or "" for fewer than two.
func sharedPrefix(ids func(yield func(string) bool)) string {
	var p prefixes
	for id := range ids {
		p.add(id)
	}
	return p.shared()
}

// prefixes gathers the prefix of ids taken one at a time (sharedPrefix).
type prefixes struct {
	prefix string // all the ids share, uncut
	n      int    // ids taken, but empty ones
}

func (p *prefixes) add(id string) {
	if id == "" {
		return
	}
	if p.n == 0 {
		p.prefix = id
	}
	for !strings.HasPrefix(id, p.prefix) {
		p.prefix = p.prefix[:len(p.prefix)-1]
	}
	p.n++
}

// shared is the prefix of the ids taken, cut as sharedPrefix says.
func (p *prefixes) shared() string {
	if p.n < 2 {
		return ""
	}
	return p.prefix[:strings.LastIndexFunc(p.prefix, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })+1]
}

func (m *exploreModel) listHeader() string {
	c, _ := m.layout()
	focus := " "
	if !m.detail {
		focus = "»"
	}
	return fmt.Sprintf("%s %s%*s %-*s %s %*s %s", focus, entryCell("ENTRY", c.entry), c.line, "LINE", colKind, "KIND",
		m.ids("SESSION", "TURN", c.session, c.turn), c.seq, "SEQ", text.Shorten("REASON", c.reason, text.FitTail))
}

// entryCell is the ENTRY column's cell and the space after it, or nothing
// when there is no such column.
func entryCell(s string, w int) string {
	if w == 0 {
		return ""
	}
	return fmt.Sprintf("%*s ", w, s)
}

func (m *exploreModel) listLines(lw, h int) []string {
	lines := make([]string, h)
	if len(m.view) == 0 {
		lines[0] = " no events"
		return lines
	}
	c, _ := m.layout()
	for i := 0; i < h && m.top+i < len(m.view); i++ {
		p := m.top + i
		lines[i] = m.listRow(int(m.view[p]), c, lw, p == m.pos)
	}
	return lines
}

// kindCell names an event kind in four cells.
func kindCell(k replay.Kind) string {
	switch k {
	case replay.KindSnapshot:
		return "snap"
	case replay.KindSubmit:
		return "subm"
	case "":
		return "-"
	}
	return "diag"
}

func (m *exploreModel) listRow(i int, c listColumns, lw int, sel bool) string {
	r, why := m.x.row(i), m.x.reason(i)
	// The mark shows the selection without colour too: > selected, x
	// toggled off, X both.
	mark, reason := " ", string(why)
	if sel {
		mark = ">"
	}
	if m.x.isOff(i) {
		mark, reason = "x", "(off)"
		if sel {
			mark = "X"
		}
	}
	seq := "-"
	if r.kind() != "" {
		seq = strconv.FormatInt(r.seq, 10)
	}
	glyph, glyphColour := m.findingMark(r)
	if sel {
		glyphColour = nil
	}
	if glyphColour != nil {
		glyph = glyphColour(glyph)
	}
	entry := ""
	if c.entry > 0 {
		entry = "-"
		if e := m.x.entry(i); e > 0 {
			entry = strconv.Itoa(e)
		}
	}
	line := fmt.Sprintf("%s%s%s%*d %-*s %s %*s ", mark, glyph, entryCell(entry, c.entry), c.line, r.line, colKind, kindCell(r.kind()),
		m.ids(m.x.sessionID(r), m.x.turnID(i), c.session, c.turn), c.seq, seq)
	reason = text.Shorten(reason, c.reason, text.FitTail)
	if sel {
		return m.st.selected(fitCells(line+reason, lw))
	}
	colour := m.reasonColour(why)
	if m.x.isOff(i) {
		colour = m.st.dim
	}
	return line + colour(reason)
}

// findingMark is the list's finding column: ! on a problem finding's own
// position (red for an error, yellow for a warning) and, yellow, where a
// turn ended other than complete, * on a line only
// notes or a finding of the whole session cite, blank on the others.
func (m *exploreModel) findingMark(r *exploreRow) (string, func(string) string) {
	switch {
	case r.flags&rowError != 0:
		return "!", m.pal.Red
	case r.stop():
		return "!", m.pal.Yellow
	case r.cited():
		return "*", m.st.dim
	}
	return " ", nil
}

func padCells(s string, w int) string {
	if n := text.Width(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// reasonColour colours a reason as replay's table does.
func (m *exploreModel) reasonColour(r replay.Reason) func(string) string {
	switch {
	case r == replay.ReasonMalformed:
		return m.pal.Red
	case r.Verdict() == replay.Accepted:
		return m.pal.Green
	}
	return m.pal.Yellow
}

// tabShort are the tab names for a narrow detail pane.
var tabShort = [tabCount]string{"Event", "Proj", "Diff", "Tree", "Find"}

func (m *exploreModel) tabBar() string {
	names, gap := tabNames, " "
	if m.detailWidth() < 60 {
		names, gap = tabShort, ""
	}
	var b strings.Builder
	for i, n := range names {
		t := fmt.Sprintf("%s%d %s%s", gap, i+1, n, gap)
		if i == m.tab {
			t = m.st.selected(t)
		}
		b.WriteString(t + " ")
	}
	if m.detail {
		return "»" + b.String()
	}
	return b.String()
}

// bottomLine is the prompt, else where the selection is (line X of N)
// and the filter, then a status message, else the short help.
func (m *exploreModel) bottomLine() string {
	if m.prompt != promptNone {
		return m.input.View()
	}
	where := m.where()
	if m.status != "" {
		return where + m.status
	}
	if m.feed != nil {
		where += m.feed.reading() + "  "
	}
	k := m.keys
	// The keys that fit, and always ? and q.
	var b strings.Builder
	b.WriteString(where)
	room := m.width - text.Width(where) - len("?  all keys  q quit")
	for _, kb := range []key.Binding{k.Down, k.Next, k.Filter, k.Search, k.Tab, k.Pane, k.Toggle, k.Line, k.Session} {
		h := kb.Help()
		if room -= text.Width(h.Key+" "+h.Desc) + 2; room < 0 {
			break
		}
		b.WriteString(m.st.header(h.Key) + " " + h.Desc + "  ")
	}
	b.WriteString(m.st.header("?") + " all keys  " + m.st.header("q") + " quit")
	return b.String()
}

// helpLines lists every key.
func (m *exploreModel) helpLines(h int) []string {
	k := m.keys
	lines := []string{m.st.header("keys")}
	var keys []string
	for _, b := range []key.Binding{k.Down, k.PageDown, k.PageUp, k.Top, k.Next, k.Line, k.Search, k.Session, k.Filter,
		k.Pane, k.Tab, k.Toggle, k.Write, k.Earlier, k.Help, k.Quit} {
		keys = append(keys, fmt.Sprintf("  %-9s %s", b.Help().Key, b.Help().Desc))
	}
	if half := (len(keys) + 1) / 2; len(keys)+10 > h && m.width >= 60 {
		// Two columns, so that the notes below fit a short screen.
		for r := range half {
			l := padCells(keys[r], m.width/2)
			if r+half < len(keys) {
				l += keys[r+half]
			}
			lines = append(lines, l)
		}
	} else {
		lines = append(lines, keys...)
	}
	lines = append(lines, "",
		"  f filters the list: problems (the lines n stops at), turn ID, finding NAME",
		"    (the lines it cites), session ID; empty or F clears it and the session",
		"  / finds an id or text from the selected line on; the detail scrolls to the",
		"    match and marks it",
		"  the top strip: the listed lines left to right, by line; ▁…█ a cell's highest",
		"    accepted sequence, from the lowest listed to the highest; a letter, an",
		"    inert line's reason",
		"  ! in the list: an error or warning finding cites the line (n stops there);",
		"    * only a note or timestamp-sequence does; the Event tab names them",
		"  in the detail pane (tab), j/k, pgup/pgdn and g/G scroll it",
		"  any key closes this help")
	out := make([]string, h)
	for i := range out {
		if i < len(lines) {
			out[i] = fitCells(lines[i], m.width)
		} else {
			out[i] = strings.Repeat(" ", m.width)
		}
	}
	return out
}

// where is the status line's head: the selected line of how many the
// capture has, and what the list is filtered to, if anything.
func (m *exploreModel) where() string {
	n := m.x.len()
	if n == 0 {
		return ""
	}
	i, last := max(0, m.selected()), n-1
	s := m.position(i)
	switch {
	case len(m.x.files) > 1:
		// Line numbers count within each file: the row counts across.
		s += fmt.Sprintf(", %d of %d lines", i+1, n)
	case m.x.entry(last) > 0:
		s += fmt.Sprintf(" of %d entries", m.x.entry(last))
	default:
		s += " of " + strconv.Itoa(m.x.line(last))
	}
	var filters []string
	if m.session > 0 {
		filters = append(filters, "session "+termsafe.String(m.x.ids[m.session-1]))
	}
	if m.filter.kind != filterNone {
		filters = append(filters, m.filter.String())
	}
	if len(filters) > 0 {
		s += fmt.Sprintf(" · filter %s: %d of %d lines", strings.Join(filters, ", "), len(m.view), n)
	}
	return m.st.header(s) + "  "
}

// showMatch marks what the last search found in the detail, and scrolls
// the detail to its first line once. Lines are searched without their
// styles, and a line holding the match loses them for its highlight
// (reversed; between » and « without colour).
func (m *exploreModel) showMatch() {
	if m.match == "" {
		return
	}
	q := termsafe.String(m.match)
	first := -1
	for k, l := range m.lines {
		plain := ansi.Strip(l)
		if !strings.Contains(plain, q) {
			continue
		}
		if first < 0 {
			first = k
		}
		mark := m.st.selected(q)
		if mark == q {
			mark = "»" + q + "«"
		}
		m.lines[k] = strings.ReplaceAll(plain, q, mark)
	}
	if m.jump && first >= 0 {
		m.scroll = max(0, first-2)
	}
	m.jump = false
}

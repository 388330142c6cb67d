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
	if m.width < 100 {
		// Four more cells for the session column, when there is one.
		w := 40
		if m.sessionColumn() {
			w = 44
		}
		return min(w, m.width*55/100)
	}
	return m.width * 42 / 100
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
	out = append(out, m.timeline())
	lw, dw, h := m.listWidth(), m.detailWidth(), m.listHeight()
	if m.showHelp {
		out = append(out, m.helpLines(h+1)...)
	} else {
		out = append(out, fitCells(m.st.header(m.listHeader(lw)), lw)+"│"+fitCells(m.tabBar(), dw))
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

// The list's columns: a mark for toggled lines, then LINE, KIND, SESSION,
// TURN, SEQ and REASON (whose colour gives the verdict).
const (
	colLine   = 5
	colKind   = 4
	colSeq    = 4
	colReason = 12
)

// idWidths shares what the fixed columns leave between session and turn;
// the session column is left out (0) when the list shows one session.
func (m *exploreModel) idWidths(lw int) (int, int) {
	rest := max(4, lw-(2+colLine+1+colKind+1+colSeq+1+colReason+1))
	if !m.sessionColumn() {
		return 0, rest
	}
	rest--
	// Turns take what their ids need, the sessions the rest.
	tw := max(min(rest/2, m.turnWidth), len("TURN"))
	return rest - tw, tw
}

// idWidth is the widest of the ids, escaped.
func idWidth(ids func(yield func(string) bool)) int {
	w := 0
	for id := range ids {
		w = max(w, text.Width(termsafe.String(id)))
	}
	return w
}

// ids are the session and turn cells, each fitted to its width.
func (m *exploreModel) ids(session, turn string, sw, tw int) string {
	if sw == 0 {
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
	prefix, n := "", 0
	for id := range ids {
		if id == "" {
			continue
		}
		if n == 0 {
			prefix = id
		}
		for !strings.HasPrefix(id, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
		n++
	}
	if n < 2 {
		return ""
	}
	return prefix[:strings.LastIndexFunc(prefix, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })+1]
}

func (m *exploreModel) listHeader(lw int) string {
	sw, tw := m.idWidths(lw)
	focus := " "
	if !m.detail {
		focus = "»"
	}
	return fmt.Sprintf("%s %*s %-*s %s %*s %s", focus, colLine, "LINE", colKind, "KIND", m.ids("SESSION", "TURN", sw, tw), colSeq, "SEQ", "REASON")
}

func (m *exploreModel) listLines(lw, h int) []string {
	lines := make([]string, h)
	if len(m.view) == 0 {
		lines[0] = " no events"
		return lines
	}
	sw, tw := m.idWidths(lw)
	for i := 0; i < h && m.top+i < len(m.view); i++ {
		p := m.top + i
		lines[i] = m.listRow(int(m.view[p]), sw, tw, lw, p == m.pos)
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

func (m *exploreModel) listRow(i, sw, tw, lw int, sel bool) string {
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
	line := fmt.Sprintf("%s%s%*d %-*s %s %*s ", mark, glyph, colLine, r.line, colKind, kindCell(r.kind()),
		m.ids(m.x.sessionID(r), m.x.turnID(i), sw, tw), colSeq, text.Shorten(seq, colSeq, text.FitMiddle))
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
// position (red for an error, yellow for a warning), * on a line only
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

// bottomLine is the prompt, else a status message, else the short help.
func (m *exploreModel) bottomLine() string {
	if m.prompt != promptNone {
		return m.input.View()
	}
	if m.status != "" {
		return m.status
	}
	k := m.keys
	// The keys that fit, and always ? and q.
	var b strings.Builder
	room := m.width - len("?  all keys  q quit")
	for _, kb := range []key.Binding{k.Down, k.Next, k.Tab, k.Pane, k.Toggle, k.Search, k.Line, k.Session} {
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
	for _, b := range []key.Binding{k.Down, k.PageDown, k.PageUp, k.Top, k.Next, k.Line, k.Search, k.Session,
		k.Pane, k.Tab, k.Toggle, k.Write, k.Earlier, k.Help, k.Quit} {
		lines = append(lines, fmt.Sprintf("  %-9s %s", b.Help().Key, b.Help().Desc))
	}
	lines = append(lines, "", "  in the detail pane (tab), j/k, pgup/pgdn and g/G scroll it",
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

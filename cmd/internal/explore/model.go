package explore

import (
	"fmt"
	"slices"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/internal/termsafe"
)

// The detail tabs, in the order of their keys 1 to 5.
const (
	tabEvent = iota
	tabProjection
	tabDiff
	tabLineage
	tabFindings
	tabCount
)

var tabNames = [tabCount]string{"Event", "Projection", "Diff", "Lineage", "Findings"}

// promptKind is what the prompt line is asking for, if anything.
type promptKind int

const (
	promptNone promptKind = iota
	promptLine
	promptSearch
	promptWrite
	promptSession
	promptFilter
)

// exploreModel is the explorer's state. Update changes it on key, mouse
// and size messages; View is a function of it alone, so both are tested
// without a terminal.
type exploreModel struct {
	x      *exploreIndex
	keys   exploreKeys
	pal    iostreams.Palette
	st     exploreStyles
	redact bool

	width, height int

	// view lists the rows shown (every row, or the chosen session's);
	// pos is the selected place in it and top the first row on screen.
	// sessionPrefix and turnPrefix are what the listed ids share, left
	// out where an id does not fit.
	view                      []int32
	sessionPrefix, turnPrefix string
	listed                    listedRows
	// natural is what the listed rows need of each column (see layout).
	natural listColumns
	pos     int
	top     int
	session int // 0 for every session, else 1 + index in x.ids
	filter  exploreFilter
	// match is what the last search found on the selected row, shown in
	// the detail until the selection moves; jump scrolls the detail to
	// it once.
	match string
	jump  bool

	tab    int
	detail bool // the detail pane has the keys
	scroll int  // first line of the detail shown
	lines  []string

	prompt   promptKind
	input    textinput.Model
	status   string
	showHelp bool

	quit bool

	// feed, while the capture is being read, brings its rows; follow
	// keeps the selection on the last of them (G).
	feed   *exploreFeed
	follow bool

	// gen counts the toggles; pending is set while the findings and tree
	// of the latest are being recomputed.
	gen     int
	pending bool
}

func newExploreModel(x *exploreIndex, pal iostreams.Palette, redact bool) *exploreModel {
	m := &exploreModel{x: x, keys: newExploreKeys(), pal: pal, st: newExploreStyles(pal), redact: redact,
		width: 80, height: 24, input: textinput.New()}
	m.findProblems()
	m.setView()
	return m
}

// findProblems marks the rows the findings cite (rowCited), and among
// them the own positions of the problem findings (rowStop, rowError), and
// the rows where a turn ended other than complete (rowStop), for the
// list's marks and for n and N.
func (m *exploreModel) findProblems() {
	x := m.x
	for i := range x.len() {
		x.row(i).flags &^= rowMarks
	}
	for k := range x.findings {
		f := &x.findings[k]
		bits := uint8(rowCited)
		if ownPositions(f) {
			bits |= rowStop
			if f.Severity == inspect.SeverityError {
				bits |= rowError
			}
		}
		if k < len(x.cites) {
			for _, r := range x.cites[k] {
				x.row(int(r)).flags |= bits
			}
		}
	}
	for _, r := range x.ends {
		x.row(int(r)).flags |= rowStop
	}
	m.refilter()
}

// refilter lists the rows of the filter again, after the findings or the
// verdicts it depends on changed.
func (m *exploreModel) refilter() {
	if m.filter.kind == filterNone || m.view == nil {
		return
	}
	status := m.status
	m.applyFilter()
	m.status = status
}

// ownPositions says whether a finding's positions are where its problem
// is, the places n and N stop at: those of an error or a warning. An info
// finding is a note (a sequence gap, a refused request), and
// timestamp-sequence cites
// every accepted line of its session, the evidence that the sequences
// are clocks: its problem is where the cursor dropped a snapshot, which
// sequence-collision and the inert lines name.
func ownPositions(f *inspect.Finding) bool {
	return f.ID != inspect.TimestampSequence && f.Severity.AtLeast(inspect.SeverityWarning)
}

// citing lists the findings that cite row i, worst first.
func (m *exploreModel) citing(i int) []*inspect.Finding {
	x := m.x
	if !x.row(i).cited() {
		return nil
	}
	var fs []*inspect.Finding
	for k := range x.findings {
		if k < len(x.cites) {
			if _, ok := slices.BinarySearch(x.cites[k], int32(i)); ok {
				fs = append(fs, &x.findings[k])
			}
		}
	}
	return fs
}

// inspectPos is a line of one of the captures, in a HAR entry or not.
type inspectPos struct {
	file  uint16
	entry int32
	line  uint32
}

// Init starts taking rows from the feed, when the capture is still being
// read.
func (m *exploreModel) Init() tea.Cmd {
	if m.feed == nil {
		return nil
	}
	return tickFeed()
}

// takeFeed adds the rows read since the last tick. After G the
// selection stays on the last row, following the stream as tail -f does.
func (m *exploreModel) takeFeed() tea.Cmd {
	had := m.x.len()
	changed, done, err := m.feed.take(m.x)
	damage := m.feed.incomplete()
	if changed {
		m.listFrom(had)
		if m.follow {
			m.setPos(len(m.view) - 1)
		}
	}
	if !done {
		return tickFeed()
	}
	m.feed = nil
	m.findProblems()
	if m.toggled() > 0 {
		cmd := m.whatIf()
		return cmd
	}
	m.status = fmt.Sprintf("read %s", text.Plural(m.x.len(), "event"))
	if damage != "" {
		m.status += "; " + damage
	}
	if err != nil {
		m.status = "stopped reading: " + termsafe.String(err.Error())
	}
	return nil
}

// Update applies one message.
func (m *exploreModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case exploreWhatIfStartMsg:
		if msg.gen == m.gen && m.pending {
			cmd = m.x.whatIfCmd(msg.gen)
		}
	case exploreWhatIfMsg:
		m.whatIfDone(msg)
	case exploreTickMsg:
		if m.feed != nil {
			cmd = m.takeFeed()
		}
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.MouseClickMsg:
		m.click(msg.Mouse())
	case tea.MouseWheelMsg:
		if msg.Mouse().Button == tea.MouseWheelDown {
			m.move(3)
		} else {
			m.move(-3)
		}
	case tea.KeyPressMsg:
		if m.prompt != promptNone {
			cmd = m.promptKey(msg)
			break
		}
		cmd = m.key(msg)
	}
	m.refresh()
	if m.quit {
		return m, tea.Quit
	}
	return m, cmd
}

// key handles a key outside a prompt.
func (m *exploreModel) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	m.status = ""
	m.follow = key.Matches(msg, k.Bottom)
	if m.showHelp && !key.Matches(msg, k.Quit) {
		m.showHelp = false
		return nil
	}
	switch {
	case key.Matches(msg, k.Quit):
		m.quit = true
	case key.Matches(msg, k.Help):
		m.showHelp = true
	case key.Matches(msg, k.Pane):
		m.detail = !m.detail
	case key.Matches(msg, k.Tab):
		m.switchTab(msg.String())
	case m.detail && key.Matches(msg, k.Down, k.Up, k.PageDown, k.PageUp, k.Top, k.Bottom):
		m.scrollDetail(msg)
	case key.Matches(msg, k.Down):
		m.move(1)
	case key.Matches(msg, k.Up):
		m.move(-1)
	case key.Matches(msg, k.PageDown):
		m.move(m.listHeight())
	case key.Matches(msg, k.PageUp):
		m.move(-m.listHeight())
	case key.Matches(msg, k.Top):
		m.move(-len(m.view))
	case key.Matches(msg, k.Bottom):
		m.move(len(m.view))
	case key.Matches(msg, k.Next):
		m.nextProblem(1)
	case key.Matches(msg, k.Prev):
		m.nextProblem(-1)
	case key.Matches(msg, k.Earlier):
		m.moveBucket(-1)
	case key.Matches(msg, k.Later):
		m.moveBucket(1)
	case key.Matches(msg, k.Session):
		return m.askSession()
	case key.Matches(msg, k.Filter):
		return m.askFilter()
	case key.Matches(msg, k.Unfilter):
		m.clearFilter()
	case key.Matches(msg, k.Toggle):
		return m.toggle()
	case key.Matches(msg, k.Line):
		return m.ask(promptLine, "")
	case key.Matches(msg, k.Search):
		return m.ask(promptSearch, "")
	case key.Matches(msg, k.Write):
		return m.ask(promptWrite, m.defaultWritePath())
	}
	return nil
}

// switchTab picks a tab by number or moves to the next or previous one.
func (m *exploreModel) switchTab(k string) {
	switch k {
	case "left", "h":
		m.tab = (m.tab + tabCount - 1) % tabCount
	case "right", "l":
		m.tab = (m.tab + 1) % tabCount
	default:
		m.tab = int(k[0] - '1')
	}
	m.scroll = 0
}

func (m *exploreModel) scrollDetail(msg tea.KeyPressMsg) {
	k, page := m.keys, max(1, m.listHeight()-1)
	switch {
	case key.Matches(msg, k.Down):
		m.scroll++
	case key.Matches(msg, k.Up):
		m.scroll--
	case key.Matches(msg, k.PageDown):
		m.scroll += page
	case key.Matches(msg, k.PageUp):
		m.scroll -= page
	case key.Matches(msg, k.Top):
		m.scroll = 0
	case key.Matches(msg, k.Bottom):
		m.scroll = len(m.lines)
	}
}

// selected is the index in x.rows of the selected row, or -1.
func (m *exploreModel) selected() int {
	if len(m.view) == 0 {
		return -1
	}
	return int(m.view[m.pos])
}

// move moves the selection by d rows, within the list.
func (m *exploreModel) move(d int) {
	m.setPos(m.pos + d)
}

func (m *exploreModel) setPos(p int) {
	m.pos = max(0, min(p, len(m.view)-1))
	m.scroll = 0
	m.match = ""
}

// selectRow selects row i of x.rows if it is in the list.
func (m *exploreModel) selectRow(i int) bool {
	for p, r := range m.view {
		if int(r) == i {
			m.setPos(p)
			return true
		}
	}
	return false
}

// setView lists the rows of the chosen session, keeping the selected row
// when it is among them.
func (m *exploreModel) setView() {
	cur := m.selected()
	m.view, m.listed = m.view[:0], listedRows{}
	m.listFrom(0)
	m.pos = 0
	if cur >= 0 && !m.selectRow(cur) {
		// The nearest row after it, else the last.
		for p, r := range m.view {
			if int(r) >= cur {
				m.setPos(p)
				return
			}
		}
		m.setPos(len(m.view) - 1)
	}
}

// listFrom lists the rows of the chosen session from row from on, after
// those listed already, and what the list needs of them: the rows a feed
// brings are listed without going over the others again.
func (m *exploreModel) listFrom(from int) {
	for i := from; i < m.x.len(); i++ {
		r := m.x.row(i)
		if (m.session == 0 || int(r.session) == m.session) && m.keeps(i) {
			m.view = append(m.view, int32(i))
			m.listed.add(m.x, r)
		}
	}
	for ; m.listed.ids < len(m.x.ids); m.listed.ids++ {
		m.listed.sessionWidth = max(m.listed.sessionWidth, text.Width(termsafe.String(m.x.ids[m.listed.ids])))
	}
	m.sessionPrefix, m.turnPrefix = m.listed.sessions.shared(), m.listed.turns.shared()
	m.natural = m.naturalColumns()
}

// problem says whether row i is one n and N stop at: a problem in itself
// (inspect.ProblemReason: malformed, stale, duplicate, foreign-session), a
// problem finding's own position (see ownPositions), or where a turn
// ended other than complete (findProblems).
func (m *exploreModel) problem(i int) bool {
	if m.x.row(i).stop() {
		return true
	}
	return !m.x.isOff(i) && inspect.ProblemReason(m.x.reason(i))
}

// nextProblem selects the next (d=1) or previous (d=-1) problem row.
func (m *exploreModel) nextProblem(d int) {
	for p := m.pos + d; p >= 0 && p < len(m.view); p += d {
		if m.problem(int(m.view[p])) {
			m.setPos(p)
			return
		}
	}
	m.status = "no more problems"
	if d < 0 {
		m.status = "no earlier problem"
	}
}

// toggle turns the selected line off or on, recomputes the verdicts at
// once, and the findings and tree on a goroutine (see whatIf).
func (m *exploreModel) toggle() tea.Cmd {
	i := m.selected()
	if i < 0 {
		return nil
	}
	m.x.toggle(i)
	m.refilter()
	verb := "on"
	if m.x.isOff(i) {
		verb = "off"
	}
	m.status = fmt.Sprintf("line %d toggled %s; %s off; verdicts recomputed", m.x.line(i), verb, text.Plural(m.toggled(), "line"))
	return m.whatIf()
}

// toggled counts the lines toggled off.
func (m *exploreModel) toggled() int { return m.x.offs }

// whatIf starts recomputing the findings and tree without the toggled
// lines, or restores those of the capture when none is toggled. A
// result that a later toggle made stale is dropped (gen).
func (m *exploreModel) whatIf() tea.Cmd {
	m.gen++
	if m.feed != nil {
		return nil // done once the input ends
	}
	if m.toggled() == 0 {
		m.x.findings, m.x.sessions, m.x.verdicts, m.x.cites, m.x.ends, m.x.ended, m.x.endings, m.pending = m.x.origFindings, m.x.origSessions, m.x.origVerdicts, m.x.origCites, m.x.origEnds, m.x.origEnded, m.x.origEndings, false
		m.findProblems()
		return nil
	}
	m.pending = true
	gen := m.gen
	return tea.Tick(whatIfDelay, func(time.Time) tea.Msg { return exploreWhatIfStartMsg{gen} })
}

// whatIfDelay is how long a what-if waits to start: a few frames, so that
// the toggle is drawn before the what-if takes the cores, and so that
// lines toggled one after the other start one what-if, the last.
const whatIfDelay = 50 * time.Millisecond

// exploreWhatIfStartMsg starts the what-if of generation gen of the
// toggles, unless a later toggle came.
type exploreWhatIfStartMsg struct{ gen int }

// whatIfDone takes recomputed findings and tree.
func (m *exploreModel) whatIfDone(msg exploreWhatIfMsg) {
	if msg.gen != m.gen {
		return
	}
	m.pending = false
	if msg.err != nil {
		m.status = "findings not recomputed: " + termsafe.String(msg.err.Error())
		return
	}
	m.x.findings, m.x.sessions, m.x.verdicts, m.x.ended, m.x.endings = msg.findings, msg.sessions, msg.verdicts, msg.ended, msg.endings
	m.x.cites, m.x.ends = m.x.citedRows(m.x.findings, m.x.ended)
	m.findProblems()
}

// listHeight is the number of rows the list shows: the screen less the
// timeline, its legend, the list's header and the status line.
func (m *exploreModel) listHeight() int { return max(1, m.height-m.listTop()-1) }

// legendRows is 1 when the timeline's legend is shown: on a screen of 8
// rows or more.
func (m *exploreModel) legendRows() int {
	if m.height >= 8 {
		return 1
	}
	return 0
}

// listTop is the screen row of the list's first row.
func (m *exploreModel) listTop() int { return 2 + m.legendRows() }

// refresh keeps the selection on screen and renders the detail of the
// selected row, so that View only lays out.
func (m *exploreModel) refresh() {
	h := m.listHeight()
	if m.pos < m.top {
		m.top = m.pos
	}
	if m.pos >= m.top+h {
		m.top = m.pos - h + 1
	}
	m.top = max(0, min(m.top, len(m.view)-h))
	m.lines = m.detailLines(m.selected(), m.detailWidth())
	m.showMatch()
	m.scroll = max(0, min(m.scroll, len(m.lines)-h+1))
}

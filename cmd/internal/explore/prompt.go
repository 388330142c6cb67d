package explore

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
	"github.com/charmbracelet/x/ansi"
)

// ask opens the prompt line.
func (m *exploreModel) ask(k promptKind, value string) tea.Cmd {
	m.prompt = k
	m.input.Reset()
	m.input.Prompt = map[promptKind]string{promptLine: "go to line: ", promptSearch: "search: ",
		promptWrite: "write kept lines to: ", promptSession: "session (tab completes, empty for all): ",
		promptFilter: "filter (problems, turn ID, finding NAME, session ID): "}[k]
	m.input.ShowSuggestions = k == promptSession || k == promptFilter
	m.input.SetValue(value)
	m.input.CursorEnd()
	return m.input.Focus()
}

// promptKey edits the prompt; enter carries it out, esc cancels.
func (m *exploreModel) promptKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "esc", "ctrl+c":
		m.prompt = promptNone
		return nil
	case "enter":
		k, v := m.prompt, strings.TrimSpace(m.input.Value())
		m.prompt = promptNone
		m.input.Blur()
		m.answer(k, v)
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return cmd
}

func (m *exploreModel) answer(k promptKind, v string) {
	if v == "" && k != promptSession && k != promptFilter {
		return
	}
	switch k {
	case promptSession:
		m.chooseSession(v)
	case promptFilter:
		m.chooseFilter(v)
	case promptLine:
		entry, n, ok := parsePosition(strings.TrimPrefix(v, ":"))
		if !ok {
			m.status = "not a line number: " + termsafe.String(v)
			return
		}
		m.gotoLine(entry, n)
	case promptSearch:
		m.search(v)
	case promptWrite:
		m.write(v)
	}
}

// parsePosition reads a line number, or a line of a HAR entry as
// text.Position writes it (entry 3:line 12) or as E:L.
func parsePosition(v string) (entry, line int, ok bool) {
	e, l, has := strings.Cut(v, ":")
	if !has {
		e, l = "0", v
	}
	e = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(e), "entry"))
	l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "line"))
	entry, err1 := strconv.Atoi(e)
	line, err2 := strconv.Atoi(l)
	return entry, line, err1 == nil && err2 == nil && entry >= 0 && line >= 1
}

// gotoLine selects the first listed row at or after line n (of HAR entry
// entry, when it is not 0: the first row of a later entry otherwise).
func (m *exploreModel) gotoLine(entry, n int) {
	for p, i := range m.view {
		e := m.x.entry(int(i))
		if entry > 0 && e < entry {
			continue
		}
		if e > entry && entry > 0 || m.x.line(int(i)) >= n {
			m.setPos(p)
			return
		}
	}
	m.status = fmt.Sprintf("no line %s or later", text.Position("", entry, n))
}

// search selects the next row, after the selected one and wrapping,
// whose event, turn or session id is q, or whose line holds q (a message
// id or text).
func (m *exploreModel) search(q string) {
	if p, ok := m.x.find(m.view, m.pos, q); ok {
		m.setPos(p)
		m.match, m.jump = q, true
		m.status = "found " + termsafe.String(q)
		if !m.inTab(q) && m.tab != tabEvent {
			// The tab shown does not hold it: the line itself does.
			m.tab = tabEvent
		}
		return
	}
	m.status = "not found: " + termsafe.String(q)
}

// inTab says whether the selected row's current tab shows q.
func (m *exploreModel) inTab(q string) bool {
	q = termsafe.String(q)
	for _, l := range m.detailLines(m.selected(), m.detailWidth()) {
		if strings.Contains(ansi.Strip(l), q) {
			return true
		}
	}
	return false
}

func (m *exploreModel) defaultWritePath() string {
	base := "capture"
	if len(m.x.files) > 0 {
		base = filepath.Base(m.x.files[0].name)
	}
	if base == replay.StdinName {
		base = "stdin.jsonl"
	}
	base = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(base, ".gz"), ".zst"), ".jsonl")
	// The name is offered in the prompt, as it is shown everywhere: a
	// control character, bidi override or escape in the capture's name
	// would reach the terminal (the prompt drops only some of them).
	return termsafe.String(base) + ".what-if.jsonl"
}

// write saves the capture minus the toggled lines.
func (m *exploreModel) write(path string) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		m.status = "not written: " + termsafe.String(err.Error())
		return
	}
	n, err := m.x.writeKept(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// The file is the one just made (O_EXCL): what it holds is part
		// of a capture, which "not written" must not leave behind.
		os.Remove(path)
		m.status = "not written: " + termsafe.String(err.Error())
		return
	}
	m.status = fmt.Sprintf("wrote %s to %s", text.Plural(n, "line"), termsafe.String(path))
}

// askSession opens the prompt for a session id, completing the ids of
// the capture.
func (m *exploreModel) askSession() tea.Cmd {
	cmd := m.ask(promptSession, "")
	m.input.SetSuggestions(m.x.ids)
	return cmd
}

// chooseSession lists the session whose id is v, else the first whose id
// holds it; an empty v lists every session.
func (m *exploreModel) chooseSession(v string) {
	pick := -1
	for i, id := range m.x.ids {
		if id == v {
			pick = i
			break
		}
		if pick < 0 && strings.Contains(id, v) {
			pick = i
		}
	}
	switch {
	case v == "":
		m.session = 0
		m.status = "all sessions"
	case pick < 0:
		m.status = "no session matches " + termsafe.String(v)
		return
	default:
		m.session = pick + 1
		m.status = "session " + termsafe.String(m.x.ids[pick])
	}
	m.setView()
}

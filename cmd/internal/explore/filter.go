package explore

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/agentskit/snapctl/internal/termsafe"
)

// exploreFilter is what the list shows beside the session chosen with s:
// every row, only the problems (the rows n and N stop at), the rows of
// one turn, or the rows one finding cites.
type exploreFilter struct {
	kind  filterKind
	value string // the turn id or finding name
	// cites are the rows the finding cites, by row index (filterFinding).
	cites map[int32]bool
}

type filterKind int

const (
	filterNone filterKind = iota
	filterProblems
	filterTurn
	filterFinding
)

// String is the filter as the status line and the prompt put it.
func (f exploreFilter) String() string {
	switch f.kind {
	case filterProblems:
		return "problems"
	case filterTurn:
		return "turn " + termsafe.String(f.value)
	case filterFinding:
		return "finding " + termsafe.String(f.value)
	}
	return ""
}

// keeps says whether the filter lists row i.
func (m *exploreModel) keeps(i int) bool {
	switch f := &m.filter; f.kind {
	case filterProblems:
		return m.problem(i)
	case filterTurn:
		return m.x.turnID(i) == f.value
	case filterFinding:
		return f.cites[int32(i)]
	}
	return true
}

// askFilter opens the prompt for a filter, completing its words, the
// finding names of the capture and its session ids.
func (m *exploreModel) askFilter() tea.Cmd {
	cmd := m.ask(promptFilter, m.filter.String())
	words := []string{"problems"}
	for _, f := range m.x.findings {
		if w := "finding " + f.ID; !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	for _, id := range m.x.ids {
		words = append(words, "session "+id)
	}
	m.input.SetSuggestions(words)
	return cmd
}

// chooseFilter sets the filter v names: problems (or p), turn ID,
// finding NAME (a prefix will do), session ID (as s does), or nothing to
// clear it and the session.
func (m *exploreModel) chooseFilter(v string) {
	word, arg, _ := strings.Cut(v, " ")
	arg = strings.TrimSpace(arg)
	switch word {
	case "":
		m.clearFilter()
		return
	case "p", "problems":
		m.filter = exploreFilter{kind: filterProblems}
	case "t", "turn":
		if arg == "" {
			m.status = "filter: name a turn id (turn ID)"
			return
		}
		m.filter = exploreFilter{kind: filterTurn, value: arg}
	case "f", "finding":
		id := m.findingID(arg)
		if id == "" {
			m.status = "filter: no finding named " + termsafe.String(arg)
			return
		}
		m.filter = exploreFilter{kind: filterFinding, value: id}
	case "s", "session":
		m.chooseSession(arg)
		return
	default:
		m.status = "filter: problems, turn ID, finding NAME or session ID (empty clears): not " + termsafe.String(v)
		return
	}
	m.applyFilter()
}

// findingID is the name of the capture's first finding named name, or
// whose name starts with it; "" for none.
func (m *exploreModel) findingID(name string) string {
	pick := ""
	for _, f := range m.x.findings {
		if f.ID == name {
			return f.ID
		}
		if pick == "" && name != "" && strings.HasPrefix(f.ID, name) {
			pick = f.ID
		}
	}
	return pick
}

// clearFilter lists every row of every session again.
func (m *exploreModel) clearFilter() {
	m.filter, m.session = exploreFilter{}, 0
	m.setView()
	m.status = "filter cleared: every line listed"
}

// applyFilter lists the rows of the filter as the findings are now: the
// rows a finding cites are found once, here, and again when the findings
// change.
func (m *exploreModel) applyFilter() {
	if f := &m.filter; f.kind == filterFinding {
		f.cites = map[int32]bool{}
		for i := range m.x.len() {
			if !m.x.row(i).cited() {
				continue
			}
			for _, c := range m.citing(i) {
				if c.ID == f.value {
					f.cites[int32(i)] = true
				}
			}
		}
	}
	m.setView()
	if len(m.view) == 0 {
		m.status = fmt.Sprintf("filter %s: no line listed (F clears it)", m.filter)
		return
	}
	m.status = "F clears the filter"
}

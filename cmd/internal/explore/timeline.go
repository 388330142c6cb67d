package explore

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/replay"
)

// The timeline strip spreads the listed rows over the screen's width:
// each cell is a run of rows, drawn as the highest accepted sequence in it
// (a bar from ▁ at the lowest accepted sequence listed to █ at the
// highest) or, when one of its
// lines is a problem, the first letter of that line's reason (m
// malformed, s stale, d duplicate, f foreign-session, n non-snapshot
// diagnostic; see cell); the cell of the selected row is reversed, or ^
// without colour.

var timelineBars = []rune("▁▂▃▄▅▆▇█")

// bucket is the range of list positions cell c of w covers: a run of
// rows when they outnumber the cells, else one row over several cells.
func (m *exploreModel) bucket(c, w int) (lo, hi int) {
	n := len(m.view)
	lo = c * n / w
	return lo, max(lo+1, (c+1)*n/w)
}

// cells is the number of cells the strip uses.
func (m *exploreModel) cells() int { return max(1, m.width) }

// cellOf is the first cell holding list position p.
func (m *exploreModel) cellOf(p int) int {
	w := m.cells()
	for c := 0; c < w; c++ {
		if lo, hi := m.bucket(c, w); p >= lo && p < hi {
			return c
		}
	}
	return w - 1
}

// seqScale is the lowest and highest accepted sequence of the listed
// rows, the bottom and top of the strip's bars: from the lowest, so that
// sequences far from 0 (Unix milliseconds) still rise along the strip.
type seqScale struct{ lo, hi int64 }

func (m *exploreModel) seqScale() seqScale {
	sc := seqScale{lo: -1}
	for _, i := range m.view {
		if m.x.reason(int(i)).Verdict() == replay.Accepted {
			seq := m.x.row(int(i)).seq
			if sc.lo < 0 || seq < sc.lo {
				sc.lo = seq
			}
			sc.hi = max(sc.hi, seq)
		}
	}
	return sc
}

// stripCell is one cell of the strip as drawn: its character and colour.
type stripCell struct {
	ch     string
	colour func(string) string
}

// strip draws every cell of the strip, once for the timeline and its
// legend both: each goes over every listed row.
func (m *exploreModel) strip() (cells []stripCell, top seqScale) {
	if len(m.view) == 0 {
		return nil, top
	}
	top = m.seqScale()
	w := m.cells()
	cells = make([]stripCell, w)
	for c := range cells {
		cells[c].ch, cells[c].colour = m.cell(c, w, top)
	}
	return cells, top
}

func (m *exploreModel) timeline(cells []stripCell) string {
	if len(m.view) == 0 {
		return ""
	}
	cur := m.cellOf(m.pos)
	var b strings.Builder
	for c, cell := range cells {
		ch := cell.ch
		if c == cur {
			if m.st.selected("^") == "^" {
				ch = "^"
			}
			b.WriteString(m.st.selected(ch))
			continue
		}
		b.WriteString(cell.colour(ch))
	}
	return b.String()
}

// cell draws one cell of the strip. A cell of one row that is a problem
// is its reason's letter; a cell of many rows is its bar, in the colour
// of the worst problem among them (letters again without colour, where a
// colour would not show).
func (m *exploreModel) cell(c, w int, top seqScale) (string, func(string) string) {
	lo, hi := m.bucket(c, w)
	var seq int64 = -1
	worst := replay.Reason("")
	for p := lo; p < hi; p++ {
		i := int(m.view[p])
		reason := m.x.reason(i)
		switch {
		case m.x.isOff(i):
			continue
		case m.problem(i) && reason.Verdict() == replay.Inert:
			if worst == "" || reason == replay.ReasonMalformed {
				worst = reason
			}
		case reason.Verdict() == replay.Accepted:
			seq = max(seq, m.x.row(i).seq)
		}
	}
	coloured := m.st.dim("x") != "x"
	if worst != "" && (seq < 0 || !coloured) {
		return string(worst)[:1], m.reasonColour(worst)
	}
	if seq < 0 {
		return "·", m.st.dim
	}
	k := 0
	if top.hi > top.lo {
		k = int(float64(seq-top.lo) / float64(top.hi-top.lo) * float64(len(timelineBars)-1))
	}
	bar := string(timelineBars[max(0, min(k, len(timelineBars)-1))])
	if worst != "" {
		return bar, m.reasonColour(worst)
	}
	return bar, m.pal.Green
}

// moveBucket moves the selection to the first row of the next or
// previous cell of the strip.
func (m *exploreModel) moveBucket(d int) {
	w := m.cells()
	cur, _ := m.bucket(m.cellOf(m.pos), w)
	for c := m.cellOf(m.pos) + d; c >= 0 && c < w; c += d {
		if lo, _ := m.bucket(c, w); lo != cur {
			m.setPos(lo)
			return
		}
	}
}

// click selects what was clicked: a cell of the strip, or a row of the
// list.
func (m *exploreModel) click(mouse tea.Mouse) {
	switch {
	case mouse.Y == 0 && mouse.X < m.cells():
		lo, _ := m.bucket(mouse.X, m.cells())
		m.setPos(lo)
	case mouse.Y >= m.listTop() && mouse.Y < m.listTop()+m.listHeight() && mouse.X < m.listWidth():
		m.setPos(m.top + mouse.Y - m.listTop())
		m.detail = false
	case mouse.Y >= m.listTop() && mouse.X > m.listWidth():
		m.detail = true
	}
}

// timelineLetters name the letters of the strip, in the order the legend
// lists them.
var timelineLetters = []struct{ letter, reason string }{
	{"m", "malformed"}, {"s", "stale"}, {"d", "duplicate"}, {"f", "foreign-session"}, {"n", "non-snapshot"},
}

// legend says what the strip plots, under it: the listed lines from left
// to right, in capture order (by line, not by time), the bars' scale
// (the lowest and highest accepted sequence), the letters it shows (inert lines by
// reason) and what the colours mean (the worst verdict of a cell).
func (m *exploreModel) legend(cells []stripCell, top seqScale) string {
	if len(m.view) == 0 {
		return ""
	}
	shown := map[string]bool{}
	for _, c := range cells {
		shown[c.ch] = true
	}
	first, last := int(m.view[0]), int(m.view[len(m.view)-1])
	span := fmt.Sprintf("▲ lines %d…%d", m.x.line(first), m.x.line(last))
	if len(m.x.files) > 1 || m.x.entry(last) > 0 {
		span = "▲ " + m.position(first) + " … " + m.position(last)
	}
	parts := []string{span, fmt.Sprintf("▁…█ accepted seq %d…%d", top.lo, top.hi)}
	if !slices.ContainsFunc(timelineBars, func(r rune) bool { return shown[string(r)] }) {
		parts[1] = "no accepted line"
	}
	for _, l := range timelineLetters {
		if shown[l.letter] {
			parts = append(parts, l.letter+" "+l.reason)
		}
	}
	if shown["·"] {
		parts = append(parts, "· none accepted")
	}
	if l := "colour: worst verdict"; m.st.dim("x") != "x" && text.Width(strings.Join(parts, "  "))+2+len(l) <= m.width {
		parts = append(parts, l)
	}
	return m.st.dim(strings.Join(parts, "  "))
}

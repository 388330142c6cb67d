package cmd

import (
	"io"
	"strings"

	"github.com/mattn/go-runewidth"
)

// displayWidth is the number of terminal cells s occupies.
func displayWidth(s string) int { return runewidth.StringWidth(s) }

// fit says how a column gives way when a table is wider than the
// terminal.
type fit int

const (
	// fitKeep never shortens: short fixed words and numbers.
	fitKeep fit = iota
	// fitMiddle shortens an id in the middle, keeping both ends, which is
	// where ids differ (evt-se…777420).
	fitMiddle
	// fitTail cuts the end of free text; it gives way last.
	fitTail
	// fitPosition is a FILE:LINE position: the file name is shortened in
	// the middle, the line number kept whole. It gives way with the ids.
	fitPosition
)

// column is one column of a table.
type column struct {
	name  string
	right bool // right-aligned, for numbers
	fit   fit
	// drop, when above 0, lets a narrow terminal go without the column
	// (the highest first) rather than shorten ids past reading: a
	// column whose information another one carries.
	drop int
}

// Shortened ids keep at least this many cells (evt-se…777420), free text
// at least minTail, before the last resort of shortening ids further.
const (
	minMiddle = 13
	minTail   = 12
	minLast   = 5
	columnGap = 2
)

// naturalWidths is each column's width when every value is whole.
func naturalWidths(cols []column, rows [][]string) []int {
	w := make([]int, len(cols))
	for i, c := range cols {
		w[i] = displayWidth(c.name)
	}
	for _, r := range rows {
		for i := range cols {
			if i < len(r) {
				w[i] = max(w[i], displayWidth(r[i]))
			}
		}
	}
	return w
}

// fitWidths sizes columns from the data and, when width > 0, to fit it:
// ids are shortened in the middle first (down to minMiddle), then free
// text is cut (down to minTail), then the columns that may be dropped
// are (width 0), then ids shortened again (down to minLast). The last
// column, when it is free text, gets all the room that is left, so that
// later rows of a stream may use it. With width 0 every value is whole.
func fitWidths(cols []column, rows [][]string, width int) []int {
	w := naturalWidths(cols, rows)
	if width <= 0 {
		return w
	}
	total := func() int {
		n := -columnGap
		for _, x := range w {
			if x > 0 {
				n += x + columnGap
			}
		}
		return n
	}
	shrink := func(kind fit, floor int) {
		for total() > width {
			widest := -1
			for i, c := range cols {
				shrinks := c.fit == kind || (kind == fitMiddle && c.fit == fitPosition)
				if shrinks && w[i] > max(floor, displayWidth(c.name)) && (widest < 0 || w[i] > w[widest]) {
					widest = i
				}
			}
			if widest < 0 {
				return
			}
			w[widest]--
		}
	}
	shrink(fitMiddle, minMiddle)
	shrink(fitTail, minTail)
	for total() > width {
		drop := -1
		for i, c := range cols {
			if c.drop > 0 && w[i] > 0 && (drop < 0 || c.drop > cols[drop].drop) {
				drop = i
			}
		}
		if drop < 0 {
			break
		}
		w[drop] = 0
	}
	shrink(fitMiddle, minLast)
	if last := len(cols) - 1; cols[last].fit == fitTail {
		w[last] = max(w[last], width-(total()-w[last]))
	}
	return w
}

// shorten makes s fit in width cells the way its column gives way; with
// fitKeep, or width 0, s stays whole.
func shorten(s string, width int, how fit) string {
	if width <= 0 || how == fitKeep || displayWidth(s) <= width {
		return s
	}
	if how == fitTail || width < 3 {
		return runewidth.Truncate(s, width, "…")
	}
	if i := strings.LastIndexByte(s, ':'); how == fitPosition && i > 0 {
		if room := width - displayWidth(s[i:]); room >= 3 {
			return middle(s[:i], room) + s[i:]
		}
	}
	return middle(s, width)
}

// middle keeps the two ends of s around "…", in width cells.
func middle(s string, width int) string {
	left := (width - 1) / 2
	right := width - 1 - left
	head := runewidth.Truncate(s, left, "")
	rs := []rune(s)
	tail, n := len(rs), 0
	for tail > 0 {
		cw := runewidth.RuneWidth(rs[tail-1])
		if n+cw > right {
			break
		}
		n += cw
		tail--
	}
	return head + "…" + string(rs[tail:])
}

// tableLayout writes rows of a table whose column widths are decided.
type tableLayout struct {
	cols   []column
	widths []int
	// fitting is set when cells must be shortened to their width; else
	// a longer cell pushes the next ones.
	fitting bool
}

// row lays out one row, with its newline; colour, when set, colours a
// cell after it was shortened.
func (l *tableLayout) row(cells []string, colour func(int, string) string) string {
	var b strings.Builder
	for i, col := range l.cols {
		if l.fitting && l.widths[i] == 0 {
			continue // dropped to fit
		}
		cell := ""
		if i < len(cells) {
			cell = cells[i]
		}
		if l.fitting {
			cell = shorten(cell, l.widths[i], col.fit)
		}
		pad := max(0, l.widths[i]-displayWidth(cell))
		if col.right {
			b.WriteString(strings.Repeat(" ", pad))
		}
		if colour != nil {
			cell = colour(i, cell)
		}
		b.WriteString(cell)
		if i == len(l.cols)-1 {
			break
		}
		if !col.right {
			b.WriteString(strings.Repeat(" ", pad))
		}
		b.WriteString(strings.Repeat(" ", columnGap))
	}
	return strings.TrimRight(b.String(), " ") + "\n"
}

// renderTable writes a borderless, left-aligned table with a bold header,
// its columns sized from the data. With width > 0 (a terminal) the table
// fits it, ids shortened in the middle and free text cut; with width 0
// every value is whole. Cells must already be terminal-safe.
func renderTable(w io.Writer, pal palette, width int, cols []column, rows [][]string) error {
	l := &tableLayout{cols: cols, widths: fitWidths(cols, rows, width), fitting: width > 0}
	var b strings.Builder
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	b.WriteString(l.row(names, func(_ int, s string) string { return pal.Bold(s) }))
	for _, r := range rows {
		b.WriteString(l.row(r, nil))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

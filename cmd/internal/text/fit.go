package text

import "strings"

// Fit says how a column gives way when a table is wider than the
// terminal.
type Fit int

const (
	// FitKeep never shortens: short fixed words and numbers.
	FitKeep Fit = iota
	// FitMiddle shortens an id in the middle, keeping both ends, which is
	// where ids differ (evt-se…777420).
	FitMiddle
	// FitTail cuts the end of free text; it gives way last.
	FitTail
	// FitPosition is a FILE:LINE position: the file name is shortened in
	// the middle, the line number is never cut. It gives way with the ids.
	FitPosition
)

// Column is one column of a table.
type Column struct {
	Name  string
	Right bool // right-aligned, for numbers
	Fit   Fit
	// Drop, when above 0, lets a narrow terminal go without the column
	// (the highest first) rather than shorten ids past reading: a
	// column whose information another one carries.
	Drop int
}

// Shortened ids keep at least MinMiddle cells (evt-se…777420), free text
// at least MinTail, before the last resort of shortening ids further, to
// MinLast. Columns are ColumnGap cells apart.
const (
	MinMiddle = 13
	MinTail   = 12
	MinLast   = 5
	ColumnGap = 2
)

// NaturalWidths is each column's width when every value is whole.
func NaturalWidths(cols []Column, rows [][]string) []int {
	z := sizerOf(cols, rows)
	return z.natural
}

// Sizer gathers, row by row, what FitWidths needs of a table's rows (each
// column's widest value, and each position column's widest line number),
// so that a table of very many rows can be sized without holding them.
type Sizer struct {
	cols    []Column
	natural []int
	floors  []int
}

// NewSizer returns a sizer of a table of cols, empty.
func NewSizer(cols []Column) *Sizer {
	z := &Sizer{cols: cols, natural: make([]int, len(cols)), floors: make([]int, len(cols))}
	for i, c := range cols {
		z.natural[i] = Width(c.Name)
		z.floors[i] = Width(c.Name)
	}
	return z
}

func sizerOf(cols []Column, rows [][]string) *Sizer {
	z := NewSizer(cols)
	for _, r := range rows {
		z.Add(r)
	}
	return z
}

// Add counts one row; the sizer keeps nothing of it.
func (z *Sizer) Add(r []string) {
	for i, c := range z.cols {
		if i >= len(r) {
			continue
		}
		z.natural[i] = max(z.natural[i], Width(r[i]))
		if c.Fit != FitPosition {
			continue
		}
		if at := strings.LastIndexByte(r[i], ':'); at >= 0 {
			z.floors[i] = max(z.floors[i], 1+Width(r[i][at:]))
		} else {
			z.floors[i] = max(z.floors[i], Width(r[i]))
		}
	}
}

// FitWidths sizes columns from the data and, when width > 0, to fit it:
// ids are shortened in the middle first (down to MinMiddle), then free
// text is cut (down to MinTail), then the columns that may be dropped
// are (width 0), then ids shortened again (down to MinLast). The last
// column, when it is free text, gets all the room that is left, so that
// later rows of a stream may use it. With width 0 every value is whole.
// A position column is never narrower than its widest line number and
// one cell of file name ("…:1234").
func FitWidths(cols []Column, rows [][]string, width int) []int {
	return sizerOf(cols, rows).Widths(width)
}

// Widths is what FitWidths returns for the rows added.
func (z *Sizer) Widths(width int) []int {
	cols, floors := z.cols, z.floors
	w := append([]int(nil), z.natural...)
	if width <= 0 {
		return w
	}
	total := func() int {
		n := -ColumnGap
		for _, x := range w {
			if x > 0 {
				n += x + ColumnGap
			}
		}
		return n
	}
	shrink := func(kind Fit, floor int) {
		for total() > width {
			widest := -1
			for i, c := range cols {
				shrinks := c.Fit == kind || (kind == FitMiddle && c.Fit == FitPosition)
				if shrinks && w[i] > max(floor, floors[i]) && (widest < 0 || w[i] > w[widest]) {
					widest = i
				}
			}
			if widest < 0 {
				return
			}
			w[widest]--
		}
	}
	shrink(FitMiddle, MinMiddle)
	shrink(FitTail, MinTail)
	for total() > width {
		drop := -1
		for i, c := range cols {
			if c.Drop > 0 && w[i] > 0 && (drop < 0 || c.Drop > cols[drop].Drop) {
				drop = i
			}
		}
		if drop < 0 {
			break
		}
		w[drop] = 0
	}
	shrink(FitMiddle, MinLast)
	if last := len(cols) - 1; cols[last].Fit == FitTail {
		w[last] = max(w[last], width-(total()-w[last]))
	}
	return w
}

// Shorten makes s fit in width cells the way its column gives way; with
// FitKeep, or width 0, s stays whole. A position keeps its line number
// whole even when that leaves it wider than width: a cut number reads as
// another number.
func Shorten(s string, width int, how Fit) string {
	if width <= 0 || how == FitKeep || Width(s) <= width {
		return s
	}
	if how == FitPosition {
		i := strings.LastIndexByte(s, ':')
		if i < 0 {
			return s // a bare line number
		}
		if room := width - Width(s[i:]); room >= 3 {
			return middle(s[:i], room) + s[i:]
		}
		return "…" + s[i:]
	}
	if how == FitTail || width < 3 {
		head, _ := split(s, width-1)
		return head + "…"
	}
	return middle(s, width)
}

// middle keeps the two ends of s around "…", in width cells. A value
// already cut, ending in "…" (an id too long to keep whole), has no end
// to keep: it keeps its start, with one "…", not two.
func middle(s string, width int) string {
	if strings.HasSuffix(s, "…") {
		head, _ := split(s, width-1)
		return head + "…"
	}
	left := (width - 1) / 2
	head, _ := split(s, left)
	return head + "…" + tail(s, width-1-left)
}

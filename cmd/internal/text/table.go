package text

import (
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// Table is a borderless table streamed row by row, its columns at widths
// snapctl decided (FitWidths) and ColumnGap cells apart, with a header
// and no rule under it. With fitting set, each cell is shortened to its
// width the way its column gives way, and a column that is never
// shortened (a number, a fixed word, a position's line number) grows for
// a later, wider value, from that row on, taking the room from free text
// and then from ids (Row); not fitting, a longer cell pushes the next
// ones rather than lose a character.
//
// tablewriter is configured with the columns' widths and alignments,
// starts the stream, draws the header through cellRenderer and ends the
// stream. The rows are laid out by cellRenderer at those widths without
// passing through tablewriter's Append: its streaming path rebuilds per
// row maps of cell contexts, alignments, paddings and merge states,
// splits every cell into lines and boxes the arguments of its debug
// logging, 88 allocations and about 8 µs a row of nine columns, none of
// it configurable, for cells that arrive shortened and measured and
// leave it unchanged.
type Table struct {
	t       *tablewriter.Table
	out     *cellRenderer
	cols    []Column
	widths  []int
	fitting bool
	// shown are the indexes of the columns drawn: a column dropped to
	// fit is left out of the table.
	shown []int
	// row is the one slice every row is built in, so that a row costs
	// snapctl no allocation.
	row []string
}

// NewTable starts a table on w and writes its header, each name through
// header (bold, say) when header is not nil. A column of width 0 is
// dropped when fitting.
func NewTable(w io.Writer, cols []Column, widths []int, fitting bool, header func(string) string) (*Table, error) {
	var shown []int
	for i := range cols {
		// A column of width 0 is left out (dropped to fit); not
		// fitting, every column shows.
		if !fitting || widths[i] > 0 {
			shown = append(shown, i)
		}
	}
	aligns := make([]tw.Align, len(shown))
	sizes := tw.NewMapper[int, int]()
	out := &cellRenderer{widths: make([]int, len(shown)), right: make([]bool, len(shown))}
	for j, i := range shown {
		aligns[j] = tw.AlignLeft
		if cols[i].Right {
			aligns[j] = tw.AlignRight
		}
		out.right[j] = cols[i].Right
		// Not fitting, a column is at least as wide as its name.
		out.widths[j] = widths[i]
		if !fitting {
			out.widths[j] = max(widths[i], Width(cols[i].Name))
		}
		sizes.Set(j, out.widths[j])
	}
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(out),
		tablewriter.WithStreaming(tw.StreamConfig{Enable: true, StrictColumns: true}),
		tablewriter.WithColumnWidths(sizes),
		tablewriter.WithPadding(tw.PaddingNone),
		// Cells come shortened and coloured: tablewriter neither trims,
		// wraps, cuts nor title-cases them. Rows are configured as the
		// header is though Row lays them out itself, so that Append
		// would draw the same lines (TestRowsAsAppendDrawsThem).
		tablewriter.WithTrimSpace(tw.Off),
		tablewriter.WithTrimTab(tw.Off),
		tablewriter.WithTrimLine(tw.Off),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{PerColumn: aligns}),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: aligns}),
	)
	if err := t.Start(); err != nil {
		return nil, err
	}
	row := make([]string, len(shown))
	tab := &Table{t: t, out: out, cols: cols, widths: append([]int(nil), widths...), fitting: fitting, shown: shown, row: row}
	names := make([]string, len(shown))
	for j, i := range shown {
		names[j] = cols[i].Name
		if header != nil {
			names[j] = header(cols[i].Name)
		}
	}
	t.Header(names)
	return tab, out.err
}

// Row writes one row; colour, when not nil, colours cell i after it was
// shortened.
func (t *Table) Row(cells []string, colour func(int, string) string) error {
	if t.fitting {
		t.grow(cells)
	}
	t.out.row(t.cells(cells, colour))
	return t.out.err
}

// cells returns the cells of the columns shown, shortened and coloured,
// in the slice every row is built in.
func (t *Table) cells(cells []string, colour func(int, string) string) []string {
	for j, i := range t.shown {
		cell := ""
		if i < len(cells) {
			cell = cells[i]
		}
		if t.fitting {
			cell = Shorten(cell, t.widths[i], t.cols[i].Fit)
		}
		if colour != nil {
			cell = colour(i, cell)
		}
		t.row[j] = cell
	}
	return t.row
}

// grow widens, for this row and the ones after it, each column that
// never shortens and whose cell in cells is wider than it: a line number
// past the ones the widths were decided from, a larger count. The room
// comes from free text first (down to MinTail), then from ids (down to
// MinLast), so the row still fits the width the table was fitted to; a
// column cut in the middle reads as another number, and a row that
// overflows is wrapped by the terminal, both worse than a shorter detail.
func (t *Table) grow(cells []string) {
	for j, i := range t.shown {
		if i >= len(cells) {
			break
		}
		need := keptWidth(cells[i], t.cols[i].Fit)
		if need <= t.widths[i] {
			continue
		}
		owed := need - t.widths[i]
		t.setWidth(j, need)
		t.give(t.give(owed, FitTail, MinTail, j), FitMiddle, MinLast, j)
	}
}

// keptWidth is the least width a cell takes whatever its column's width:
// a FitKeep cell's own, a position's "…:LINE"; 0 for the others.
func keptWidth(s string, how Fit) int {
	switch how {
	case FitKeep:
		return Width(s)
	case FitPosition:
		if i := strings.LastIndexByte(s, ':'); i >= 0 {
			return min(Width(s), 1+Width(s[i:]))
		}
		return Width(s)
	}
	return 0
}

// give takes up to owed cells from the shown columns that give way as
// kind does (ids with FitMiddle, positions included), but not from the
// grown column skip, the widest first, none below floor; it returns what
// it could not take.
func (t *Table) give(owed int, kind Fit, floor, skip int) int {
	for owed > 0 {
		widest := -1
		for j, i := range t.shown {
			c := t.cols[i].Fit
			gives := c == kind || (kind == FitMiddle && c == FitPosition)
			if j != skip && gives && t.widths[i] > floor && (widest < 0 || t.widths[i] > t.widths[t.shown[widest]]) {
				widest = j
			}
		}
		if widest < 0 {
			return owed
		}
		t.setWidth(widest, t.widths[t.shown[widest]]-1)
		owed--
	}
	return 0
}

// setWidth sets the width of the j-th shown column.
func (t *Table) setWidth(j, w int) {
	t.widths[t.shown[j]] = w
	t.out.widths[j] = w
}

// Close ends the table.
func (t *Table) Close() error {
	if err := t.t.Close(); err != nil {
		return err
	}
	return t.out.err
}

// Render writes rows as a table sized from them (FitWidths): with width
// > 0 (a terminal) the table fits it, ids shortened in the middle and free
// text cut; with width 0 every value is whole. Cells must already be
// terminal-safe.
func Render(w io.Writer, header func(string) string, width int, cols []Column, rows [][]string) error {
	t, err := NewTable(w, cols, FitWidths(cols, rows, width), width > 0, header)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := t.Row(r, nil); err != nil {
			return err
		}
	}
	return t.Close()
}

// RenderEach writes a table of n rows as Render does, without holding
// them: row(i, cells) fills and returns the cells of row i, and is called
// twice per row, once to size the columns and once to write it, so it
// must return the same cells both times. cells has room for one row and
// may be reused.
func RenderEach(w io.Writer, header func(string) string, width int, cols []Column, n int, row func(i int, cells []string) []string) error {
	z := NewSizer(cols)
	cells := make([]string, len(cols))
	for i := range n {
		z.Add(row(i, cells))
	}
	t, err := NewTable(w, cols, z.Widths(width), width > 0, header)
	if err != nil {
		return err
	}
	for i := range n {
		if err := t.Row(row(i, cells), nil); err != nil {
			return err
		}
	}
	return t.Close()
}

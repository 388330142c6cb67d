package text

import (
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// Table is a borderless table streamed row by row, its columns at widths
// snapctl decided (FitWidths) and ColumnGap cells apart, with a header
// and no rule under it. With fitting set, each cell is shortened to its
// width the way its column gives way; else, and for a FitKeep cell (a
// number) that is wider, a longer cell pushes the next ones rather than
// lose a character.
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
	tab := &Table{t: t, out: out, cols: cols, widths: widths, fitting: fitting, shown: shown, row: row}
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

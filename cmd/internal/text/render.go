package text

import (
	"io"
	"strings"

	"github.com/olekukonko/ll"
	"github.com/olekukonko/tablewriter/tw"
)

// cellRenderer is the tablewriter renderer of snapctl's tables: it lays
// out each header and row line from the cells, widths and alignments
// tablewriter hands it, measured with Width, ColumnGap cells apart, with
// no trailing blanks. tablewriter's own Blueprint renderer is not used:
// it cuts a cell wider than its column, where snapctl's tables must keep
// a number or a piped value whole and push the next columns, and it
// measures with a width of its own (code points, wide or narrow by the
// locale) that can disagree with Width on emoji and ambiguous-width
// characters such as "…", which would shift the columns after them.
type cellRenderer struct {
	w   io.Writer
	err error // the first write error, reported by Table
	// widths are the widths of the columns drawn, which Table may grow
	// after tablewriter was handed its own.
	widths []int
	// line is the one buffer every line is laid out in, so that a row
	// costs the renderer no allocation.
	line []byte
}

func (r *cellRenderer) Start(w io.Writer) error {
	r.w = w
	return nil
}

func (r *cellRenderer) Header(_ [][]string, ctx tw.Formatting) { r.draw(ctx) }

func (r *cellRenderer) Row(_ []string, ctx tw.Formatting) { r.draw(ctx) }

// Footer and Line draw nothing: the tables have no footer and no rules.
func (r *cellRenderer) Footer([][]string, tw.Formatting) {}

func (r *cellRenderer) Line(tw.Formatting) {}

func (r *cellRenderer) Config() tw.Rendition {
	return tw.Rendition{
		Borders:   tw.BorderNone,
		Settings:  tw.Settings{Lines: tw.LinesNone, Separators: tw.SeparatorsNone},
		Streaming: true,
	}
}

func (r *cellRenderer) Close() error { return nil }

func (r *cellRenderer) Logger(*ll.Logger) {}

// blanks is padding to copy from.
const blanks = "                                                                "

// draw writes one line: a right-aligned cell is padded on the left, a
// left-aligned one on the right, and a column of width 0 is left out.
// Blanks are only written before something that is not blank, so that
// the line has no trailing blanks.
func (r *cellRenderer) draw(ctx tw.Formatting) {
	if r.err != nil {
		return
	}
	b := r.line[:0]
	blank := 0 // blanks owed before the next text
	first := true
	for i := range len(ctx.Row.Current) {
		width := ctx.Row.Widths.Get(i)
		if i < len(r.widths) {
			width = r.widths[i]
		}
		if width <= 0 {
			continue
		}
		cell := ctx.Row.Current[i]
		pad := max(0, width-Width(cell.Data))
		if !first {
			blank += ColumnGap
		}
		first = false
		if cell.Align == tw.AlignRight {
			blank += pad
		}
		text := strings.TrimRight(cell.Data, " ")
		if text != "" {
			b = appendBlanks(b, blank)
			b = append(b, text...)
			blank = 0
		}
		blank += len(cell.Data) - len(text)
		if cell.Align != tw.AlignRight {
			blank += pad
		}
	}
	r.line = append(b, '\n')
	_, r.err = r.w.Write(r.line)
}

func appendBlanks(b []byte, n int) []byte {
	for ; n > len(blanks); n -= len(blanks) {
		b = append(b, blanks...)
	}
	return append(b, blanks[:n]...)
}

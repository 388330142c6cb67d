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
	b   strings.Builder
}

func (r *cellRenderer) Start(w io.Writer) error {
	r.w = w
	return nil
}

func (r *cellRenderer) Header(_ [][]string, ctx tw.Formatting) { r.line(ctx) }

func (r *cellRenderer) Row(_ []string, ctx tw.Formatting) { r.line(ctx) }

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

// line writes one line: a right-aligned cell is padded on the left, a
// left-aligned one on the right, and a column of width 0 is left out.
func (r *cellRenderer) line(ctx tw.Formatting) {
	if r.err != nil {
		return
	}
	r.b.Reset()
	first := true
	for i := range len(ctx.Row.Current) {
		width := ctx.Row.Widths.Get(i)
		if width <= 0 {
			continue
		}
		cell := ctx.Row.Current[i]
		pad := max(0, width-Width(cell.Data))
		if !first {
			r.b.WriteString(strings.Repeat(" ", ColumnGap))
		}
		first = false
		if cell.Align == tw.AlignRight {
			r.b.WriteString(strings.Repeat(" ", pad))
			r.b.WriteString(cell.Data)
		} else {
			r.b.WriteString(cell.Data)
			r.b.WriteString(strings.Repeat(" ", pad))
		}
	}
	line := strings.TrimRight(r.b.String(), " ") + "\n"
	_, r.err = io.WriteString(r.w, line)
}

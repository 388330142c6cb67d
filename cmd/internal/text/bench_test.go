package text

import (
	"fmt"
	"io"
	"testing"
)

// benchRow is a row of replay's table, and benchCols its columns.
var (
	benchRow  = []string{"123456", "evt-session-123456", "snapshot", "session-reconnect", "turn-12345", "123456", "accepted", "advanced", "from 123455"}
	benchCols = []Column{{Name: "LINE", Right: true, Fit: FitPosition}, {Name: "EVENT ID", Fit: FitMiddle},
		{Name: "KIND", Drop: 1}, {Name: "SESSION", Fit: FitMiddle}, {Name: "TURN", Fit: FitMiddle},
		{Name: "SEQ", Right: true}, {Name: "VERDICT", Drop: 2}, {Name: "REASON"}, {Name: "DETAIL", Fit: FitTail}}
)

func BenchmarkTableRow(b *testing.B) {
	t, err := NewTable(io.Discard, benchCols, NaturalWidths(benchCols, [][]string{benchRow}), false, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := t.Row(benchRow, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// streamTable streams a table of replay's columns, rows rows of
// benchRow, from its header to its close.
func streamTable(tb testing.TB, rows int, fitting bool) {
	t, err := NewTable(io.Discard, benchCols, NaturalWidths(benchCols, [][]string{benchRow}), fitting, nil)
	if err != nil {
		tb.Fatal(err)
	}
	for range rows {
		if err := t.Row(benchRow, nil); err != nil {
			tb.Fatal(err)
		}
	}
	if err := t.Close(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkTable streams whole tables of 1,000 rows, header and close
// included, and reports the time a row takes.
func BenchmarkTable(b *testing.B) {
	for _, fitting := range []bool{false, true} {
		b.Run(fmt.Sprintf("fitting=%v", fitting), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				streamTable(b, 1000, fitting)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/row")
		})
	}
}

// maxRowAllocs is what tablewriter v1.1.5 allocates to stream one row of
// replay's nine columns (its maps of cell contexts, alignments, paddings
// and merges, the split of each cell into lines, the arguments of its
// debug logging, which it boxes even with logging off): none of it can
// be configured away.
const maxRowAllocs = 88

// A streamed row costs snapctl no allocation beyond tablewriter's own
// (the row slice, Append's arguments and the renderer's line are reused),
// and tablewriter's stay what they were measured at.
func TestTableRowAllocs(t *testing.T) {
	for _, fitting := range []bool{false, true} {
		tab, err := NewTable(io.Discard, benchCols, NaturalWidths(benchCols, [][]string{benchRow}), fitting, nil)
		if err != nil {
			t.Fatal(err)
		}
		row := func() {
			if err := tab.Row(benchRow, nil); err != nil {
				t.Fatal(err)
			}
		}
		row()
		args := []any{append([]string(nil), benchRow...)}
		inTablewriter := testing.AllocsPerRun(1000, func() { _ = tab.t.Append(args...) })
		all := testing.AllocsPerRun(1000, row)
		if all > inTablewriter {
			t.Errorf("fitting %v: %.0f allocations a row, %.0f of them in tablewriter: Table.Row adds %.0f", fitting, all, inTablewriter, all-inTablewriter)
		}
		if all > maxRowAllocs {
			t.Errorf("fitting %v: %.0f allocations a row, want at most %d", fitting, all, maxRowAllocs)
		}
	}
}

// A row's allocations are counted on whole tables of 1,000 and 2,000
// rows: their difference is what 1,000 rows cost, whatever the header
// and the close do.
func TestTableAllocsPerRow(t *testing.T) {
	for _, fitting := range []bool{false, true} {
		small := testing.AllocsPerRun(3, func() { streamTable(t, 1000, fitting) })
		big := testing.AllocsPerRun(3, func() { streamTable(t, 2000, fitting) })
		if perRow := (big - small) / 1000; perRow > maxRowAllocs {
			t.Errorf("fitting %v: %.0f allocations for 1,000 rows, %.0f for 2,000: %.1f a row, want at most %d", fitting, small, big, perRow, maxRowAllocs)
		}
	}
}

// A column dropped to fit is not handed to tablewriter: a row costs what
// it costs in a table without that column.
func TestDroppedColumnsCostNothing(t *testing.T) {
	allocs := func(cols []Column, widths []int, row []string) float64 {
		tab, err := NewTable(io.Discard, cols, widths, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		return testing.AllocsPerRun(1000, func() { _ = tab.Row(row, nil) })
	}
	widths := NaturalWidths(benchCols, [][]string{benchRow})
	var keptCols []Column
	var keptWidths []int
	var keptRow []string
	for i, c := range benchCols {
		if c.Drop > 0 {
			widths[i] = 0
			continue
		}
		keptCols, keptWidths, keptRow = append(keptCols, c), append(keptWidths, widths[i]), append(keptRow, benchRow[i])
	}
	if dropped, kept := allocs(benchCols, widths, benchRow), allocs(keptCols, keptWidths, keptRow); dropped != kept {
		t.Errorf("%.0f allocations a row with two columns dropped, %.0f without them", dropped, kept)
	}
}

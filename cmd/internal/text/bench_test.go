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

// A streamed row costs no allocation (the row slice and the renderer's
// line are reused; through tablewriter's Append it cost 88): counted on
// whole tables of 1,000 and 2,000 rows, whose difference is what 1,000
// rows cost, whatever the header and the close do.
func TestTableAllocsPerRow(t *testing.T) {
	for _, fitting := range []bool{false, true} {
		small := testing.AllocsPerRun(3, func() { streamTable(t, 1000, fitting) })
		big := testing.AllocsPerRun(3, func() { streamTable(t, 2000, fitting) })
		// The runtime allocates a few times now and then, whatever the
		// table does: under one allocation in 100 rows is none.
		if perRow := (big - small) / 1000; perRow >= 0.01 {
			t.Errorf("fitting %v: %.0f allocations for 1,000 rows, %.0f for 2,000: %.2f a row, want none", fitting, small, big, perRow)
		}
	}
}

package text

import (
	"io"
	"testing"
)

func BenchmarkTableRow(b *testing.B) {
	row := []string{"123456", "evt-session-123456", "snapshot", "session-reconnect", "turn-12345", "123456", "accepted", "advanced", "from 123455"}
	cols := []Column{{Name: "LINE", Right: true, Fit: FitPosition}, {Name: "EVENT ID", Fit: FitMiddle},
		{Name: "KIND", Drop: 1}, {Name: "SESSION", Fit: FitMiddle}, {Name: "TURN", Fit: FitMiddle},
		{Name: "SEQ", Right: true}, {Name: "VERDICT", Drop: 2}, {Name: "REASON"}, {Name: "DETAIL", Fit: FitTail}}
	t, err := NewTable(io.Discard, cols, NaturalWidths(cols, [][]string{row}), false, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := t.Row(row, nil); err != nil {
			b.Fatal(err)
		}
	}
}

package text

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
)

var tableCols = []Column{
	{Name: "LINE", Right: true, Fit: FitPosition}, {Name: "EVENT ID", Fit: FitMiddle},
	{Name: "KIND", Drop: 1}, {Name: "SEQ", Right: true}, {Name: "REASON"}, {Name: "DETAIL", Fit: FitTail},
}

var tableRows = [][]string{
	{"1", "evt-1", "snapshot", "1", "initial", "reconnect state"},
	{"2", "ｅｖｔ－ｆｕｌｌ－０２", "snapshot", "2", "advanced", "from 1"},
	{"13", "evt-turn-2-3", "submit", "10", "non-snapshot", ""},
	{"14", "日本語のセッション", "snapshot", "3", "stale", "sequence 3 < accepted 10"},
}

// columnEdges finds each cell of row in line, in order, and says where it
// starts (left-aligned) or ends (right-aligned), in cells.
func columnEdges(t *testing.T, line string, row []string, cols []Column) []int {
	t.Helper()
	var edges []int
	at := 0
	for i, cell := range row {
		j := strings.Index(line[at:], cell)
		if j < 0 || cell == "" {
			edges = append(edges, -1)
			continue
		}
		start := Width(line[:at+j])
		at += j + len(cell)
		if cols[i].Right {
			edges = append(edges, start+Width(cell))
		} else {
			edges = append(edges, start)
		}
	}
	return edges
}

// assertAligned checks that every column of the table starts (or, right-
// aligned, ends) at the same cell on every line, header included.
func assertAligned(t *testing.T, out string, cols []Column, rows [][]string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(rows)+1 {
		t.Fatalf("%d lines for %d rows:\n%s", len(lines), len(rows), out)
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	want := columnEdges(t, lines[0], names, cols)
	for n, row := range rows {
		got := columnEdges(t, lines[n+1], row, cols)
		for i := range cols {
			if got[i] >= 0 && got[i] != want[i] {
				t.Errorf("line %d: %s at cell %d, header at %d:\n%s", n+2, cols[i].Name, got[i], want[i], out)
			}
		}
	}
}

func TestRenderAlignsWideCharacters(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, nil, 0, tableCols, tableRows); err != nil {
		t.Fatal(err)
	}
	assertAligned(t, b.String(), tableCols, tableRows)
	if strings.Contains(b.String(), " \n") {
		t.Errorf("trailing blanks:\n%q", b.String())
	}
}

func TestRenderAlignsColours(t *testing.T) {
	var b bytes.Buffer
	red := func(s string) string { return "\x1b[31m" + s + "\x1b[0m" }
	tab, err := NewTable(&b, tableCols, NaturalWidths(tableCols, tableRows), false, red)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range tableRows {
		if err := tab.Row(r, func(i int, s string) string {
			if i == 4 {
				return red(s)
			}
			return s
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tab.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\x1b[31mREASON\x1b[0m") {
		t.Errorf("the header is not coloured:\n%q", b.String())
	}
	assertAligned(t, b.String(), tableCols, tableRows)
}

// Fitted to a terminal, the fullwidth id is shortened in the middle and
// every later column stays in place.
func TestRenderFitsWideCharacters(t *testing.T) {
	for _, width := range []int{80, 60} {
		var b bytes.Buffer
		if err := Render(&b, nil, width, tableCols, tableRows); err != nil {
			t.Fatal(err)
		}
		widths := FitWidths(tableCols, tableRows, width)
		shown := make([][]string, len(tableRows))
		for n, r := range tableRows {
			shown[n] = make([]string, len(r))
			for i, c := range r {
				shown[n][i] = Shorten(c, widths[i], tableCols[i].Fit)
			}
		}
		assertAligned(t, b.String(), tableCols, shown)
		for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			if Width(l) > width {
				t.Errorf("at %d, a line of %d cells: %q", width, Width(l), l)
			}
		}
	}
}

// Widths fixed from the early rows of a stream do not cut a later, longer
// number: its column grows from that row on, and the detail gives way so
// that the row still fits; the rows after it are aligned with it.
func TestStreamKeepsLongNumbersWhole(t *testing.T) {
	const width = 60
	var b bytes.Buffer
	detail := "bad-json: unexpected end of the line, and more words after it"
	early := [][]string{{"9999", "evt-1", "snapshot", "1", "initial", detail}}
	tab, err := NewTable(&b, tableCols, FitWidths(tableCols, early, width), true, nil)
	if err != nil {
		t.Fatal(err)
	}
	later := [][]string{
		{"10026", "evt-2", "snapshot", "12345678", "malformed", detail},
		{"10027", "evt-3", "snapshot", "12345679", "stale", detail},
	}
	for _, r := range append(early, later...) {
		if err := tab.Row(r, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := tab.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	for i, l := range lines {
		if Width(l) > width {
			t.Errorf("line %d: %d cells, wider than %d: %q", i+1, Width(l), width, l)
		}
	}
	for i, r := range later {
		for _, want := range r[:5] {
			if !strings.Contains(lines[2+i], want) {
				t.Errorf("%q is not printed whole: %q", want, lines[2+i])
			}
		}
	}
	// The two later rows share their widths: each column starts (or ends)
	// at the same cell in both.
	last := columnEdges(t, lines[3], later[1][:5], tableCols)
	if got := columnEdges(t, lines[2], later[0][:5], tableCols); !slices.Equal(got[:4], last[:4]) {
		t.Errorf("rows after the growth are not aligned: %v and %v:\n%s", got, last, b.String())
	}
}

// A column of width 0 is dropped from header and rows.
func TestRenderDropsColumns(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, nil, 52, tableCols, tableRows); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "KIND") || strings.Contains(b.String(), "submit") {
		t.Errorf("KIND is not dropped at 52 cells:\n%s", b.String())
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errShort }

var errShort = bytes.ErrTooLarge

func TestRenderReportsWriteErrors(t *testing.T) {
	if err := Render(failWriter{}, nil, 0, tableCols, tableRows); err != errShort {
		t.Errorf("Render to a failing writer = %v, want %v", err, errShort)
	}
}

// A streamed table holds no rows: the heap after 20,000 rows is what it
// is after 1,000.
func TestTableStreamsInConstantMemory(t *testing.T) {
	heap := func(rows int) uint64 {
		tab, err := NewTable(io.Discard, tableCols, NaturalWidths(tableCols, tableRows), false, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range rows {
			// Fresh cells, as a stream's are, so that holding them would show.
			row := append([]string(nil), tableRows[i%len(tableRows)]...)
			row[1] = strings.Repeat("x", 32)
			if err := tab.Row(row, nil); err != nil {
				t.Fatal(err)
			}
		}
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		if err := tab.Close(); err != nil {
			t.Fatal(err)
		}
		return m.HeapAlloc
	}
	small, big := heap(1000), heap(20000)
	if big > small+1<<20 {
		t.Errorf("heap %d bytes after 1,000 rows, %d after 20,000: the table holds rows", small, big)
	}
}

// Blanks inside a line are kept, a cell's own included; the blanks that
// end it are not.
func TestRenderTrimsOnlyTrailingBlanks(t *testing.T) {
	cols := []Column{{Name: "A"}, {Name: "B"}, {Name: "N", Right: true}, {Name: "C"}}
	cases := []struct {
		name string
		row  []string
		want string
	}{
		{"whole", []string{"a", "b", "1", "c"}, "a    b    1  c\n"},
		{"a cell's blanks before text", []string{"a ", "b  ", "1", "c"}, "a    b    1  c\n"},
		{"empty last cells", []string{"a", "", "", ""}, "a\n"},
		{"a blank last cell", []string{"a", "b", "1", "  "}, "a    b    1\n"},
		{"a right-aligned cell last", []string{"", "", "1", ""}, "          1\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			tab, err := NewTable(&b, cols, []int{3, 3, 1, 1}, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			b.Reset()
			if err := tab.Row(tc.row, nil); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("row %q = %q, want %q", tc.row, b.String(), tc.want)
			}
		})
	}
}

// Rows laid out by the renderer are the lines tablewriter's Append draws
// through it: passing rows by Append would change nothing.
func TestRowsAsAppendDrawsThem(t *testing.T) {
	rows := append([][]string{
		{"123456789012", "\x1b[1mevt\x1b[0m", "", "4294967296", "two  blanks ", "tail  "},
		{"", "", "", "", "", ""},
	}, tableRows...)
	for _, width := range []int{0, 40, 60} {
		var direct, appended bytes.Buffer
		widths := FitWidths(tableCols, rows, width)
		a, err := NewTable(&direct, tableCols, widths, width > 0, strings.ToUpper)
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewTable(&appended, tableCols, widths, width > 0, strings.ToUpper)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if err := a.Row(r, nil); err != nil {
				t.Fatal(err)
			}
			if err := b.t.Append(b.cells(r, nil)); err != nil {
				t.Fatal(err)
			}
		}
		if err := errors.Join(a.Close(), b.Close()); err != nil {
			t.Fatal(err)
		}
		if direct.String() != appended.String() {
			t.Errorf("width %d: rows drawn directly:\n%s\nthrough Append:\n%s", width, direct.String(), appended.String())
		}
	}
}

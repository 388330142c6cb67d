package render

import (
	"bufio"
	"bytes"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/replay"
)

func snapshotResult(line int, eventID string, seq int64) *replay.Result {
	return &replay.Result{File: "c.jsonl", Line: line, Reason: replay.ReasonInitial,
		Event: &replay.Event{Kind: replay.KindSnapshot, EventID: eventID, SessionID: "session-a", TurnID: "turn-1", Sequence: seq}}
}

// TestTableWriterStreams checks that on a terminal replay's table holds
// rows of a live input only until the run waits for input: the rows so
// far size the columns and are written, and later rows are shortened to
// those columns.
func TestTableWriterStreams(t *testing.T) {
	var buf bytes.Buffer
	out := bufio.NewWriter(&buf)
	w := NewTable(out, iostreams.Palette{Bold: func(s string) string { return s }, Green: func(s string) string { return s },
		Yellow: func(s string) string { return s }, Red: func(s string) string { return s }}, TableOptions{Width: 80, Sized: true, Live: true, Size: -1})
	for i, id := range []string{"evt-1", "evt-2"} {
		if err := w.Event(snapshotResult(i+1, id, int64(i+1))); err != nil {
			t.Fatal(err)
		}
	}
	out.Flush()
	if buf.Len() != 0 {
		t.Fatalf("rows written before the columns were sized:\n%s", buf.String())
	}
	w.Idle()
	out.Flush()
	if got := strings.Count(buf.String(), "\n"); got != 3 {
		t.Fatalf("after idle: %d lines, want the header and 2 rows:\n%s", got, buf.String())
	}
	if err := w.Event(snapshotResult(3, "evt-session-0-1-777420", 3)); err != nil {
		t.Fatal(err)
	}
	out.Flush()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, " evt…7420 ") {
		t.Errorf("a later, longer id is not shortened to its column: %q", last)
	}
	for _, l := range lines {
		if w := text.Width(l); w > 80 {
			t.Errorf("line of %d cells: %q", w, l)
		}
	}
	// Columns stay where the first rows put them.
	at := func(l string) int { return text.Width(l[:strings.Index(l, "snapshot")]) }
	if i, j := at(lines[1]), at(last); i != j {
		t.Errorf("KIND moved from cell %d to %d:\n%s", i, j, buf.String())
	}
}

var plainPalette = iostreams.Palette{Bold: func(s string) string { return s }, Green: func(s string) string { return s },
	Yellow: func(s string) string { return s }, Red: func(s string) string { return s }, Dim: func(s string) string { return s }}

// colourPalette colours as a terminal would, to check that colour codes
// take no room.
var colourPalette = iostreams.Palette{Bold: sgr("1"), Green: sgr("32"), Yellow: sgr("33"), Red: sgr("31"), Dim: sgr("2")}

func sgr(code string) func(string) string {
	return func(s string) string { return "\x1b[" + code + "m" + s + "\x1b[0m" }
}

// screen lays a line out as a terminal draws it: one string per cell, ""
// for the second cell of a wide character, colour codes left out.
func screen(line string) []string {
	var cells []string
	for _, r := range ansi.Strip(line) {
		cells = append(cells, string(r))
		for range text.Width(string(r)) - 1 {
			cells = append(cells, "")
		}
	}
	return cells
}

// assertTableAligned checks the table that out starts with (up to its
// first blank line): every data line has each column's value starting
// at the cell where its header word starts (right-aligned columns:
// ending where it ends), with a blank before it (after it). Columns are
// measured with the width function on each line.
func assertTableAligned(t *testing.T, out string, cols []text.Column) {
	t.Helper()
	table, _, _ := strings.Cut(out, "\n\n")
	lines := strings.Split(table, "\n")
	head := ansi.Strip(lines[0])
	blank := func(cells []string, i int) bool { return i < 0 || i >= len(cells) || cells[i] == " " }
	for _, c := range cols {
		at := strings.Index(head, c.Name)
		if at < 0 {
			continue // dropped to fit
		}
		start := text.Width(head[:at])
		end := start + text.Width(c.Name)
		for n, l := range lines[1:] {
			cells := screen(l)
			if c.Right && (blank(cells, end-1) || !blank(cells, end)) {
				t.Errorf("line %d: %s does not end at cell %d:\n%s", n+2, c.Name, end, table)
			}
			if !c.Right && c.Name != "DETAIL" && (blank(cells, start) || !blank(cells, start-1)) {
				t.Errorf("line %d: %s does not start at cell %d:\n%s", n+2, c.Name, start, table)
			}
		}
	}
}

// A fullwidth event id of 10 characters (20 cells) keeps every later
// column aligned, piped and on a terminal, with colours on.
func TestTableWriterAlignsWideIDs(t *testing.T) {
	for _, width := range []int{0, 80, 120} {
		var buf bytes.Buffer
		out := bufio.NewWriter(&buf)
		w := NewTable(out, colourPalette, TableOptions{Width: width, Sized: width > 0, Size: 4096})
		for i, id := range []string{"evt-1", "ｅｖｔ－ｆｕｌｌ－０１", "evt-3", "日本語のイベント番号"} {
			if err := w.Event(snapshotResult(i+1, id, int64(i+1))); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Summary(replay.Summary{}); err != nil {
			t.Fatal(err)
		}
		out.Flush()
		if !strings.Contains(buf.String(), "\x1b[") {
			t.Fatalf("no colour to measure around:\n%s", buf.String())
		}
		assertTableAligned(t, buf.String(), replayColumns)
	}
}

// Widths fixed from the early rows do not cut a later line number past
// 9,999: with the input's size known the column is wide enough for it,
// and without it the column grows for it.
func TestTableWriterLongLineNumbers(t *testing.T) {
	for _, size := range []int64{2 << 20, -1} {
		var buf bytes.Buffer
		out := bufio.NewWriter(&buf)
		w := NewTable(out, plainPalette, TableOptions{Width: 120, Sized: true, Live: true, Size: size})
		for _, line := range []int{26, 1026, 9999} {
			if err := w.Event(snapshotResult(line, "evt-x", 1)); err != nil {
				t.Fatal(err)
			}
		}
		w.Idle() // the widths are settled
		if err := w.Event(snapshotResult(10026, "evt-x", 2)); err != nil {
			t.Fatal(err)
		}
		out.Flush()
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		last := lines[len(lines)-1]
		if !strings.HasPrefix(strings.TrimLeft(last, " "), "10026  evt-x ") {
			t.Errorf("size %d: line 10026 is not printed whole: %q", size, last)
		}
		if size > 0 && !strings.HasPrefix(lines[1], "     26 ") {
			t.Errorf("size %d: LINE is not as wide as the largest line number possible: %q", size, lines[1])
		}
	}
}

// TestJSONEventsCarryOrigin: a HAR entry's URL and an SSE id are written
// only when they change within a file (an emptied id included), so a
// long URL costs its bytes once per entry, not once per event; another
// file starts again. The bytes after a HAR document, of no entry, have
// no URL, not an empty one.
func TestJSONEventsCarryOrigin(t *testing.T) {
	long := "https://chat.example/api/turns?q=" + strings.Repeat("x", 100_000)
	origins := []struct {
		file string
		o    *replay.Origin
		want string // the origin keys written
	}{
		{"a.har", &replay.Origin{Entry: 1, URL: long}, `"entry":1,"url":"` + long + `"`},
		{"a.har", &replay.Origin{Entry: 1, URL: long}, `"entry":1`},
		{"a.har", &replay.Origin{Entry: 2, URL: long}, `"entry":2`},
		{"a.har", &replay.Origin{Entry: 3, URL: "wss://x", LastEventID: "7"}, `"lastEventId":"7","entry":3,"url":"wss://x"`},
		{"a.har", &replay.Origin{Entry: 3, URL: "wss://x"}, `"lastEventId":"","entry":3`},
		{"a.har", &replay.Origin{}, ``}, // the bytes after the document
		{"b.har", &replay.Origin{Entry: 1, URL: "wss://x"}, `"entry":1,"url":"wss://x"`},
		{"c.jsonl", nil, ``},
		{"d.sse", &replay.Origin{LastEventID: "1"}, `"lastEventId":"1"`},
		{"d.sse", nil, `"lastEventId":""`},
	}
	var buf bytes.Buffer
	out := bufio.NewWriter(&buf)
	w := NewJSONEvents(out, "jsonl", false, "")
	for i, o := range origins {
		res := snapshotResult(i+1, "e", int64(i+1))
		res.File, res.Origin = o.file, o.o
		if err := w.Event(res); err != nil {
			t.Fatal(err)
		}
	}
	out.Flush()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	for i, o := range origins {
		if i >= len(lines) {
			t.Fatalf("%d records, want %d", len(lines), len(origins))
		}
		m := afterSequence.FindStringSubmatch(lines[i])
		if m == nil || m[1] != o.want {
			got := ""
			if m != nil {
				got = m[1]
			}
			t.Errorf("record %d: %.120q, want %.120q", i+1, got, o.want)
		}
	}
}

// afterSequence holds what a record has after its sequence.
var afterSequence = regexp.MustCompile(`"sequence":\d+,?(.*)\}$`)

// BenchmarkReplayJSONL measures replay's -o jsonl record writer, the
// output of its hot path.
func BenchmarkReplayJSONL(b *testing.B) {
	var one bytes.Buffer
	NewJSONEvents(&one, "jsonl", false, "").Event(benchResult)
	b.SetBytes(int64(one.Len()))
	b.ReportAllocs()
	w := NewJSONEvents(bufio.NewWriterSize(io.Discard, 64<<10), "jsonl", false, "")
	for b.Loop() {
		w.Event(benchResult)
	}
}

// benchResult is a typical accepted snapshot's result.
var benchResult = &replay.Result{File: "capture.jsonl", Line: 1234, Reason: replay.ReasonAdvanced, Gap: 1, Prev: 41,
	Event: &replay.Event{Kind: replay.KindSnapshot, EventID: "evt-turn-12-7", SessionID: "session-7f3a", TurnID: "turn-12", Sequence: 42}}

// Piped (no width, not a terminal), the table of a real capture has every
// header over its data.
func TestReplayTablePipedAligned(t *testing.T) {
	rd, err := replay.Open([]string{"../../../testdata/reconnect.jsonl"}, nil, replay.DefaultMaxLine)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	out := bufio.NewWriter(&b)
	w := NewTable(out, plainPalette, TableOptions{Size: -1})
	sum, err := replay.Run(rd, replay.Options{}, w.Event)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Summary(sum); err != nil {
		t.Fatal(err)
	}
	out.Flush()
	assertTableAligned(t, b.String(), replayColumns)
}

package cmd

import (
	"bufio"
	"bytes"
	"regexp"
	"strings"
	"testing"

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
	w := newTableWriter(out, palette{Bold: func(s string) string { return s }, Green: func(s string) string { return s },
		Yellow: func(s string) string { return s }, Red: func(s string) string { return s }}, false, false, 80, true, true)
	for i, id := range []string{"evt-1", "evt-2"} {
		if err := w.event(snapshotResult(i+1, id, int64(i+1))); err != nil {
			t.Fatal(err)
		}
	}
	out.Flush()
	if buf.Len() != 0 {
		t.Fatalf("rows written before the columns were sized:\n%s", buf.String())
	}
	w.idle()
	out.Flush()
	if got := strings.Count(buf.String(), "\n"); got != 3 {
		t.Fatalf("after idle: %d lines, want the header and 2 rows:\n%s", got, buf.String())
	}
	if err := w.event(snapshotResult(3, "evt-session-0-1-777420", 3)); err != nil {
		t.Fatal(err)
	}
	out.Flush()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, " evt…7420 ") {
		t.Errorf("a later, longer id is not shortened to its column: %q", last)
	}
	for _, l := range lines {
		if w := displayWidth(l); w > 80 {
			t.Errorf("line of %d cells: %q", w, l)
		}
	}
	// Columns stay where the first rows put them.
	at := func(l string) int { return displayWidth(l[:strings.Index(l, "snapshot")]) }
	if i, j := at(lines[1]), at(last); i != j {
		t.Errorf("KIND moved from cell %d to %d:\n%s", i, j, buf.String())
	}
}

// TestJSONEventsCarryOrigin: a HAR entry's URL and an SSE id are written
// only when they change within a file (an emptied id included), so a
// long URL costs its bytes once per entry, not once per event; another
// file starts again.
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
		{"b.har", &replay.Origin{Entry: 1, URL: "wss://x"}, `"entry":1,"url":"wss://x"`},
		{"c.jsonl", nil, ``},
		{"d.sse", &replay.Origin{LastEventID: "1"}, `"lastEventId":"1"`},
		{"d.sse", nil, `"lastEventId":""`},
	}
	var buf bytes.Buffer
	out := bufio.NewWriter(&buf)
	w := newJSONEvents(out, "jsonl", false)
	for i, o := range origins {
		res := snapshotResult(i+1, "e", int64(i+1))
		res.File, res.Origin = o.file, o.o
		if err := w.event(res); err != nil {
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

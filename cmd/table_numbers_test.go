package cmd

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/text"
)

// numbersCapture is a capture of n lines whose first 200 are malformed
// and every 7th after them too, each malformed line's envelope naming
// its line number as its sequence: the table is sized from 200 rows of
// short numbers, and the later ones are up to five digits long.
func numbersCapture(n int) (capture string, malformed []int) {
	var b strings.Builder
	for line := 1; line <= n; line++ {
		if line <= 200 || line%7 == 0 {
			// No emittedAt and no payload: malformed, its envelope read.
			fmt.Fprintf(&b, `{"protocol":"agentskit.chat.turn","version":1,"eventId":"evt-%d","sessionId":"session-numbers","turnId":"turn-1","sequence":%d,"event":"server.turn.snapshot"}`+"\n", line, line)
			malformed = append(malformed, line)
			continue
		}
		fmt.Fprintf(&b, `{"protocol":"agentskit.chat.turn","version":1,"eventId":"evt-%d","sessionId":"session-numbers","turnId":"turn-1","sequence":%d,"emittedAt":"2026-07-11T03:00:01.000Z","event":"server.turn.snapshot","payload":{"status":"streaming","usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"messages":[]}}`+"\n", line, line)
	}
	return b.String(), malformed
}

// On a terminal, replay's table of a capture of more than 9,999 lines
// shows every line number and sequence whole, though its columns were
// sized from 200 rows of short ones: read from standard input (size
// unknown) and from a gzip file whose size has fewer digits than its
// line numbers. Every row still fits the terminal: the detail gives way.
func TestReplayTableKeepsNumbersWhole(t *testing.T) {
	capture, malformed := numbersCapture(14_592)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte(capture))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "numbers.jsonl.gz")
	if err := os.WriteFile(file, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, width := range []int{80, 120} {
		for _, input := range []string{"-", file} {
			ios, out, errOut := iostreams.Test(capture)
			ios.OutTTY, ios.Columns, ios.NoPager = true, width, true
			if code := run(ios, []string{"replay", "--color", "never", "--only", "malformed", input}); code != 0 {
				t.Fatalf("%d columns, %s: exit %d: %s", width, input, code, errOut)
			}
			table, _, _ := strings.Cut(out.String(), "\n\n")
			rows := strings.Split(table, "\n")[1:]
			if len(rows) != len(malformed) {
				t.Fatalf("%d columns, %s: %d rows for %d malformed lines", width, input, len(rows), len(malformed))
			}
			for i, row := range rows {
				if text.Width(row) > width {
					t.Errorf("%d columns, %s: a row of %d cells: %q", width, input, text.Width(row), row)
				}
				f := strings.Fields(row)
				want := strconv.Itoa(malformed[i])
				if len(f) < 6 || f[0] != want || !strings.Contains(row, " "+want+"  inert") && !strings.Contains(row, " "+want+"  malformed") {
					t.Fatalf("%d columns, %s: line and sequence %s not whole: %q", width, input, want, row)
				}
			}
		}
	}
}

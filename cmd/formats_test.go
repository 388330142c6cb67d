package cmd

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
)

// positionKeys are the keys of a replay record that say where an event
// was, which differ from one transport to another.
var positionKeys = []string{"file", "line", "loggedAt", "lastEventId", "entry", "url"}

// replayRecords runs replay -o jsonl on file and returns its records
// without their position keys.
func replayRecords(t *testing.T, file string) []map[string]any {
	t.Helper()
	ios, out, errOut := iostreams.Test("")
	if code := run(ios, []string{"replay", "-o", "jsonl", file}); code != 0 {
		t.Fatalf("replay %s: exit %d: %s", file, code, errOut)
	}
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		for _, k := range positionKeys {
			delete(r, k)
		}
		recs = append(recs, r)
	}
	return recs
}

// TestFormatsReplayAlike: testdata/reconnect.jsonl as NDJSON, HAR (bodies
// and WebSocket), SSE, Docker, CRI and kubectl gives the same replay -o
// jsonl records but for their positions.
func TestFormatsReplayAlike(t *testing.T) {
	want := replayRecords(t, "../testdata/reconnect.jsonl")
	forms, err := filepath.Glob("../testdata/formats/reconnect*")
	if err != nil || len(forms) < 6 {
		t.Fatalf("want the six forms in testdata/formats, found %q (%v)", forms, err)
	}
	for _, f := range forms {
		t.Run(filepath.Base(f), func(t *testing.T) {
			got := replayRecords(t, f)
			if len(got) != len(want) {
				t.Fatalf("%d records, want %d", len(got), len(want))
			}
			for i := range want {
				g, _ := json.Marshal(got[i])
				w, _ := json.Marshal(want[i])
				if string(g) != string(w) {
					t.Errorf("record %d:\n got %s\nwant %s", i, g, w)
				}
			}
		})
	}
}

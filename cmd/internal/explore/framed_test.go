package explore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/internal/samples"
	"github.com/agentskit/snapctl/replay"
)

// TestFeedFramedWithoutOrigin checks that the feed decoded on every core
// spools every line of a capture of another format than NDJSON, those
// without an Origin too (a bare NDJSON line mixed into a kubectl log, an
// SSE event after an empty id), as the feed of one line at a time does:
// RawFramed gave their Raw only with an Origin, and the row of such a
// line read back the next line's bytes, or none.
func TestFeedFramedWithoutOrigin(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(samples.Dir(), "reconnect.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	dir := t.TempDir()
	// kubectl: a timestamped line first, then bare NDJSON lines mixed in.
	var k strings.Builder
	for i, l := range lines {
		if i%2 == 0 {
			k.WriteString("2026-07-11T03:00:00.000000123Z ")
		}
		k.WriteString(l + "\n")
	}
	// SSE: an id first, then an empty id, events without one.
	var s strings.Builder
	for i, l := range lines {
		if i == 0 {
			s.WriteString("id: 1\n")
		}
		if i == 2 {
			s.WriteString("id:\n")
		}
		s.WriteString("data: " + l + "\n\n")
	}
	for name, text := range map[string]string{"mixed.kubectl.log": k.String(), "noid.sse": s.String()} {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		files := []string{f}
		want := indexOf(t, files, replay.Options{}, false, 1)
		got := indexOf(t, files, replay.Options{}, true, 4)
		sameIndex(t, name, got, want)
	}
}

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
	b := samples.Read(t, "reconnect.jsonl")
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

// TestFramedRowsReadTheEvent checks that every row of an SSE stream
// without any id reads back its event, not the transport's bytes, on
// both feeds: its first line has no Origin, and the capture was not
// spooled.
func TestFramedRowsReadTheEvent(t *testing.T) {
	b := samples.Read(t, "reconnect.jsonl")
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, strings.TrimSuffix(l, "\r"))
		}
	}
	var sse strings.Builder
	for _, l := range lines {
		sse.WriteString("data: " + l + "\n\n")
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"noid.sse": sse.String()} {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, every := range []bool{false, true} {
			x := indexOf(t, []string{f}, replay.Options{}, every, 4)
			if x.len() != len(lines) {
				t.Fatalf("%s: %d rows, want %d", name, x.len(), len(lines))
			}
			for i := range x.len() {
				raw, err := x.raw(x.rows.at(i))
				if err != nil || string(raw) != lines[i] {
					t.Errorf("%s, every core %v: row %d reads back %d bytes %q (%v), want its event %d bytes %q", name, every, i, len(raw), raw[max(0, len(raw)-40):], err, len(lines[i]), lines[i][max(0, len(lines[i])-40):])
					break
				}
			}
		}
	}
}

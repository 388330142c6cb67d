package cmd

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
)

// largestWrite remembers the longest single write.
type largestWrite struct{ n, max int }

func (w *largestWrite) Write(p []byte) (int, error) {
	w.n += len(p)
	w.max = max(w.max, len(p))
	return len(p), nil
}

// TestJSONDocumentsStream: inspect and lineage write -o json a session at a
// time and replay and diff a record at a time, so no write is ever the
// whole document (the output buffer passes a write longer than itself
// straight through).
func TestJSONDocumentsStream(t *testing.T) {
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, `{"protocol":"agentskit.chat.turn","version":1,"eventId":"e%d","sessionId":"s%d","turnId":"t%d","sequence":1,"emittedAt":"2026-07-11T03:00:00Z","event":"server.turn.snapshot","payload":{"status":"complete","usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"lineage":{"operation":"submit"},"messages":[{"id":"m","role":"assistant","content":"hi","status":"complete","createdAt":"2026-07-11T03:00:00.000Z"}]}}`+"\n", i, i, i)
		fmt.Fprintf(&b, `{"protocol":"agentskit.chat.turn","version":1,"eventId":"f%d","sessionId":"s%d","turnId":"t%d","sequence":2,"emittedAt":"2026-07-11T03:00:01Z","event":"server.turn.snapshot","payload":{"status":"complete","usage":{"promptTokens":1,"completionTokens":2,"totalTokens":3},"lineage":{"operation":"submit"},"messages":[{"id":"m","role":"assistant","content":"hi there","status":"complete","createdAt":"2026-07-11T03:00:00.000Z"}]}}`+"\n", i, i, i)
	}
	for _, args := range [][]string{{"inspect", "-o", "json"}, {"lineage", "-o", "json"}, {"replay", "-o", "json"}, {"diff", "-o", "json"}} {
		ios, _, errOut := iostreams.Test(b.String())
		w := &largestWrite{}
		ios.Out = w
		if code := run(ios, append(args, "-")); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if w.n < 1<<20 || w.max > 64<<10 {
			t.Errorf("%v: %d bytes, the longest write %d: want over 1 MiB in writes of at most 64 KiB", args, w.n, w.max)
		}
	}
}

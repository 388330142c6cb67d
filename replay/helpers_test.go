package replay

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// snapshotLine is a valid snapshot of session with one message.
func snapshotLine(session string, seq int64) string {
	return eventLine(session, seq, "server.turn.snapshot",
		`{"status":"complete","usage":{"promptTokens":1,"completionTokens":2,"totalTokens":3},"messages":[`+
			`{"id":"m1","role":"assistant","content":"hi","status":"complete","createdAt":"2026-07-11T03:00:00.000Z"}]}`)
}

func eventLine(session string, seq int64, kind, payload string) string {
	return fmt.Sprintf(`{"protocol":"agentskit.chat.turn","version":1,"eventId":"e%d","sessionId":%q,"turnId":"t1",`+
		`"sequence":%d,"emittedAt":"2026-07-11T03:00:00.000Z","event":%q,"payload":%s}`, seq, session, seq, kind, payload)
}

// withMessage is a snapshot line whose single message has extra fields
// spliced in (a JSON fragment starting with a comma, or "").
func withMessage(extra string) string {
	return eventLine("s", 1, "server.turn.snapshot",
		`{"status":"complete","usage":{"promptTokens":1,"completionTokens":2,"totalTokens":3},"messages":[`+
			`{"id":"m1","role":"assistant","content":"hi","status":"complete","createdAt":"2026-07-11T03:00:00.000Z"`+extra+`}]}`)
}

// nested is n levels of arrays around a value.
func nested(n int, inner string) string {
	return strings.Repeat("[", n) + inner + strings.Repeat("]", n)
}

// needsMapping skips a test of mapped captures where mapFile maps none
// (32-bit address spaces, systems without mmap).
func needsMapping(t *testing.T) {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "probe")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write([]byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	m := mapFile(f, 3)
	if m == nil {
		t.Skip("captures are not mapped here")
	}
	unmap(m)
}

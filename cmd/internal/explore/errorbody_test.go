package explore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExploreErrorBody: the event tab of a server's HTTP error body says
// what it is, as replay's table does, and of one with an event glued
// after it that the event is dropped with it; its message, capture
// content, reaches the screen escaped, and not at all with --redact.
func TestExploreErrorBody(t *testing.T) {
	snap := `{"protocol":"agentskit.chat.turn","version":1,"eventId":"e1","sessionId":"sa","turnId":"t1","sequence":1,"emittedAt":"2026-07-11T03:00:01Z","event":"server.turn.snapshot","payload":{"status":"streaming","usage":{"promptTokens":1,"completionTokens":0,"totalTokens":1},"messages":[]}}`
	busy := `{"error":{"version":1,"code":"SESSION_BUSY","message":"Another turn is active for this session.","retryable":true}}`
	hostile := `{"error":{"version":1,"code":"CHAT_TURN_FAILED","message":"\u001b]0;owned\u0007 \u202eevil","retryable":false}}`
	file := filepath.Join(t.TempDir(), "refused.jsonl")
	if err := os.WriteFile(file, []byte(snap+"\n"+busy+"\n"+busy+strings.Replace(snap, `"sequence":1`, `"sequence":2`, 1)+"\n"+hostile+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, line string
		redact     bool
		want       string
		not        []string
	}{
		{"whole", "2", false, `verdict: inert (malformed): HTTP error body SESSION_BUSY (retryable) "Another turn is active for this session.", not an event (PROTOCOL_INVALID_PAYLOAD)`, nil},
		{"glued", "3", false, `SESSION_BUSY (retryable) "Another turn is active for this session.", not an event; an event glued after it is dropped with it`, nil},
		{"hostile", "4", false, `HTTP error body CHAT_TURN_FAILED (not retryable) "\x1b]0;owned\a \u202eevil", not an event`, []string{"\x1b", "\a", "\u202e"}},
		{"redacted", "3", true, `HTTP error body SESSION_BUSY (retryable), not an event; an event glued after it is dropped with it (PROTOCOL_INVALID_PAYLOAD)`, []string{"Another turn"}},
		{"redacted hostile", "4", true, `CHAT_TURN_FAILED (not retryable)`, []string{"owned", "evil"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := newTestExplorer(t, 400, 40, "", file)
			m.redact = tt.redact
			press(m, ":", tt.line, "enter", "1")
			lines := strings.Join(m.lines, "\n")
			if !strings.Contains(lines, tt.want) {
				t.Errorf("event tab lacks %q:\n%s", tt.want, lines)
			}
			screen := m.render()
			for _, s := range tt.not {
				if strings.Contains(screen, s) {
					t.Errorf("screen holds %q:\n%s", s, screen)
				}
			}
		})
	}
}

package inspect

import (
	"strings"
	"testing"

	"github.com/agentskit/snapctl/replay"
)

// TestErrorBodyOf: a malformed line is a server error body when it starts
// with one whose code is a diagnostic code; what follows it on the line
// is glued to it; its message is cut short; and a line that decoded, or a
// run of wrappers (--event-path), holds none.
func TestErrorBodyOf(t *testing.T) {
	body := `{"error":{"version":1,"code":"SESSION_BUSY","message":"Another turn is active for this session.","retryable":true}}`
	busy := ErrorBody{Code: "SESSION_BUSY", Message: "Another turn is active for this session.", Retryable: true}
	glued := busy
	glued.Glued = true
	long := strings.Repeat("é", maxRefusalMessage)
	bad := &replay.DecodeError{Code: replay.CodeInvalidPayload}
	for _, tt := range []struct {
		name      string
		raw       string
		err       *replay.DecodeError
		eventPath string
		want      ErrorBody
		ok        bool
	}{
		{"whole", body, bad, "", busy, true},
		{"leading blanks", " \t" + body, bad, "", busy, true},
		{"trailing blanks", body + " \r", bad, "", busy, true},
		{"glued", body + `{"protocol":"agentskit.chat.turn"}`, bad, "", glued, true},
		{"glued garbage", body + `x`, bad, "", glued, true},
		{"not retryable", `{"error":{"code":"REQUEST_INVALID_JSON","message":"m"}}`, bad, "", ErrorBody{Code: "REQUEST_INVALID_JSON", Message: "m"}, true},
		{"long message", `{"error":{"code":"X","message":"` + long + `"}}`, bad, "", ErrorBody{Code: "X", Message: clip(long, maxRefusalMessage)}, true},
		{"no code", `{"error":{"message":"m"}}`, bad, "", ErrorBody{}, false},
		{"not a code", `{"error":{"code":"session busy","message":"m"}}`, bad, "", ErrorBody{}, false},
		{"error not an object", `{"error":"SESSION_BUSY"}`, bad, "", ErrorBody{}, false},
		{"cut short", `{"error":{"code":"SESSION_BUSY","mess`, bad, "", ErrorBody{}, false},
		{"other key first", `{"protocol":"x","error":{"code":"SESSION_BUSY"}}`, bad, "", ErrorBody{}, false},
		{"decoded", body, nil, "", ErrorBody{}, false},
		{"event path", body, bad, "data", ErrorBody{}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := &replay.Result{Reason: replay.ReasonMalformed, Err: tt.err, Raw: []byte(tt.raw)}
			got, ok := ErrorBodyOf(res, tt.eventPath)
			if ok != tt.ok || got != tt.want {
				t.Errorf("ErrorBodyOf(%.60q) = %+v, %v; want %+v, %v", tt.raw, got, ok, tt.want, tt.ok)
			}
		})
	}
	if m, _ := ErrorBodyOf(&replay.Result{Err: bad, Raw: []byte(`{"error":{"code":"X","message":"` + long + `"}}`)}, ""); len(m.Message) > maxRefusalMessage+len("…") {
		t.Errorf("message of %d bytes, want at most %d and an ellipsis", len(m.Message), maxRefusalMessage)
	}
}

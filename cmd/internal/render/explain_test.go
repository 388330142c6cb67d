package render

import (
	"testing"

	"github.com/agentskit/snapctl/replay"
)

// Each way an operator names a rule finds it first.
func TestMatchRules(t *testing.T) {
	rules := replay.ProtocolRules()
	tests := []struct{ name, query, want string }{
		{"id", "record.max-values", "record.max-values"},
		{"id in capitals", "RECORD.MAX-VALUES", "record.max-values"},
		{"field", "createdAt", "message.created-at"},
		{"field as id part", "emitted-at", "envelope.emitted-at"},
		{"code", "PROTOCOL_UNSUPPORTED_VERSION", "code.unsupported-version"},
		{"snapctl's code", "SNAPCTL_LINE_TOO_LONG", "snapctl.line-too-long"},
		{"reason", "duplicate", "cursor.duplicate"},
		{"reason with a dash", "non-snapshot", "cursor.non-snapshot"},
		{"title phrase", "byte-order mark", "line.bom"},
		{"detail words", "has more than 10000 entries", "record.max-entries"},
		{"whole detail", `sessionId: "a b" is not a safe identifier`, "envelope.ids"},
		{"detail without path", `"x" is not one of user, assistant, system, tool`, "message.role"},
		{"json detail", "invalid JSON at byte 0: unexpected byte 0xef, expected a value", "line.bom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MatchRules(rules, tt.query)
			if len(got) == 0 || got[0].ID != tt.want {
				t.Errorf("MatchRules(%q) = %v, want %s first", tt.query, ids(got), tt.want)
			}
		})
	}
}

func ids(rules []replay.Rule) []string {
	var out []string
	for _, r := range rules {
		out = append(out, r.ID)
	}
	return out
}

// TestServerCode: a code-like query that matched nothing is said to be
// the server's own only outside the contract's and snapctl's prefixes: an
// unknown PROTOCOL_ or SNAPCTL_ code is a misspelt or missing code of
// theirs, which no server chose.
func TestServerCode(t *testing.T) {
	for _, tt := range []struct {
		q      string
		server bool
	}{
		{"SESSION_BUSY", true},
		{"CHAT_TURN_FAILED", true},
		{"PROTOCOL_NOPE_XYZ", false},
		{"SNAPCTL_WHATEVER_THING", false},
		{"zzzz", false},
		{"BUSY", false},
	} {
		if got := ServerCode(tt.q) != ""; got != tt.server {
			t.Errorf("ServerCode(%q) says the server's: %v, want %v", tt.q, got, tt.server)
		}
	}
}

// TestResultDetailsNameTheirRule: each detail replay's table writes of a
// verdict (ResultDetail), pasted into explain, names its reason's rule
// alone, so that cursorDetails cannot fall behind a change of wording.
func TestResultDetailsNameTheirRule(t *testing.T) {
	rules := replay.ProtocolRules()
	ev := &replay.Event{Sequence: 3}
	for _, res := range []replay.Result{
		{Reason: replay.ReasonAdvanced, Prev: 2},
		{Reason: replay.ReasonAdvanced, Prev: 2, Gap: 4},
		{Reason: replay.ReasonDuplicate, Event: ev},
		{Reason: replay.ReasonStale, Event: ev, Prev: 6},
	} {
		detail := ResultDetail(&res, false, "")
		got := MatchRules(rules, detail)
		if want := "cursor." + string(res.Reason); len(got) != 1 || got[0].ID != want {
			t.Errorf("MatchRules(%q) = %v, want only %s", detail, ids(got), want)
		}
	}
}

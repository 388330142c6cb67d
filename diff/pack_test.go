package diff

import (
	"reflect"
	"testing"

	"github.com/agentskit/snapctl/replay"
)

// TestPackRoundTrip checks that a packed projection's messages come back
// as they were: every string, flag and tool call, empty ones included.
func TestPackRoundTrip(t *testing.T) {
	for _, ms := range [][]replay.Message{
		{},
		{{ID: "u1", Role: "user", Content: "hi", Status: "complete", CreatedAt: "2026-07-11T03:00:00.000Z"}},
		{
			{ID: "a1", Role: "assistant", Content: "", ToolCallID: "", HasToolCallID: true, Parts: `[{"type":"text"}]`, Metadata: `{}`},
			{ID: "t1", Role: "tool", ToolCallID: "c1", HasToolCallID: true, HasToolCalls: true, ToolCalls: []replay.ToolCall{
				{ID: "c1", Name: "search", Status: "complete", Args: `{"q":"x"}`, Result: "ok", HasResult: true},
				{ID: "c2", Name: "fetch", Status: "error", Error: "", HasError: true},
			}},
			{ID: string(make([]byte, 300)), Content: "é\x00", HasToolCalls: true, ToolCalls: []replay.ToolCall{}},
		},
	} {
		got := unpack(pack(ms))
		// pack does not tell a nil list of tool calls from an empty one;
		// HasToolCalls says whether the field was there.
		for i := range ms {
			if len(ms[i].ToolCalls) == 0 {
				ms[i].ToolCalls = nil
			}
		}
		if !reflect.DeepEqual(got, ms) {
			t.Errorf("unpack(pack(%+v)) = %+v", ms, got)
		}
	}
}

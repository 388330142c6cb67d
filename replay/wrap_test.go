package replay

import (
	"strconv"
	"strings"
	"testing"
)

func TestEventPath(t *testing.T) {
	ev := snapshotLine("s", 3)
	cases := []struct {
		name, line, path string
		code             Code
		detail           string
	}{
		{"object value", `{"ts":1,"dir":"in","frame":` + ev + `}`, "frame", "", ""},
		{"string value holding JSON", `{"ts":1,"frame":` + strconv.Quote(ev) + `}`, "frame", "", ""},
		{"nested path", `{"ws":{"data":` + ev + `}}`, "ws.data", "", ""},
		{"missing path", `{"ts":1}`, "frame", CodeInvalidPayload, `wrapper has no value at --event-path "frame"`},
		{"broken wrapper", `{"frame":` + ev, "frame", CodeInvalidPayload, "wrapper: invalid JSON"},
		{"deeply nested wrapper", `{"x":` + nested(1000000, "") + `,"frame":` + ev + `}`, "frame", "", ""},
		{"string that is not an event", `{"frame":"hello"}`, "frame", CodeInvalidPayload, "invalid JSON at byte 0"},
		{"wrapped unsupported version", `{"frame":` + strings.Replace(ev, `"version":1`, `"version":2`, 1) + `}`, "frame", CodeUnsupportedVersion, "version"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := Decoder{EventPath: tc.path}
			var e Event
			err := d.Decode([]byte(tc.line), &e)
			if tc.code == "" {
				if err != nil || e.Sequence != 3 {
					t.Fatalf("want the wrapped event, got %v", err)
				}
				return
			}
			if err == nil || err.Code != tc.code || !strings.Contains(err.Detail(), tc.detail) {
				t.Fatalf("want %s %q, got %v", tc.code, tc.detail, err)
			}
		})
	}
}

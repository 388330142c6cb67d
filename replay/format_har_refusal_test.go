package replay

import (
	"encoding/base64"
	"strings"
	"testing"
)

// harStatus sets the response status of an entry made by harEntryJSON.
func harStatus(entry string, status string) string {
	return strings.Replace(entry, `"status": 200`, `"status": `+status, 1)
}

// TestHARErrorBodies: a response with an error status whose body is a
// server error body ({"error": …}, no turn marker) is read, as its line
// is in an NDJSON capture of the responses: one malformed event at line 1
// of its entry. Other bodies without turn events stay skipped: a 200 with
// an error-shaped body, a 404 page, an error body that is not at the
// body's start.
func TestHARErrorBodies(t *testing.T) {
	const busy = `{"error":{"version":1,"code":"SESSION_BUSY","message":"Another turn is active for this session.","retryable":true}}`
	snap := sampleLines(t, "../testdata/clean.jsonl")[0]
	at := func(sec int) string { return "2026-07-11T03:00:0" + string(rune('0'+sec)) + ".000Z" }
	tests := []struct {
		name  string
		entry string
		want  int // malformed events, 0 when the entry is skipped
	}{
		{"409 with an error body", harStatus(harEntryJSON("https://chat.example/chat", at(2), busy, ""), "409"), 1},
		{"blanks before the body", harStatus(harEntryJSON("https://chat.example/chat", at(2), "  "+busy, ""), "400"), 1},
		{"base64", harStatus(harEntryJSON("https://chat.example/chat", at(2), base64.StdEncoding.EncodeToString([]byte(busy)), "base64"), "415"), 1},
		{"a status with a fraction", harStatus(harEntryJSON("https://chat.example/chat", at(2), busy, ""), "409.0"), 1},
		{"200 with an error-shaped body", harEntryJSON("https://chat.example/chat", at(2), busy, ""), 0},
		{"a status that is a string", harStatus(harEntryJSON("https://chat.example/chat", at(2), busy, ""), `"409"`), 0},
		{"404 page", harStatus(harEntryJSON("https://chat.example/x", at(2), "<html>not found</html>", ""), "404"), 0},
		{"error not at the start", harStatus(harEntryJSON("https://chat.example/chat", at(2), `{"detail":1,"error":{}}`, ""), "500"), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := harDoc(harEntryJSON("https://chat.example/chat", at(1), snap+"\n", ""), tt.entry)
			got, _ := runCapture(t, "c.har", []byte(doc), FormatHAR, 0)
			malformed := 0
			for _, r := range got[1:] {
				if r.Reason != ReasonMalformed || r.Origin.Entry != 2 || r.Line != 1 {
					t.Errorf("event %+v, want a malformed line 1 of entry 2", r)
				}
				malformed++
			}
			if got[0].Reason == ReasonMalformed || got[0].Origin.Entry != 1 {
				t.Errorf("first event %+v, want the snapshot of entry 1", got[0])
			}
			if malformed != tt.want {
				t.Errorf("%d malformed events, want %d", malformed, tt.want)
			}
		})
	}
}

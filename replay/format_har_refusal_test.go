package replay

import (
	"encoding/base64"
	"strconv"
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

// TestHARRequestSubmit: the lines of an entry with an error status whose
// request body is a client.turn.submit carry the session and turn it names
// (Origin.RequestSession), which is how its error body is attributed;
// a body that is not valid JSON, not a submit, or names unsafe ids
// names none, and of a key given twice the last counts, as for the
// server's JSON.parse.
func TestHARRequestSubmit(t *testing.T) {
	const busy = `{"error":{"version":1,"code":"SESSION_BUSY","message":"Another turn is active for this session.","retryable":true}}`
	snap := sampleLines(t, "../testdata/clean.jsonl")[0]
	submit := func(extra string) string {
		return `{"protocol":"agentskit.chat.turn","version":1,"event":"client.turn.submit","sessionId":"s-1","turnId":"turn-2"` + extra + `,"payload":{"input":"x"}}`
	}
	withBody := func(entry, body string) string {
		return strings.Replace(entry, `"method": "POST"`, `"method": "POST", "postData": {"mimeType": "application/json", "text": `+strconv.Quote(body)+`}`, 1)
	}
	tests := []struct {
		name, body    string
		session, turn string
	}{
		{"a submit", submit(""), "s-1", "turn-2"},
		{"the last of keys given twice", submit(`,"sessionId":"s-2"`), "s-2", "turn-2"},
		{"not valid JSON", submit("")[:60], "", ""},
		{"not a submit", strings.Replace(submit(""), "client.turn.submit", "server.turn.snapshot", 1), "", ""},
		{"an unsafe id", strings.Replace(submit(""), `"s-1"`, `"s\u001b[2J"`, 1), "", ""},
		{"an id that is a number", strings.Replace(submit(""), `"s-1"`, `7`, 1), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			refused := withBody(harStatus(harEntryJSON("https://chat.example/chat", "2026-07-11T03:00:02.000Z", busy, ""), "409"), tt.body)
			if !strings.Contains(refused, "postData") {
				t.Fatalf("no request body in %s", refused)
			}
			// The answered entry's request is a submit too: only an error
			// body's request is read.
			answered := withBody(harEntryJSON("https://chat.example/chat", "2026-07-11T03:00:01.000Z", snap+"\n", ""), submit(""))
			doc := harDoc(answered, refused)
			got, _ := runCapture(t, "c.har", []byte(doc), FormatHAR, 0)
			if len(got) != 2 {
				t.Fatalf("%d events, want 2", len(got))
			}
			if o := got[1].Origin; o.RequestSession != tt.session || o.RequestTurn != tt.turn {
				t.Errorf("the error body's request names %q, %q; want %q, %q", o.RequestSession, o.RequestTurn, tt.session, tt.turn)
			}
			if o := got[0].Origin; o.RequestSession != "" {
				t.Errorf("an entry with status 200 names %q", o.RequestSession)
			}
		})
	}
}

// TestHARSlotRoundTrip: a slot spilled to the slots' file reads back as
// it was written, every field of it.
func TestHARSlotRoundTrip(t *testing.T) {
	want := harSlot{sec: 1, url: 2, text: 3, ws: 4, post: 5, end: 6, entry: 7, nsec: 8, flags: slotText | slotBase64}
	var s harSlots
	s.add(want)
	s.spill()
	if s.err != nil {
		t.Skip(s.err)
	}
	defer s.close()
	if err := s.done(); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.next()
	if err != nil || !ok || *got != want {
		t.Errorf("read back %+v, %v, %v; want %+v", got, ok, err, want)
	}
}

package replay

import (
	"strings"
	"testing"
)

// TestRecordFormat reads a capture as snapctl record writes it: context
// records are framing, counted, never events; the lines they announce
// are events with their exchange's origin, even one shaped like a
// context record; a cut record is one line too long to decode, with its
// length; under --format ndjson the context records are malformed
// lines, as the reference reads them, and the events keep their
// verdicts.
func TestRecordFormat(t *testing.T) {
	snap := func(seq string) string {
		return `{"protocol":"agentskit.chat.turn","version":1,"eventId":"e` + seq + `","sessionId":"s","turnId":"t1","sequence":` + seq +
			`,"emittedAt":"2026-12-01T08:45:53.617Z","event":"server.turn.snapshot","payload":{"messages":[],"status":"streaming","usage":{"promptTokens":0,"completionTokens":0,"totalTokens":0}}}`
	}
	sub := `{"protocol":"agentskit.chat.turn","version":1,"eventId":"sub","sessionId":"s","turnId":"t1","sequence":0,"emittedAt":"2026-12-01T08:45:53.600Z","event":"client.turn.submit","payload":{"input":"hi"}}`
	fake := `{"snapctl":"received","req":9,"at":"x","lines":5}`
	capture := strings.Join([]string{
		`{"snapctl":"capture","at":"2026-12-01T12:00:00Z","version":1,"upstream":"http://127.0.0.1:3000"}`,
		`{"snapctl":"request","req":1,"at":"2026-12-01T12:00:01Z","method":"POST","url":"/chat","sessionId":"s","turnId":"t1","eventId":"sub"}`,
		`{"snapctl":"sent","req":1,"at":"2026-12-01T12:00:01.5Z","lines":1}`,
		sub,
		`{"snapctl":"response","req":1,"at":"2026-12-01T12:00:02Z","status":200}`,
		`{"snapctl":"received","req":1,"at":"2026-12-01T12:00:03Z","lines":3}`,
		snap("2"),
		fake, // a body line: an event, however it looks
		"",   // a blank body line counts as one of the three
		`{"snapctl":"cut","req":1,"at":"2026-12-01T12:00:04Z","bytes":99999}`,
		`{"snapctl":"received","req":1,"at":"2026-12-01T12:00:05Z","lines":1}`,
		snap("3"),
		`{"snapctl":"end","req":1,"at":"2026-12-01T12:00:06Z","bytes":123,"lines":4}`,
		`{"snapctl":"close","at":"2026-12-01T12:00:07Z","requests":1}`,
	}, "\n") + "\n"
	got, sum := runCapture(t, "rec.jsonl", []byte(capture), FormatAuto, 1)
	type want struct {
		line     int
		reason   Reason
		code     Code
		received string
		sent     bool
		status   int
	}
	wants := []want{
		{4, ReasonNonSnapshot, "", "2026-12-01T12:00:01.5Z", true, 0},
		{7, ReasonInitial, "", "2026-12-01T12:00:03Z", false, 200},
		{8, ReasonMalformed, CodeInvalidPayload, "2026-12-01T12:00:03Z", false, 200},
		{10, ReasonMalformed, CodeLineTooLong, "2026-12-01T12:00:04Z", false, 200},
		{12, ReasonAdvanced, "", "2026-12-01T12:00:05Z", false, 200},
	}
	if len(got) != len(wants) {
		t.Fatalf("%d events, want %d: %+v", len(got), len(wants), got)
	}
	for i, w := range wants {
		g := got[i]
		if g.Line != w.line || g.Reason != w.reason || g.Code != w.code || g.Origin.ReceivedAt != w.received ||
			g.Origin.Sent != w.sent || g.Origin.Status != w.status || g.Origin.Request != 1 ||
			g.Origin.URL != "/chat" || g.Origin.RequestSession != "s" || g.Origin.RequestTurn != "t1" {
			t.Errorf("event %d: %+v, want %+v", i+1, g, w)
		}
	}
	if sum.Input.Context != 8 || sum.Input.Blank != 1 || sum.Input.TooLong != 1 || len(sum.Input.Formats) != 1 || sum.Input.Formats[0] != FormatRecord {
		t.Errorf("stats %+v: want 8 context records, 1 blank, 1 too long, format record", sum.Input)
	}
	// As the reference reads it: each context record one malformed line,
	// every event's verdict the same.
	nd, _ := runCapture(t, "rec.jsonl", []byte(capture), FormatNDJSON, 1)
	var events []formatResult
	malformed := 0
	for _, r := range nd {
		if r.Reason == ReasonMalformed {
			malformed++
			continue
		}
		events = append(events, r)
	}
	if malformed != 10 || len(events) != 3 || events[0].Reason != ReasonNonSnapshot || events[1].Reason != ReasonInitial || events[2].Reason != ReasonAdvanced {
		t.Errorf("as NDJSON: %d malformed, events %+v; want 10 (8 records, the fake, the cut) and non-snapshot, initial, advanced", malformed, events)
	}
}

// TestRecordCutDetail: a line snapctl record did not keep (over its own
// --max-line, or its bound on unfinished lines) is one event too long to
// decode whose detail says so, with its length; it does not claim to be
// longer than the reading command's --max-line, which it may well not be.
func TestRecordCutDetail(t *testing.T) {
	capture := `{"snapctl":"capture","at":"2026-12-01T12:00:00Z","version":1,"upstream":"http://127.0.0.1:3000"}` + "\n" +
		`{"snapctl":"request","req":1,"at":"2026-12-01T12:00:01Z","method":"GET","url":"/chat"}` + "\n" +
		`{"snapctl":"cut","req":1,"at":"2026-12-01T12:00:04Z","bytes":1777}` + "\n"
	path := writeFile(t, t.TempDir(), "rec.jsonl", []byte(capture))
	rd, err := Open([]string{path}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var details []string
	if _, err := Run(rd, Options{}, func(res *Result) error {
		if res.Err == nil || res.Err.Code != CodeLineTooLong {
			t.Errorf("line %d: %+v, want a line too long", res.Line, res)
		} else {
			details = append(details, res.Err.Detail())
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(details) != 1 || !strings.Contains(details[0], "1777 bytes") || !strings.Contains(details[0], "snapctl record") ||
		strings.Contains(details[0], "67108864") {
		t.Errorf("details %q: want one naming its 1777 bytes and snapctl record's cut, not the reader's limit", details)
	}
}

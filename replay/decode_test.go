package replay

import (
	"fmt"
	"strings"
	"testing"
)

// These cases pin both sides of each boundary protocol-v1.md names, and
// the path the detail reports. The conformance corpus pins many more
// verdicts against the reference; these check our own explanations too.
func TestDecodeBoundaries(t *testing.T) {
	submit := func(input string) string { return eventLine("s", 1, "client.turn.submit", `{"input":`+input+`}`) }
	withSeq := func(seq string) string {
		return strings.Replace(eventLine("s", 1, "client.turn.submit", `{"input":"x"}`), `"sequence":1`, `"sequence":`+seq, 1)
	}
	withAt := func(at string) string {
		return strings.Replace(eventLine("s", 1, "client.turn.submit", `{"input":"x"}`), `"2026-07-11T03:00:00.000Z"`, `"`+at+`"`, 1)
	}
	createdAt := func(at string) string {
		return strings.Replace(snapshotLine("s", 1), `"createdAt":"2026-07-11T03:00:00.000Z"`, `"createdAt":"`+at+`"`, 1)
	}
	metaDepth := func(levels int) string {
		// metadata is at record depth 3; each level nests one object deeper.
		return withMessage(`,"metadata":` + strings.Repeat(`{"a":`, levels) + `1` + strings.Repeat(`}`, levels))
	}
	values := func(n int) string {
		// record (1) + version (1) + messages array (1) + message object
		// (1) + 5 fields + metadata object (1) + array (1) + n-11 numbers.
		return withMessage(`,"metadata":{"a":[` + strings.TrimSuffix(strings.Repeat("1,", n-11), ",") + `]}`)
	}
	ident := strings.Repeat("a", 128)
	cases := []struct {
		name, line string
		code       Code   // "" when valid
		detail     string // substring of the first problem
	}{
		{"valid submit", submit(`"hello"`), "", ""},
		{"metadata depth 29", metaDepth(29), "", ""},
		{"metadata depth 30", metaDepth(30), CodeInvalidPayload, "nested deeper than 32"},
		{"10,000 values", values(10000), "", ""},
		{"10,001 values", values(10001), CodeInvalidPayload, "JSON values"},
		{"sequence 2^53-1", withSeq("9007199254740991"), "", ""},
		{"sequence 2^53", withSeq("9007199254740992"), CodeInvalidPayload, "sequence: 9007199254740992 is not a non-negative safe integer"},
		{"sequence -0", withSeq("-0"), "", ""},
		{"sequence 1e2", withSeq("1e2"), "", ""},
		{"sequence 1.5", withSeq("1.5"), CodeInvalidPayload, "sequence"},
		{"sequence string", withSeq(`"1"`), CodeInvalidPayload, "sequence: must be a number"},
		{"sequence 1e999", withSeq("1e999"), CodeInvalidPayload, "sequence"},
		{"Feb 29 leap year", withAt("2024-02-29T00:00:00Z"), "", ""},
		{"Feb 29 non-leap year", withAt("2023-02-29T00:00:00Z"), CodeInvalidPayload, "emittedAt"},
		{"Feb 29 2000", withAt("2000-02-29T00:00:00Z"), "", ""},
		{"Feb 29 1900", withAt("1900-02-29T00:00:00Z"), CodeInvalidPayload, "emittedAt"},
		{"hour 23", withAt("2026-07-11T23:59:59.999+02:00"), "", ""},
		{"hour 24", withAt("2026-07-11T24:00:00Z"), CodeInvalidPayload, "emittedAt"},
		{"second 60", withAt("2026-07-11T03:00:60Z"), CodeInvalidPayload, "emittedAt"},
		{"no seconds", withAt("2026-07-11T03:00Z"), "", ""},
		{"offset without colon", withAt("2026-07-11T03:00:00+0200"), CodeInvalidPayload, "emittedAt"},
		{"lower-case z", withAt("2026-07-11T03:00:00z"), CodeInvalidPayload, "emittedAt"},
		{"createdAt Feb 30", createdAt("2026-02-30T00:00:00.000Z"), CodeInvalidPayload, `payload.messages[0].createdAt: "2026-02-30T00:00:00.000Z" is not a real UTC instant`},
		{"createdAt hour 24", createdAt("2026-07-11T24:00:00.000Z"), CodeInvalidPayload, "createdAt"},
		{"createdAt two fraction digits", createdAt("2026-07-11T03:00:00.00Z"), CodeInvalidPayload, "createdAt"},
		{"input only spaces", submit(`" \t "`), CodeInvalidPayload, "payload.input"},
		{"input U+00A0", submit(`"\u00a0"`), CodeInvalidPayload, "payload.input"},
		{"input U+FEFF", submit(`"\ufeff"`), CodeInvalidPayload, "payload.input"},
		{"input U+3000", submit(`"　"`), CodeInvalidPayload, "payload.input"},
		{"input U+0085 is not trimmed", submit(`"\u0085"`), "", ""},
		{"input U+200B is not trimmed", submit(`"\u200b"`), "", ""},
		{"input U+180E is not trimmed", submit(`"\u180e"`), "", ""},
		{"toolCallId null", withMessage(`,"toolCallId":null`), CodeInvalidPayload, "payload.messages[0].toolCallId"},
		{"metadata null", withMessage(`,"metadata":null`), CodeInvalidPayload, "metadata"},
		{"metadata array", withMessage(`,"metadata":[]`), CodeInvalidPayload, "metadata"},
		{"parts null", withMessage(`,"parts":null`), CodeInvalidPayload, "parts"},
		{"repeated key: last wins (valid)", withMessage(`,"metadata":null,"metadata":{}`), "", ""},
		{"repeated key: last wins (invalid)", withMessage(`,"metadata":{},"metadata":null`), CodeInvalidPayload, "metadata"},
		{"repeated deep key discarded", withMessage(`,"metadata":` + nested(40, "1") + `,"metadata":{}`), "", ""},
		{"repeated envelope key", strings.Replace(submit(`"x"`), `"version":1`, `"version":2,"version":1`, 1), "", ""},
		{"escaped key names", strings.Replace(submit(`"x"`), `"protocol"`, `"\u0070rotocol"`, 1), "", ""},
		{"two events glued", submit(`"x"`) + submit(`"y"`), CodeInvalidPayload, "invalid JSON at byte"},
		{"byte-order mark", "\ufeff" + submit(`"x"`), CodeInvalidPayload, "invalid JSON at byte 0"},
		{"identifier 128", strings.Replace(submit(`"x"`), `"turnId":"t1"`, `"turnId":"`+ident+`"`, 1), "", ""},
		{"identifier 129", strings.Replace(submit(`"x"`), `"turnId":"t1"`, `"turnId":"`+ident+`a"`, 1), CodeInvalidPayload, "turnId"},
		{"version 2", strings.Replace(submit(`"x"`), `"version":1`, `"version":2`, 1), CodeUnsupportedVersion, "version"},
		{"version 1.0", strings.Replace(submit(`"x"`), `"version":1`, `"version":1.0`, 1), "", ""},
		{"version string", strings.Replace(submit(`"x"`), `"version":1`, `"version":"1"`, 1), CodeInvalidPayload, "version"},
		{"unknown event", strings.Replace(submit(`"x"`), `client.turn.submit`, `client.turn.cancel`, 1), CodeUnknownEvent, "event"},
		{"unknown event wins over payload", `{"protocol":"agentskit.chat.turn","version":1,"event":"x"}`, CodeUnknownEvent, "event"},
		{"deep unknown field with version 2", `{"protocol":"agentskit.chat.turn","version":2,"x":` + nested(100000, "") + `}`, CodeUnsupportedVersion, "version"},
		{"key of 256 UTF-16 units", withMessage(`,"metadata":{"` + strings.Repeat("a", 256) + `":1}`), "", ""},
		{"key of 257 UTF-16 units", withMessage(`,"metadata":{"` + strings.Repeat("a", 257) + `":1}`), CodeInvalidPayload, "key is longer than 256"},
		{"astral key of 258 units", withMessage(`,"metadata":{"` + strings.Repeat("😀", 129) + `":1}`), CodeInvalidPayload, "key is longer"},
		// Raw bytes that are not UTF-8 cannot be stored in the conformance
		// corpus (a JSON file); Node decodes them to U+FFFD, one per
		// maximal invalid subsequence, before JSON.parse sees the keys.
		{"invalid bytes are one key (U+FFFD): last wins", withMessage(`,"metadata":{"` + "\xff" + `":` + nested(40, "1") + `,"` + "\xfe" + `":1}`), "", ""},
		{"invalid byte and escaped U+FFFD are one key", withMessage(`,"metadata":{"` + "\xff" + `":` + nested(40, "1") + `,"\ufffd":1}`), "", ""},
		{"lone surrogate escape is not U+FFFD", withMessage(`,"metadata":{"\ud800":` + nested(40, "1") + `,"\ufffd":1}`), CodeInvalidPayload, "nested deeper"},
		{"truncated sequences count once each: 256 units", withMessage(`,"metadata":{"` + strings.Repeat("\xe2\x82", 256) + `":1}`), "", ""},
		{"truncated sequences count once each: 257 units", withMessage(`,"metadata":{"` + strings.Repeat("\xe2\x82", 257) + `":1}`), CodeInvalidPayload, "key is longer"},
		{"image detail as one-element array", withMessage(`,"parts":[{"type":"image","source":"s","detail":["low"]}]`), "", ""},
		{"image detail other", withMessage(`,"parts":[{"type":"image","source":"s","detail":"max"}]`), CodeInvalidPayload, "detail"},
		{"number overflow in metadata", withMessage(`,"metadata":{"x":1e999}`), CodeInvalidPayload, "overflows to infinity"},
		{"number overflow in unknown field", strings.Replace(submit(`"x"`), `"version":1`, `"version":1,"x":1e999`, 1), "", ""},
	}
	var d Decoder
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var ev Event
			err := d.Decode([]byte(tc.line), &ev)
			if tc.code == "" {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("want %s, got valid", tc.code)
			}
			if err.Code != tc.code || !strings.Contains(err.Detail(), tc.detail) {
				t.Fatalf("want %s with %q, got %s: %s", tc.code, tc.detail, err.Code, err.Detail())
			}
		})
	}
}

func TestDecodeAllProblems(t *testing.T) {
	line := withMessage(`,"toolCallId":1,"metadata":[]`)
	line = strings.Replace(line, `"role":"assistant"`, `"role":"robot"`, 1)
	d := Decoder{AllProblems: true}
	var ev Event
	err := d.Decode([]byte(line), &ev)
	if err == nil {
		t.Fatal("want problems")
	}
	var paths []string
	for _, p := range err.Problems {
		paths = append(paths, p.Path)
	}
	want := "payload.messages[0].role payload.messages[0].toolCallId payload.messages[0].metadata"
	if got := strings.Join(paths, " "); got != want {
		t.Fatalf("problem paths %q, want %q", got, want)
	}
}

func TestDecodeMessages(t *testing.T) {
	line := withMessage(`,"toolCallId":"c1","parts":[{"type":"text","text":"p"}],"toolCalls":[{"id":"t","name":"lookup","args":{"q":1},"status":"complete","result":"ok"}],"metadata":{"k":"v"}`)
	d := Decoder{Messages: true}
	var ev Event
	if err := d.Decode([]byte(line), &ev); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%+v", ev.Snapshot.Messages)
	want := `[{ID:m1 Role:assistant Content:hi Status:complete CreatedAt:2026-07-11T03:00:00.000Z ToolCallID:c1 HasToolCallID:true Parts:[{"type":"text","text":"p"}] ToolCalls:[{ID:t Name:lookup Status:complete Args:{"q":1} Result:ok HasResult:true Error: HasError:false}] HasToolCalls:true Metadata:{"k":"v"}}]`
	if got != want {
		t.Fatalf("messages:\n got %s\nwant %s", got, want)
	}
}

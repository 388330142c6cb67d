package replay

import (
	"strings"
	"testing"
)

// TestRedactedProblems checks that the redacted form of a problem keeps
// what is wrong and where, and loses every value and free-form key of the
// line, while the plain form keeps them.
func TestRedactedProblems(t *testing.T) {
	cases := []struct {
		name, line, detail, redacted string
	}{
		{"string for an object",
			withMessage(`,"metadata":"SECRET-a"`),
			`payload.messages[0].metadata: must be an object when present, not "SECRET-a"`,
			`payload.messages[0].metadata: must be an object when present, not (value hidden)`},
		{"container type is snapctl's word",
			withMessage(`,"metadata":[]`),
			`payload.messages[0].metadata: must be an object when present, not an array`,
			`payload.messages[0].metadata: must be an object when present, not an array`},
		{"metadata key in the path",
			withMessage(`,"metadata":{"SECRET-b":1e999}`),
			`payload.messages[0].metadata."SECRET-b": 1e999 overflows to infinity`,
			`payload.messages[0].metadata.*: (value hidden) overflows to infinity`},
		{"protocol-named key below metadata",
			withMessage(`,"metadata":{"content":{"text":1e999}}`),
			`payload.messages[0].metadata.content.text: 1e999 overflows to infinity`,
			`payload.messages[0].metadata.*.*: (value hidden) overflows to infinity`},
		{"tool argument key in the path",
			withMessage(`,"toolCalls":[{"id":"t","name":"n","status":"complete","args":{"SECRETc":[1e999]}}]`),
			`payload.messages[0].toolCalls[0].args.SECRETc[0]: 1e999 overflows to infinity`,
			`payload.messages[0].toolCalls[0].args.*[0]: (value hidden) overflows to infinity`},
		{"unknown extra key of a part",
			withMessage(`,"parts":[{"type":"text","text":"x","SECRETd":1e999}]`),
			`payload.messages[0].parts[0].SECRETd: 1e999 overflows to infinity`,
			`payload.messages[0].parts[0].*: (value hidden) overflows to infinity`},
		{"submit input",
			eventLine("s", 1, "client.turn.submit", `{"input":" \t "}`),
			`payload.input: " \t " is empty after trimming whitespace`,
			`payload.input: (value hidden) is empty after trimming whitespace`},
		{"tool result of the wrong type",
			withMessage(`,"toolCalls":[{"id":"t","name":"n","status":"complete","args":{},"result":12345}]`),
			`payload.messages[0].toolCalls[0].result: must be a string when present, not 12345`,
			`payload.messages[0].toolCalls[0].result: must be a string when present, not (value hidden)`},
		{"syntax error quotes a character",
			`{"protocol":S}`,
			`invalid JSON at byte 12: unexpected 'S', expected a value`,
			`invalid JSON at byte 12`},
		{"a problem without values is kept",
			withMessage(`,"parts":[{"type":"text"}]`),
			`payload.messages[0].parts[0].text: is missing`,
			`payload.messages[0].parts[0].text: is missing`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var d Decoder
			var ev Event
			err := d.Decode([]byte(tc.line), &ev)
			if err == nil {
				t.Fatal("want a problem")
			}
			if got := err.Detail(); got != tc.detail {
				t.Errorf("Detail = %s, want %s", got, tc.detail)
			}
			if got := err.RedactedDetail(); got != tc.redacted {
				t.Errorf("RedactedDetail = %s, want %s", got, tc.redacted)
			}
			if strings.Contains(err.RedactedDetail(), "SECRET") {
				t.Errorf("RedactedDetail leaks: %s", err.RedactedDetail())
			}
		})
	}
}

func TestRedact(t *testing.T) {
	p := Problem{Message: "line is 9 bytes"}
	if got := p.Redact().String(); got != "(detail hidden)" {
		t.Fatalf("Redact = %q", got)
	}
	p = Problem{Path: "a.b", Message: `"x" is bad`, RedactedPath: "a.*", RedactedMessage: "(value hidden) is bad"}
	if got, want := p.Redact().String(), "a.*: (value hidden) is bad"; got != want {
		t.Fatalf("Redact = %q, want %q", got, want)
	}
	if got := p.Redact().Redact(); got != p.Redact() {
		t.Fatalf("Redact twice = %+v, want %+v", got, p.Redact())
	}
}

func TestRedactedWrapperProblems(t *testing.T) {
	cases := []struct{ name, line, redacted string }{
		{"broken wrapper", `{"frame":SECRET}`, "wrapper: invalid JSON at byte 9"},
		{"no value at the path", `{"SECRET":1}`, `wrapper has no value at --event-path "frame"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := Decoder{EventPath: "frame"}
			var ev Event
			err := d.Decode([]byte(tc.line), &ev)
			if err == nil {
				t.Fatal("want a problem")
			}
			if got := err.RedactedDetail(); got != tc.redacted {
				t.Fatalf("RedactedDetail = %q, want %q (detail %q)", got, tc.redacted, err.Detail())
			}
		})
	}
}

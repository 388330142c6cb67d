package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/agentskit/snapctl/cmd/internal/render/redacttest"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/replay"
)

func TestRedactEvent(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"envelope stays", `{"protocol":"agentskit.chat.turn","version":1,"eventId":"e1","sequence":3}`,
			`{"protocol":"agentskit.chat.turn","version":1,"eventId":"e1","sequence":3}`},
		{"an id that is not a safe identifier is hidden", `{"eventId":"my secret id"}`,
			`{"eventId":"(hidden: 14 bytes)"}`},
		{"unknown keys are hidden, numbered", `{"x-secret":1,"y-secret":{"a":2}}`,
			`{"(hidden key 1)":"(hidden: 1 byte)","(hidden key 2)":"(hidden: 7 bytes)"}`},
		{"submit input", `{"payload":{"input":"hello"}}`, `{"payload":{"input":"(hidden: 7 bytes)"}}`},
		{"message fields", `{"payload":{"messages":[{"id":"m1","role":"user","content":"hi","metadata":{"k":"v"},` +
			`"parts":[{"type":"text","text":"hi"}],"toolCalls":[{"id":"t","name":"n","args":{"k":1},"result":"r"}]}]}}`,
			`{"payload":{"messages":[{"id":"m1","role":"user","content":"(hidden: 4 bytes)","metadata":"(hidden: 9 bytes)",` +
				`"parts":[{"type":"text","text":"(hidden: 4 bytes)"}],"toolCalls":[{"id":"t","name":"n","args":"(hidden: 7 bytes)","result":"(hidden: 3 bytes)"}]}]}}`},
		{"a container where a value belongs", `{"eventId":{"secret":1},"payload":"secret"}`,
			`{"eventId":"(hidden: 12 bytes)","payload":"(hidden: 8 bytes)"}`},
		{"not an object", `"secret"`, `"(hidden: 8 bytes)"`},
		{"enums and codes only when valid", `{"event":"server.turn.snapshot","payload":{"status":"secret","code":"X_1","messages":[{"role":"user","status":"hush","createdAt":"2026-07-11T03:00:00.000Z"},{"createdAt":"soon"}]}}`,
			`{"event":"server.turn.snapshot","payload":{"status":"(hidden: 8 bytes)","code":"X_1","messages":[{"role":"user","status":"(hidden: 6 bytes)","createdAt":"2026-07-11T03:00:00.000Z"},{"createdAt":"(hidden: 6 bytes)"}]}}`},
		{"numbers in free text are hidden", `{"payload":{"messages":[{"content":4111}]}}`,
			`{"payload":{"messages":[{"content":"(hidden: 4 bytes)"}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(RedactEvent([]byte(tt.in)))
			if got != tt.want {
				t.Fatalf("redactEvent(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
			if !json.Valid([]byte(got)) {
				t.Fatalf("not JSON: %s", got)
			}
		})
	}
}

// A redacted close-up of a huge array shows the first members and counts
// the rest, so its size does not follow the line's.
func TestRedactEventCapsMembers(t *testing.T) {
	in := `{"payload":{"messages":[` + strings.Repeat(`{"id":"m"},`, 1500) + `{"id":"m"}],"x":{` +
		strings.Repeat(`"k":1,`, 1200) + `"k":2}}}`
	got := string(RedactEvent([]byte(in)))
	if !json.Valid([]byte(got)) {
		t.Fatalf("not JSON: %.200s", got)
	}
	if n := strings.Count(got, `{"id":"m"}`); n != redactShown {
		t.Errorf("%d messages shown, want %d", n, redactShown)
	}
	if !strings.Contains(got, `"(501 more members hidden)"`) {
		t.Errorf("no count of the hidden messages in %.200s…", got[len(got)-200:])
	}
}

// A protocol container past redactWhole is hidden whole, the envelope
// around it still shown.
func TestRedactEventHidesHugePayload(t *testing.T) {
	in := `{"eventId":"e1","payload":{"status":"complete","messages":[` + strings.Repeat(`{"id":"m"},`, redactWhole/10) + `{"id":"m"}]}}`
	got := string(RedactEvent([]byte(in)))
	if !strings.HasPrefix(got, `{"eventId":"e1","payload":"(hidden: `) || len(got) > 200 {
		t.Fatalf("got %.200s", got)
	}
}

// TestNeutralizeKeepsFindings: every sample capture, each line
// neutralized, gives the same verdict on every line and the same findings (name, session, severity and
// lines) as the capture itself, and the canary capture neutralized holds
// none of its markers.
func TestNeutralizeKeepsFindings(t *testing.T) {
	findings := func(data []byte) []string {
		rd, err := replay.Open([]string{replay.StdinName}, bytes.NewReader(data), replay.DefaultMaxLine)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		rep, err := inspect.Run(rd, inspect.Options{MaxLine: replay.DefaultMaxLine, Each: func(res *replay.Result) {
			out = append(out, fmt.Sprintf("line %d %s", res.Line, res.Reason))
		}})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range rep.Findings {
			out = append(out, fmt.Sprintf("%s %s %s %v", f.ID, f.SessionID, f.Severity, f.Positions))
		}
		return out
	}
	files, _ := filepath.Glob("../../../testdata/*.jsonl")
	more, _ := filepath.Glob("../../../testdata/*/*.jsonl")
	compared := 0
	for _, file := range append(files, more...) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.HasPrefix(data, []byte(`{"snapctl":`)) {
			continue // a record capture's context records are framing; reduce refuses it
		}
		var neutral []byte
		for l := range bytes.Lines(data) {
			ended := bytes.HasSuffix(l, []byte("\n"))
			if l = bytes.TrimRight(l, "\n"); len(bytes.TrimSpace(l)) > 0 {
				neutral = append(neutral, Neutralize(l)...)
			}
			if ended {
				// A last line cut short (capture-cut) stays so.
				neutral = append(neutral, '\n')
			}
		}
		want, got := findings(data), findings(neutral)
		if !slices.Equal(got, want) {
			t.Errorf("%s neutralized:\n got %q\nwant %q", file, got, want)
		}
		compared += len(want)
	}
	if compared == 0 {
		t.Fatal("no finding compared")
	}
	const tag = "SeCrEt"
	var out []byte
	for l := range strings.Lines(redacttest.Capture(tag)) {
		out = append(out, Neutralize([]byte(strings.TrimRight(l, "\n")))...)
	}
	if i := bytes.Index(out, []byte(tag)); i >= 0 {
		t.Errorf("neutralized capture holds %q", out[i:min(len(out), i+20)])
	}
}

// TestRewriterIDs: an id and every field that names it get one new name,
// across lines; a value of another field that looks like an id stays.
func TestRewriterIDs(t *testing.T) {
	r := &Rewriter{IDs: true}
	a := string(r.Line([]byte(`{"eventId":"x1","sessionId":"sess","turnId":"tA","payload":{"messages":[{"id":"mA","toolCalls":[{"id":"cA"}]},{"id":"mB","toolCallId":"cA"}],"metadata":{"note":"tA"}}}`)))
	b := string(r.Line([]byte(`{"eventId":"x2","sessionId":"sess","turnId":"tB","payload":{"lineage":{"operation":"retry","parentTurnId":"tA","sourceMessageId":"mA"}}}`)))
	want := []string{
		`{"eventId":"e1","sessionId":"s1","turnId":"t1","payload":{"messages":[{"id":"m1","toolCalls":[{"id":"c1"}]},{"id":"m2","toolCallId":"c1"}],"metadata":{"note":"tA"}}}`,
		`{"eventId":"e2","sessionId":"s1","turnId":"t2","payload":{"lineage":{"operation":"retry","parentTurnId":"t1","sourceMessageId":"m1"}}}`,
	}
	if a != want[0] || b != want[1] {
		t.Errorf("got\n%s\n%s\nwant\n%s\n%s", a, b, want[0], want[1])
	}
}

// FuzzNeutralText: neutral text never panics, keeps no digit but 0 and no
// letter but x and those of true, false and null, and is JSON of the same
// shape as far as the text is (a JSON value stays valid JSON).
func FuzzNeutralText(f *testing.F) {
	f.Add(`{"a":"b\u00e9\n","n":-12.5e3,"t":true,"f":fals`)
	f.Add(`plain text 123 with "quotes" and \ backslash`)
	f.Fuzz(func(t *testing.T, s string) {
		out := string(neutralText([]byte(s)))
		// Escapes stay escapes: \u0078, \n and the like say nothing.
		shown := regexp.MustCompile(`\\(u0078|.)`).ReplaceAllString(out, "")
		for _, r := range shown {
			if (r >= '1' && r <= '9') || (unicode.IsLetter(r) && !strings.ContainsRune("xtruefalsn", r)) {
				t.Fatalf("neutralText(%q) = %q keeps %q", s, out, r)
			}
		}
		if json.Valid([]byte(s)) && !json.Valid([]byte(out)) {
			t.Fatalf("neutralText(%q) = %q: no longer JSON", s, out)
		}
	})
}

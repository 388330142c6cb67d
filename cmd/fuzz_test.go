package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// humanCommands is every command and format that prints for people.
var humanCommands = [][]string{
	{"replay"},
	{"lineage"}, {"lineage", "--ascii"}, {"lineage", "-o", "mermaid"}, {"lineage", "-o", "dot"},
	{"diff"}, {"diff", "--stat"},
	{"inspect"}, {"inspect", "--line", "2"}, {"inspect", "--line", "5"},
}

// hostileCapture puts text wherever a capture can carry free text: message
// ids and content, metadata keys and values, tool results, submit input,
// identifiers (where it makes the line malformed), and a raw line.
func hostileCapture(text string, raw []byte) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	msg := func(id, content string) string {
		return fmt.Sprintf(`{"id":%s,"role":"assistant","content":%s,"status":"complete","createdAt":"2026-07-11T03:00:00.000Z",`+
			`"toolCalls":[{"id":%s,"name":"t","args":{%s:%s},"status":"complete","result":%s}],"metadata":{%s:%s}}`,
			q(id), q(content), q(id), q(text), q(text), q(text), q(text), q(text))
	}
	snap := func(seq int, turn, lineage, messages string) string {
		return fmt.Sprintf(`{"protocol":"agentskit.chat.turn","version":1,"eventId":"e%d","sessionId":"s","turnId":%s,"sequence":%d,`+
			`"emittedAt":"2026-07-11T03:00:0%dZ","event":"server.turn.snapshot","payload":{"status":"complete",%s`+
			`"usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"messages":[%s]}}`, seq, q(turn), seq, seq, lineage, messages)
	}
	lines := []string{
		snap(1, "t1", `"lineage":{"operation":"submit"},`, msg("m1"+text, text)),
		snap(2, "t2", `"lineage":{"operation":"regenerate","parentTurnId":"t1","sourceMessageId":"m1"},`, msg("m2", text+" more")+","+msg(text, "x")),
		snap(3, text, "", msg("m3", text)),
		fmt.Sprintf(`{"protocol":"agentskit.chat.turn","version":1,"eventId":"e4","sessionId":"s","turnId":"t3","sequence":4,"emittedAt":"2026-07-11T03:00:04Z","event":"client.turn.submit","payload":{"input":%s}}`, q(text)),
		string(raw),
		snap(5, "t3", "", msg("m4", text+text)),
	}
	return strings.Join(lines, "\n") + "\n"
}

// checkTerminalSafe fails when out holds a byte or character that acts on
// a terminal: any control character but newline, DEL, C1 controls, bidi
// controls or line separators.
func checkTerminalSafe(t *testing.T, what string, out string) {
	t.Helper()
	for i, r := range out {
		bad := (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r <= 0x9f) ||
			r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) ||
			(r >= 0x2066 && r <= 0x2069) || r == 0x2028 || r == 0x2029
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(out[i:]); n == 1 {
				bad = true
			}
		}
		if bad {
			t.Fatalf("%s printed %U at byte %d:\n%s", what, r, i, out)
		}
	}
}

// FuzzHumanOutput runs every human format over captures full of hostile
// text: none may panic or print a raw control character.
func FuzzHumanOutput(f *testing.F) {
	f.Add("\x1b]0;owned\a\x1b[2J", []byte("\x1b[31m{\"broken\":"))
	f.Add("abc\u202edcba\u2028\u0085\x00", []byte(`{"protocol":"agentskit.chat.turn","version":1,"event":"\u001b[31m"}`))
	f.Add("plain", []byte("\xff\xfe garbage"))
	f.Add(strings.Repeat("long ", 50), []byte(""))
	// The sample captures, a line at a time, as the raw line.
	samples, _ := filepath.Glob("../testdata/*.jsonl")
	for _, name := range samples {
		data, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			f.Add("sample", []byte(line))
		}
	}
	f.Fuzz(func(t *testing.T, text string, raw []byte) {
		capture := hostileCapture(text, raw)
		for _, args := range humanCommands {
			name := strings.Join(args, " ")
			ios, out, errOut := TestStreams(capture)
			done := make(chan struct{})
			go func() {
				defer close(done)
				run(ios, append(append([]string{}, args...), "-"))
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatalf("%s did not finish", name)
			}
			checkTerminalSafe(t, name+" (stdout)", out.String())
			checkTerminalSafe(t, name+" (stderr)", errOut.String())
		}
	})
}

// TestHumanOutputIsTerminalSafe runs the fuzz seeds and a few more cases
// in every `go test`, so the property is checked without -fuzz too.
func TestHumanOutputIsTerminalSafe(t *testing.T) {
	for _, text := range []string{"\x1b[31mred", "\u202eevil", "\x07bell\x08", "a\u2029b", "\x9b2J"} {
		capture := hostileCapture(text, []byte(text))
		for _, args := range humanCommands {
			ios, out, errOut := TestStreams(capture)
			run(ios, append(append([]string{}, args...), "-"))
			checkTerminalSafe(t, strings.Join(args, " "), out.String()+errOut.String())
		}
	}
}

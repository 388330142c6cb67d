package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
)

// secretCapture puts a distinct marker in every place --redact must hide:
// message content and parts text, tool call argument keys and values,
// results and errors, metadata keys and values, a snapshot's error and a
// diagnostic's message, submit input, and a malformed line's quoted
// value and object key, a tool call's name (shown only when it is a safe
// identifier, which the marker with its space is not). Ids are not
// secret, and carry no marker.
func secretCapture(tag string) string {
	msg := func(n int) string {
		return fmt.Sprintf(`{"id":"m1","role":"assistant","content":"the %[2]scontent%[1]d is here","status":"complete",`+
			`"createdAt":"2026-07-11T03:00:00.000Z","parts":[{"type":"text","text":"%[2]sparts%[1]d"}],`+
			`"toolCalls":[{"id":"tc1","name":"%[2]stoolname%[1]d call","args":{"%[2]sargkey%[1]d":"%[2]sargvalue%[1]d"},"status":"complete",`+
			`"result":"%[2]sresult%[1]d","error":"%[2]stoolerror%[1]d"}],"metadata":{"%[2]smetakey%[1]d":{"k":"%[2]smetavalue%[1]d"}}}`, n, tag)
	}
	env := func(id string, seq int, event, payload string) string {
		return fmt.Sprintf(`{"protocol":"agentskit.chat.turn","version":1,"eventId":"%s","sessionId":"s1","turnId":"t1","sequence":%d,`+
			`"emittedAt":"2026-07-11T03:00:0%dZ","event":"%s","payload":%s}`, id, seq, seq, event, payload)
	}
	snap := func(id string, seq, n int, extra string) string {
		return env(id, seq, "server.turn.snapshot", fmt.Sprintf(`{"status":"complete","lineage":{"operation":"submit"},`+
			`"usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"messages":[%s]%s}`, msg(n), extra))
	}
	lines := []string{
		env("e0", 0, "client.turn.submit", fmt.Sprintf(`{"input":"%sinput"}`, tag)),
		snap("e1", 1, 1, ""),
		snap("e2", 2, 2, fmt.Sprintf(`,"error":{"version":1,"code":"TOOL_FAILED","message":"%serrormessage","retryable":false}`, tag)),
		env("e3", 3, "server.turn.diagnostic", fmt.Sprintf(`{"version":1,"code":"ADAPTER_FAILED","message":"%sdiagnostic","retryable":true}`, tag)),
		strings.Replace(snap("e4", 4, 3, ""), `"metadata":{`, fmt.Sprintf(`"metadata":"%sbadvalue","x":{`, tag), 1),
		strings.Replace(snap("e5", 5, 3, ""), `"metadata":{`, fmt.Sprintf(`"metadata":{"%sbadkey":1e999},"x":{`, tag), 1),
		snap("e6", 6, 3, "")[:40] + tag + "cutline", // cut off: not JSON, no event id
		snap("e7", 7, 3, ""),
		// Protocol fields holding free text that happens to be a safe
		// identifier: a mime type, and an enum that is not one.
		strings.Replace(snap("e8", 8, 3, ""), `{"type":"text","text":"`,
			fmt.Sprintf(`{"type":"file","source":"s","mimeType":"%[1]smime"},{"type":"text","text":"`, tag), 1),
		strings.Replace(snap("e9", 9, 3, ""), `"role":"assistant"`, fmt.Sprintf(`"role":"%srole"`, tag), 1),
	}
	return strings.Join(lines, "\n") + "\n"
}

// everyOutput is every command in every format, with the close-ups of
// every line and of every event id but the cut line's.
func everyOutput(lines int) [][]string {
	out := [][]string{
		{"replay"}, {"replay", "-o", "json"}, {"replay", "-o", "jsonl"}, {"replay", "--only", "inert"},
		{"inspect"}, {"inspect", "-o", "json"},
		{"lineage"}, {"lineage", "--ascii"}, {"lineage", "-o", "mermaid"}, {"lineage", "-o", "dot"}, {"lineage", "-o", "json"},
		{"diff"}, {"diff", "--stat"}, {"diff", "-o", "json"}, {"diff", "-o", "jsonl"}, {"diff", "--from", "1", "--to", "7"},
	}
	for n := 1; n <= lines; n++ {
		for _, o := range []string{"table", "json"} {
			out = append(out, []string{"inspect", "-o", o, "--line", fmt.Sprint(n)})
			if n != 7 {
				out = append(out, []string{"inspect", "-o", o, "--event-id", fmt.Sprintf("e%d", n-1)})
			}
		}
	}
	return out
}

// TestRedactHidesEverySecret runs every command and format over a capture
// with a marker in every secret place: with --redact no output names one;
// without it, every marker shows somewhere, so the search can fail.
func TestRedactHidesEverySecret(t *testing.T) {
	const tag = "SeCrEt"
	capture := secretCapture(tag)
	lines := strings.Count(capture, "\n")
	c := newCanary(t, tag)
	for _, args := range everyOutput(lines) {
		name := strings.Join(args, " ")
		for _, redact := range []bool{false, true} {
			a := append([]string{}, args...)
			if redact {
				a = append(a, "--redact")
			}
			ios, out, errOut := iostreams.Test(capture)
			code := run(ios, append(a, "-"))
			if code != exitOK {
				t.Fatalf("%s: exit %d: %s", strings.Join(a, " "), code, errOut.String())
			}
			c.check(name, out.String()+errOut.String(), redact)
		}
	}
	c.done()
}

// secretMarkers follow the tag in every secret place of secretCapture.
var secretMarkers = []string{"content", "parts", "argkey", "argvalue", "result", "toolerror", "metakey", "metavalue",
	"errormessage", "diagnostic", "input", "badvalue", "badkey", "cutline", "mime", "role", "toolname"}

// canary searches outputs of secretCapture(tag): with --redact none may
// hold the tag; without, every marker must show in one of them, so that
// the search can fail.
type canary struct {
	t    *testing.T
	tag  string
	seen map[string]bool
}

func newCanary(t *testing.T, tag string) *canary {
	return &canary{t: t, tag: tag, seen: map[string]bool{}}
}

func (c *canary) check(name, out string, redact bool) {
	c.t.Helper()
	if redact {
		if i := strings.Index(out, c.tag); i >= 0 {
			c.t.Errorf("%s --redact leaks %q", name, out[i:min(len(out), i+len(c.tag)+14)])
		}
		return
	}
	for _, m := range secretMarkers {
		if strings.Contains(out, c.tag+m) {
			c.seen[m] = true
		}
	}
}

func (c *canary) done() {
	c.t.Helper()
	for _, m := range secretMarkers {
		if !c.seen[m] {
			c.t.Errorf("marker %s%s shows nowhere without --redact: the test cannot see it leak", c.tag, m)
		}
	}
}

// TestExploreRedactHidesEverySecret is TestRedactHidesEverySecret for the
// explorer: every tab of every line, with the line toggled off and back
// (what-if), the list, the timeline and the help screen.
func TestExploreRedactHidesEverySecret(t *testing.T) {
	const tag = "SeCrEt"
	file := filepath.Join(t.TempDir(), "secret.jsonl")
	if err := os.WriteFile(file, []byte(secretCapture(tag)), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newCanary(t, tag)
	for _, redact := range []bool{false, true} {
		m := newTestExplorer(t, 160, 50, "", file)
		m.redact = redact
		look := func(what string) {
			c.check("explore, "+what+",", m.render()+"\n"+strings.Join(m.detailLines(m.selected(), m.detailWidth()), "\n"), redact)
		}
		for i := range m.x.len() {
			m.selectRow(i)
			for tab := range tabCount {
				m.tab = tab
				m.refresh()
				look(fmt.Sprintf("line %d tab %s", m.x.line(i), tabNames[tab]))
				press(m, "x")
				look(fmt.Sprintf("line %d tab %s toggled off", m.x.line(i), tabNames[tab]))
				press(m, "x")
			}
		}
		press(m, "?")
		look("help")
	}
	c.done()
}

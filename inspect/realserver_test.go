package inspect

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/replay"
)

// realCapture is a capture of the real AgentsKit Chat server;
// testdata/real-server/README.md says what happened in each.
func realCapture(name string) string { return filepath.Join("..", "testdata", "real-server", name) }

// realLines reads the lines of a real capture, without their newlines.
func realLines(t *testing.T, name string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(realCapture(name))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

// findingsOf returns the findings with the given id.
func findingsOf(rep Report, id string) []Finding {
	var out []Finding
	for _, f := range rep.Findings {
		if f.ID == id {
			out = append(out, f)
		}
	}
	return out
}

// TestRealServerRefusals: proxied-mix.jsonl holds the server's JSON error
// bodies as lines of their own. They stay malformed, as the reference
// decides, and each code is named, with its message and lines.
func TestRealServerRefusals(t *testing.T) {
	rep := run(t, Options{}, realCapture("proxied-mix.jsonl"))
	if got := rep.Overview.Counts.Reasons[replay.ReasonMalformed]; got != 5 {
		t.Errorf("malformed: %d, want the 5 error bodies", got)
	}
	want := map[string]string{
		"SESSION_BUSY":                   `2 requests with SESSION_BUSY: "Another turn is active for this session." (retryable;@536,657`,
		"REQUEST_INVALID_JSON":           `1 request with REQUEST_INVALID_JSON: "Request body is not valid JSON." (not retryable;@654`,
		"REQUEST_INVALID_EVENT":          `1 request with REQUEST_INVALID_EVENT: "Request body must be a valid turn submission." (not retryable;@655`,
		"REQUEST_UNSUPPORTED_MEDIA_TYPE": `1 request with REQUEST_UNSUPPORTED_MEDIA_TYPE: "Content-Type must be application/json." (not retryable;@656`,
	}
	fs := findingsOf(rep, RequestRefused)
	if len(fs) != len(want) {
		t.Fatalf("%d request-refused findings, want %d: %+v", len(fs), len(want), fs)
	}
	for _, f := range fs {
		code := strings.Fields(strings.SplitN(f.Message, " with ", 2)[1])[0]
		code = strings.TrimSuffix(code, ":")
		text, lines, _ := strings.Cut(want[code], "@")
		if !strings.Contains(f.Message, text) || strings.Join(lineNumbers(f), ",") != lines || f.SessionID != "" {
			t.Errorf("%s: %q at %v; want %q at %s", code, f.Message, lineNumbers(f), text, lines)
		}
		if rep.Overview.Refused[code] != len(strings.Split(lines, ",")) {
			t.Errorf("overview counts %d of %s", rep.Overview.Refused[code], code)
		}
	}
	if fs := findingsOf(rep, GluedLines); len(fs) != 0 {
		t.Errorf("glued-lines on a capture of whole lines: %+v", fs)
	}
}

// TestGluedErrorBody: the SESSION_BUSY body of proxied-mix.jsonl, appended
// without its (absent) newline before real-busy.jsonl's turn-2, as `curl
// >> capture.jsonl` does: the line holds two objects, and the snapshot
// glued to the body is named, since a client never sees it.
func TestGluedErrorBody(t *testing.T) {
	mix, busy := realLines(t, "proxied-mix.jsonl"), realLines(t, "real-busy.jsonl")
	var b bytes.Buffer
	for i, l := range busy {
		if i == 43 { // line 44, turn-2's first snapshot
			b.Write(mix[535])
		}
		b.Write(l)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "glued.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := run(t, Options{}, path)
	if got := rep.Overview.Counts.Reasons[replay.ReasonMalformed]; got != 1 {
		t.Errorf("malformed: %d, want the glued line", got)
	}
	fs := findingsOf(rep, GluedLines)
	if len(fs) != 1 || strings.Join(lineNumbers(fs[0]), ",") != "44" {
		t.Fatalf("glued-lines: %+v, want one at line 44", fs)
	}
	for _, want := range []string{"a server error body (SESSION_BUSY) and", `event lost: snapshot "6cfedf84-a18c-4185-b10b-9c43e7188e80"`, "of session s-busy, turn turn-2, sequence 47"} {
		if !strings.Contains(fs[0].Message, want) {
			t.Errorf("glued-lines message %q lacks %q", fs[0].Message, want)
		}
	}
	if fs := findingsOf(rep, RequestRefused); len(fs) != 1 || rep.Overview.Refused["SESSION_BUSY"] != 1 {
		t.Errorf("request-refused: %+v, counts %v", fs, rep.Overview.Refused)
	}
}

func lineNumbers(f Finding) []string {
	var out []string
	for _, p := range f.Positions {
		out = append(out, strconv.Itoa(p.Line))
	}
	return out
}

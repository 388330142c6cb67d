package cmd

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/render"
	"github.com/agentskit/snapctl/replay"
)

var lineageFormats = []string{"tree", "mermaid", "dot", "json"}

// runLineage runs lineageRun on in-memory streams.
func runLineage(t *testing.T, stdin string, opts lineageOptions) (string, error) {
	t.Helper()
	ios, out, _ := iostreams.Test(stdin)
	opts.IO = ios
	if opts.MaxLine == 0 {
		opts.MaxLine = replay.DefaultMaxLine
	}
	if opts.Output == "" {
		opts.Output = "tree"
	}
	err := lineageRun(&opts)
	return out.String(), err
}

func lineageSamples(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../testdata/lineage-*.jsonl")
	if err != nil || len(files) < 4 {
		t.Fatalf("lineage samples: %v, %v", files, err)
	}
	return files
}

// captureTexts lists the message contents and submit inputs of a capture,
// each cut to a distinctive plain head that any format would keep intact.
func captureTexts(t *testing.T, file string) []string {
	t.Helper()
	rd, err := replay.Open([]string{file}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	seen := map[string]bool{}
	var texts []string
	add := func(s string) {
		head := plainHead(s)
		if utf8.RuneCountInString(head) >= 6 && !seen[head] {
			seen[head] = true
			texts = append(texts, head)
		}
	}
	_, err = replay.Run(rd, replay.Options{Messages: true}, func(res *replay.Result) error {
		if ev := res.Event; ev != nil {
			add(ev.Input)
			for _, m := range ev.Snapshot.Messages {
				add(m.Content)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return texts
}

// plainHead is the start of s up to 16 runes, stopping before anything
// an output format could escape.
func plainHead(s string) string {
	n := 0
	for i, r := range s {
		if n == 16 || r < 0x20 || strings.ContainsRune("\"\\<>&#;`\u2028\u2029\x7f", r) {
			return s[:i]
		}
		n++
	}
	return s
}

// TestLineageRedact checks that --redact leaves out every message text
// and submit input of every sample, in every format, while the same run
// without --redact does show them.
func TestLineageRedact(t *testing.T) {
	for _, file := range lineageSamples(t) {
		texts := captureTexts(t, file)
		if len(texts) == 0 {
			t.Fatalf("%s: no texts to look for", file)
		}
		for _, format := range lineageFormats {
			t.Run(filepath.Base(file)+"/"+format, func(t *testing.T) {
				out, err := runLineage(t, "", lineageOptions{captureFlags: captureFlags{Files: []string{file}}, Output: format, Redact: true})
				if err != nil {
					t.Fatal(err)
				}
				for _, text := range texts {
					if strings.Contains(out, text) {
						t.Errorf("redacted output contains %q", text)
					}
				}
				plain, err := runLineage(t, "", lineageOptions{captureFlags: captureFlags{Files: []string{file}}, Output: format})
				if err != nil {
					t.Fatal(err)
				}
				shown := 0
				for _, text := range texts {
					if strings.Contains(plain, text) {
						shown++
					}
				}
				if shown == 0 {
					t.Errorf("without --redact no text shows either: the check proves nothing")
				}
			})
		}
	}
}

// chainCapture is one session of n turns, each a regeneration of the one
// before.
func chainCapture(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		lin := `{"operation":"submit"}`
		if i > 0 {
			lin = fmt.Sprintf(`{"operation":"regenerate","parentTurnId":"t%d","sourceMessageId":"m%d"}`, i-1, i-1)
		}
		fmt.Fprintf(&b, `{"protocol":"agentskit.chat.turn","version":1,"eventId":"e%d","sessionId":"s","turnId":"t%d","sequence":%d,`+
			`"emittedAt":"2026-07-11T03:00:00Z","event":"server.turn.snapshot","payload":{"status":"complete",`+
			`"usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"lineage":%s,"messages":[`+
			`{"id":"m%d","role":"assistant","content":"answer %d","status":"complete","createdAt":"2026-07-11T03:00:00.000Z"}]}}`+"\n",
			i, i, i+1, lin, i, i)
	}
	return b.String()
}

// TestLineageDeepChain renders 10,000 regenerations in every format: no
// deep recursion, no problem, and the tree's indentation stays bounded.
func TestLineageDeepChain(t *testing.T) {
	const n = 10000
	capture := chainCapture(n)
	for _, format := range lineageFormats {
		t.Run(format, func(t *testing.T) {
			out, err := runLineage(t, capture, lineageOptions{captureFlags: captureFlags{Files: []string{"-"}}, Output: format})
			if err != nil {
				t.Fatal(err)
			}
			for _, kind := range []string{"orphan", "source-missing", "lineage-conflict", "cycle"} {
				if strings.Contains(out, kind) {
					t.Errorf("a clean chain reported %s", kind)
				}
			}
			for _, want := range []string{"t0", "t4999", "t9999"} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks turn %s", want)
				}
			}
			if format != "tree" {
				return
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if got := len(lines); got != 1+2*n {
				t.Errorf("tree has %d lines, want a header and two lines per turn (%d)", got, 1+2*n)
			}
			last := lines[len(lines)-2]
			if !strings.Contains(last, "t9999") || !strings.Contains(last, fmt.Sprintf("(depth %d)", n)) {
				t.Errorf("deepest turn line = %q", last)
			}
			if w := len(last); w > 3*render.MaxTreeIndent*3+200 {
				t.Errorf("deepest line is %d bytes: indentation is not bounded", w)
			}
		})
	}
}

func TestNewCmdLineage(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		wantErr string
		check   func(*lineageOptions) bool
	}{
		{"defaults", "c.jsonl", "", func(o *lineageOptions) bool {
			return o.Output == "tree" && !o.ASCII && !o.Redact && o.Turn == "" && o.MaxLine == replay.DefaultMaxLine
		}},
		{"no file reads stdin", "", "", func(o *lineageOptions) bool { return len(o.Files) == 1 && o.Files[0] == "-" }},
		{"every flag", "-o mermaid --ascii --redact --turn t-1 --session s-1 --max-line 10 a b", "", func(o *lineageOptions) bool {
			return o.Output == "mermaid" && o.ASCII && o.Redact && o.Turn == "t-1" && o.Session == "s-1" && o.MaxLine == 10 && len(o.Files) == 2
		}},
		{"bad format", "-o png c", `-o must be tree, wide, mermaid, dot, svg, json or jsonl, not "png"`, nil},
		{"bad turn", "--turn a/b c", `--turn "a/b" is not a safe identifier`, nil},
		{"bad session", "--session -x c", `--session "-x" is not a safe identifier`, nil},
		{"bad max-line", "--max-line 0 c", "--max-line must be a positive number of bytes", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _ := iostreams.Test("")
			var got *lineageOptions
			c := newCmdLineage(ios, func(o *lineageOptions) error { got = o; return nil })
			c.SetArgs(strings.Fields(tt.args))
			c.SetOut(&bytes.Buffer{})
			c.SetErr(&bytes.Buffer{})
			err := c.Execute()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				if exitStatus(err) != exitUsage {
					t.Errorf("exit status %d, want %d", exitStatus(err), exitUsage)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(got) {
				t.Errorf("options = %+v", *got)
			}
		})
	}
}

// TestLineageNoUsage: the real server reports usage only on a turn's
// final snapshot, so a turn that timed out has none; the tree, the
// report's turn table and its picture say "no usage", not "0 tokens",
// and a complete turn keeps its count.
func TestLineageNoUsage(t *testing.T) {
	const capture = "../testdata/real-server/real-timeout.jsonl"
	ios, out, errOut := iostreams.Test("")
	if code := run(ios, []string{"lineage", capture}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"timed-out SERVER_TIMEOUT (completed later)  seq 2-22", "  no usage\n", "  37 tokens\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the tree lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out.String(), "0 tokens") {
		t.Errorf("the tree says 0 tokens:\n%s", out)
	}
	page := runReport(t, []string{capture}, nil)
	if !strings.Contains(page, "no usage") || strings.Contains(page, ">0 tokens<") || strings.Contains(page, "· 0 tokens") {
		t.Error("the report does not say no usage for the timed-out turn")
	}
}

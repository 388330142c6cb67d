// Package samples lists the captures in the module's testdata directory,
// for the tests that run something on every one of them.
package samples

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// Dir is the module's testdata directory.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata")
}

// Read returns the bytes of the capture name in testdata, failing t when
// it cannot be read.
func Read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Dir(), name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// All returns every capture under testdata, as absolute paths: the
// samples, the finding and explorer captures, the conformance cases, the
// other formats and the real server's (.jsonl, .har, .sse, .log, and
// compressed), but not the testscript scripts, the fuzz corpus, expected
// outputs (.expected.jsonl, .golden) or the READMEs. It fails t when there
// are fewer than 40, which would mean the directory moved.
func All(t testing.TB) []string {
	t.Helper()
	var captures []string
	err := filepath.WalkDir(Dir(), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "script" || d.Name() == "fuzz") {
			return filepath.SkipDir
		}
		name := strings.TrimSuffix(strings.TrimSuffix(d.Name(), ".gz"), ".zst")
		if !d.IsDir() && !strings.HasSuffix(name, ".expected.jsonl") &&
			slices.ContainsFunc([]string{".jsonl", ".har", ".sse", ".log"}, func(ext string) bool { return strings.HasSuffix(name, ext) }) {
			abs, err := filepath.Abs(path)
			if err != nil {
				return err
			}
			captures = append(captures, abs)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(captures) < 40 {
		t.Fatalf("only %d captures under %s", len(captures), Dir())
	}
	return captures
}

// Long writes a capture of 3000 lines, many batches, into a directory of
// t's and returns its path: three sessions whose turns end cut off, are
// completed later in another turn, are regenerated, and whose messages
// grow, change in every field (tool calls, parts, metadata among them),
// move, and go, with stale snapshots among them; so that whatever a
// command reads of a message, some line has it and changes it.
func Long(t testing.TB) string {
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		status := "streaming"
		if i%3 == 0 {
			status = "complete"
		}
		seq := i
		if i%17 == 0 {
			seq = i - 5 // stale
		}
		var msgs []string
		for k := 0; k < 1+i%5; k++ {
			m := fmt.Sprintf(`{"id":"m%d-%d","role":"assistant","content":%q,"status":%q,"createdAt":"2026-07-11T03:00:%02d.000Z"`,
				i/9, k, strings.Repeat("reply text ", 1+i%23), status, k+i%3)
			switch k {
			case 1:
				m += fmt.Sprintf(`,"toolCallId":"call-%d","metadata":{"k":%d}`, i%4, i%6)
			case 2:
				m += fmt.Sprintf(`,"parts":[{"type":"text","text":"part %d"}],"toolCalls":[{"id":"c%d","name":"search","status":"complete","args":{"q":"%d"},"result":"found %d"}]`, i%5, k, i%7, i%2)
			}
			msgs = append(msgs, m+"}")
		}
		if i%11 == 0 && len(msgs) > 2 {
			msgs[0], msgs[2] = msgs[2], msgs[0]
		}
		lineage := ""
		if i%13 == 0 {
			lineage = fmt.Sprintf(`"lineage":{"operation":"regenerate","parentTurnId":"t%d","sourceMessageId":"m%d-1"},`, i/5-1, i/9)
		}
		fmt.Fprintf(&b, `{"protocol":"agentskit.chat.turn","version":1,"eventId":"e%d","sessionId":"s%d","turnId":"t%d","sequence":%d,"emittedAt":"2026-07-11T03:00:00.000Z","event":"server.turn.snapshot","payload":{%s"status":%q,"usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"messages":[%s]}}`+"\n",
			i, i%3, i/5, seq, lineage, status, strings.Join(msgs, ","))
	}
	name := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

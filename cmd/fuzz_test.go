package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
	_ "unsafe" // for go:linkname

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/jsonout/jsontest"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// cobra keeps every flag given a completion function in a map of its
// own for the life of the process, with the flag's value, hence the
// options of the command that owns it, the reader they hold and its
// buffers: about 1 MB for each command run. snapctl builds one command
// tree per process, so that costs nothing there; a fuzz worker that runs
// millions of commands in one process would fill its memory and spend its
// time collecting. runOnce empties the map after each run.
//
//go:linkname cobraCompletions github.com/spf13/cobra.flagCompletionFunctions
var cobraCompletions map[*pflag.Flag]cobra.CompletionFunc

//go:linkname cobraCompletionsMu github.com/spf13/cobra.flagCompletionMutex
var cobraCompletionsMu *sync.RWMutex

// runOnce is run, without the memory cobra keeps of the run (see
// cobraCompletions): for tests that run commands by the thousand.
func runOnce(ios *iostreams.IOStreams, args []string) int {
	code := run(ios, args)
	cobraCompletionsMu.Lock()
	clear(cobraCompletions)
	cobraCompletionsMu.Unlock()
	return code
}

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

// jsonCommands is every command and format that prints for programs.
var jsonCommands = [][]string{
	{"replay", "-o", "json"}, {"replay", "-o", "jsonl"},
	{"lineage", "-o", "json"},
	{"diff", "-o", "json"}, {"diff", "-o", "jsonl"},
	{"inspect", "-o", "json"}, {"inspect", "-o", "json", "--line", "2"}, {"inspect", "-o", "json", "--line", "5"},
	{"inspect", "-o", "json", "--event-id", "e4"},
}

// checkTerminalSafe fails when out holds a byte or character that acts on
// a terminal or hides from the reader: any control character but newline,
// DEL, C1 controls, line separators, format characters (bidi controls,
// zero-width spaces, U+FEFF) or bytes that are not UTF-8.
func checkTerminalSafe(t *testing.T, what string, out string) {
	t.Helper()
	if i := jsontest.Forbidden([]byte(out)); i >= 0 {
		r, _ := utf8.DecodeRuneInString(out[i:])
		t.Fatalf("%s printed %U at byte %d:\n%s", what, r, i, out)
	}
}

// checkJSON fails when out is not one JSON document, or JSON Lines when
// lines is set.
func checkJSON(t *testing.T, what, out string, lines bool) {
	t.Helper()
	docs := []string{out}
	if lines {
		docs = strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	}
	for _, d := range docs {
		if d == "" && out == "" {
			continue
		}
		if !json.Valid([]byte(d)) {
			t.Fatalf("%s: not JSON: %q", what, d)
		}
	}
}

// runCommands runs every command of cmds over capture, failing when one
// hangs or prints anything unsafe, or a JSON format prints invalid JSON.
func runCommands(t *testing.T, capture string, cmds [][]string) {
	t.Helper()
	for _, args := range cmds {
		name := strings.Join(args, " ")
		ios, out, errOut := iostreams.Test(capture)
		done := make(chan struct{})
		go func() {
			defer close(done)
			runOnce(ios, append(append([]string{}, args...), "-"))
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s did not finish", name)
		}
		checkTerminalSafe(t, name+" (stdout)", out.String())
		checkTerminalSafe(t, name+" (stderr)", errOut.String())
		isJSON := slices.Contains(args, "json") || slices.Contains(args, "jsonl")
		if isJSON && !strings.HasPrefix(errOut.String(), "snapctl: ") {
			checkJSON(t, name, out.String(), slices.Contains(args, "jsonl"))
		}
	}
}

// FuzzHumanOutput runs a human format, the one which picks, over captures
// full of hostile text: none may panic or print a raw control character.
// One command an input, not all of them: the fuzzer steers which, and
// each run costs a tenth (see fuzzSetup).
func FuzzHumanOutput(f *testing.F) {
	defer fuzzSetup()()
	f.Add(uint8(0), "\x1b]0;owned\a\x1b[2J", []byte("\x1b[31m{\"broken\":"))
	f.Add(uint8(1), "abc\u202edcba\u2028\u0085\x00", []byte(`{"protocol":"agentskit.chat.turn","version":1,"event":"\u001b[31m"}`))
	f.Add(uint8(5), "plain", []byte("\xff\xfe garbage"))
	f.Add(uint8(7), strings.Repeat("long ", 50), []byte(""))
	// The sample captures, a line at a time, as the raw line, each under
	// the next command in turn.
	samples, _ := filepath.Glob("../testdata/*.jsonl")
	n := 0
	for _, name := range samples {
		data, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			f.Add(uint8(n%len(humanCommands)), "sample", []byte(line))
			n++
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, text string, raw []byte) {
		text, raw = fuzzCap(text, fuzzText), fuzzCap(raw, fuzzRaw)
		runCommands(t, hostileCapture(text, raw), [][]string{humanCommands[int(which)%len(humanCommands)]})
	})
}

// FuzzJSONOutput runs a JSON format, the one which picks, over captures
// full of hostile text: each output must parse and hold no raw control,
// separator or format character.
func FuzzJSONOutput(f *testing.F) {
	defer fuzzSetup()()
	for i, seed := range hostileSeeds {
		f.Add(uint8(i%len(jsonCommands)), seed, []byte(seed))
	}
	f.Add(uint8(0), "plain", []byte("\xff\xfe garbage"))
	f.Fuzz(func(t *testing.T, which uint8, text string, raw []byte) {
		text, raw = fuzzCap(text, fuzzText), fuzzCap(raw, fuzzRaw)
		runCommands(t, hostileCapture(text, raw), [][]string{jsonCommands[int(which)%len(jsonCommands)]})
	})
}

// fuzzText and fuzzRaw are the most of a fuzz input's text and raw line
// a capture is made of. The text is repeated in every field of six lines
// and what matters in it (an escape, a cut sequence, a character that
// acts on a terminal) is short; the raw line appears once. Longer inputs
// would only make each run slower.
const (
	fuzzText = 128
	fuzzRaw  = 1024
)

func fuzzCap[T string | []byte](v T, n int) T {
	if len(v) > n {
		return v[:n]
	}
	return v
}

// fuzzSetup makes the collector run less often while a fuzz target runs
// (each input builds a command tree and its buffers, all garbage at the
// end of the run, and a fuzz worker has memory to spare): collection was
// a fifth of each run. The returned func puts the setting back.
func fuzzSetup() func() {
	old := debug.SetGCPercent(800)
	return func() { debug.SetGCPercent(old) }
}

// hostileSeeds are texts that once reached a terminal or a JSON output raw.
var hostileSeeds = []string{
	"\x1b[31mred", "\u202eevil", "\x07bell\x08", "a\u2029b", "\x9b2J", "\u00852J", "\x7fdel",
	"\u200bzero\ufeffwidth\u200d", "\u2066iso\u2069\u061c\u200e\u200f", "bad\xffbyte\xc3", "tag\U000e0041",
}

// TestOutputIsTerminalSafe runs the seeds in every `go test`, so the
// property is checked without -fuzz too: every format of every command.
func TestOutputIsTerminalSafe(t *testing.T) {
	for _, text := range hostileSeeds {
		capture := hostileCapture(text, []byte(text))
		runCommands(t, capture, humanCommands)
		runCommands(t, capture, jsonCommands)
	}
}

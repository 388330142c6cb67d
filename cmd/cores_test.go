package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/internal/samples"
)

// coreCommands is every command and format that reads a capture and
// writes something, for TestOneCoreAndMany. explore is not among them:
// it needs a terminal, and its own tests check it against inspect.
var coreCommands = [][]string{
	{"replay"}, {"replay", "-o", "wide"}, {"replay", "-o", "json"}, {"replay", "-o", "jsonl"},
	{"lineage"}, {"lineage", "-o", "wide"}, {"lineage", "-o", "mermaid"}, {"lineage", "-o", "dot"},
	{"lineage", "-o", "svg"}, {"lineage", "-o", "json"}, {"lineage", "-o", "jsonl"},
	{"diff"}, {"diff", "--stat"}, {"diff", "-o", "json"}, {"diff", "-o", "jsonl"},
	{"inspect"}, {"inspect", "-o", "wide"}, {"inspect", "-o", "json"}, {"inspect", "-o", "jsonl"},
	{"report", "--out", "-"},
	{"reduce", "--out", "-"},
}

// generated is the report's generated-at row, the one thing in the
// output of two runs that is not the capture's.
var generated = regexp.MustCompile(`<tr><td>generated</td><td>[^<]*</td></tr>`)

// TestOneCoreAndMany checks that every command writes the same bytes, and
// exits the same, whether it decodes on one core (the reader's goroutine)
// or on many (the pipeline, decoding batches out of order): on every
// capture in testdata and on one long enough for many batches in flight.
func TestOneCoreAndMany(t *testing.T) {
	captures := samples.All(t)
	// Over batchLines lines a batch, several batches, with every verdict
	// (scriptedCapture's bytes pick them; a fixed multiplier walks them).
	script := make([]byte, 5000)
	for i := range script {
		script[i] = byte(i * 167)
	}
	long := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(long, []byte(scriptedCapture(script)), 0o644); err != nil {
		t.Fatal(err)
	}
	captures = append(captures, long)
	// Lines longer than the reader's buffer between the others, for
	// --max-line to skip while the lines before them are still in flight.
	var b strings.Builder
	for i, line := range strings.SplitAfter(scriptedCapture(script[:1200]), "\n") {
		b.WriteString(line)
		if i%100 == 50 {
			b.WriteString(`{"padding":"` + strings.Repeat("x", 300<<10) + `"}` + "\n")
		}
	}
	huge := filepath.Join(t.TempDir(), "huge.jsonl")
	if err := os.WriteFile(huge, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	runAt := func(procs int, args []string) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		ios, out, errOut := iostreams.Test("")
		code := runOnce(ios, args)
		return generated.ReplaceAllString(out.String(), "") + "\n--- stderr\n" + errOut.String() + "\n--- exit " + strconv.Itoa(code)
	}
	check := func(args []string) {
		one, many := runAt(1, args), runAt(4, args)
		if one != many {
			t.Errorf("%s: one core and four differ:\n%s", strings.Join(args, " "), firstDifference(one, many))
		}
	}
	for _, c := range captures {
		for _, cmd := range coreCommands {
			check(append(append([]string{}, cmd...), c))
		}
	}
	// Several captures in one run, each read into the buffer the one
	// before it was read into; and lines over --max-line and longer than
	// the reader's buffer among the others, which the reader skips by
	// reading over the buffer its other lines are in.
	for _, cmd := range coreCommands {
		check(append(append([]string{}, cmd...), long, "../testdata/interleaved.jsonl", long))
		check(append(append([]string{}, cmd...), "--max-line", "100000", huge))
	}
}

// firstDifference shows where a and b first differ, with some context.
func firstDifference(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-80)
	return "one:  " + strings.TrimSpace(a[from:min(len(a), i+80)]) + "\nmany: " + strings.TrimSpace(b[from:min(len(b), i+80)])
}

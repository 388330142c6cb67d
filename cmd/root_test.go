package cmd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
)

// failingWriter fails every write after the first n bytes, as a full disk
// or a closed pipe would.
type failingWriter struct{ n int }

var errDiskFull = errors.New("no space left on device")

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) <= w.n {
		w.n -= len(p)
		return len(p), nil
	}
	n := w.n
	w.n = 0
	return n, errDiskFull
}

// TestWriteErrorsExitNonZero checks that output that could not be written
// fails every command with one line on stderr, help and version included,
// and that the same commands succeed when the writes do.
func TestWriteErrorsExitNonZero(t *testing.T) {
	capture := hostileCapture("text", []byte("{"))
	cases := [][]string{
		{"--help"}, {"replay", "--help"}, {"inspect", "-h"}, {"explore", "--help"}, {"man", "--help"}, {"--version"},
		{"completion", "bash"}, {"completion", "zsh"}, {"completion", "fish"},
		{"explain"}, {"explain", "stale"},
		{"replay", "-"}, {"replay", "-o", "json", "-"}, {"replay", "--fail-on", "malformed", "-"},
		{"replay", "-o", "jsonl", "--jq", ".line", "-"}, {"replay", "-o", "json", "--jq", ".summary", "-"},
		{"replay", "--each", "-"}, {"replay", "--each", "-o", "json", "-"},
		{"inspect", "-"}, {"inspect", "-o", "json", "-"}, {"inspect", "--line", "1", "-"},
		{"inspect", "--each", "-o", "jsonl", "-"}, {"inspect", "--each", "-o", "jsonl", "--jq", ".", "-"},
		{"lineage", "-"}, {"lineage", "-o", "json", "-"}, {"lineage", "-o", "svg", "-"}, {"lineage", "-o", "dot", "-"},
		{"lineage", "-o", "mermaid", "-"}, {"lineage", "--each", "-"},
		{"diff", "-"}, {"diff", "-o", "jsonl", "-"}, {"diff", "-o", "json", "--jq", ".pairs", "-"},
		{"report", "--out", "-", "-"},
	}
	for _, args := range cases {
		name := strings.Join(args, " ")
		for _, room := range []int{0, 10} {
			ios, _, errOut := iostreams.Test(capture)
			ios.Out = &failingWriter{n: room}
			if got := run(ios, args); got != exitUsage {
				t.Errorf("%s with %d bytes of room: exit %d, want %d", name, room, got, exitUsage)
			}
			msg := errOut.String()
			if !strings.HasPrefix(msg, "snapctl: writing output: ") || !strings.HasSuffix(msg, errDiskFull.Error()+"\n") ||
				strings.Count(msg, "\n") != 1 {
				t.Errorf("%s: stderr %q, want one line about the write error", name, msg)
			}
		}
		ios, out, errOut := iostreams.Test(capture)
		want := exitOK
		if len(args) > 1 && args[1] == "--fail-on" {
			want = exitMatch
		}
		if got := run(ios, args); got != want || out.Len() == 0 {
			t.Errorf("%s with room: exit %d (want %d), %d bytes out, stderr %q", name, got, want, out.Len(), errOut.String())
		}
	}
}

// TestManWriteError: a man page that cannot be written fails man with one
// line, as standard output does the other commands.
func TestManWriteError(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	dir := t.TempDir()
	if err := os.Symlink("/dev/full", filepath.Join(dir, "snapctl-replay.1")); err != nil {
		t.Fatal(err)
	}
	ios, _, errOut := iostreams.Test("")
	if got := run(ios, []string{"man", dir}); got != exitUsage {
		t.Errorf("exit %d, want %d", got, exitUsage)
	}
	if msg := errOut.String(); !strings.HasPrefix(msg, "snapctl: writing man pages: ") ||
		!strings.HasSuffix(msg, "no space left on device\n") || strings.Count(msg, "\n") != 1 {
		t.Errorf("stderr %q, want one line about the write error", msg)
	}
}

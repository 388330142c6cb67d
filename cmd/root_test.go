package cmd

import (
	"errors"
	"strings"
	"testing"
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
		{"--help"}, {"replay", "--help"}, {"inspect", "-h"}, {"--version"}, {"completion", "bash"},
		{"replay", "-"}, {"replay", "-o", "json", "-"}, {"replay", "--fail-on", "malformed", "-"},
		{"inspect", "-"}, {"inspect", "-o", "json", "-"}, {"inspect", "--line", "1", "-"},
		{"lineage", "-"}, {"lineage", "-o", "json", "-"}, {"diff", "-"}, {"diff", "-o", "jsonl", "-"},
	}
	for _, args := range cases {
		name := strings.Join(args, " ")
		for _, room := range []int{0, 10} {
			ios, _, errOut := testStreams(capture)
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
		ios, out, errOut := testStreams(capture)
		want := exitOK
		if len(args) > 1 && args[1] == "--fail-on" {
			want = exitMatch
		}
		if got := run(ios, args); got != want || out.Len() == 0 {
			t.Errorf("%s with room: exit %d (want %d), %d bytes out, stderr %q", name, got, want, out.Len(), errOut.String())
		}
	}
}

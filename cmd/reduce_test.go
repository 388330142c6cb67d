package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/render/redacttest"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestReduceArchiveRoundTrip reduces every sample capture with a finding
// to a testscript archive, with and without --redact, and runs the
// archives as the server team would: each must pass, so the expected
// output in it is what snapctl inspect really says of the reduced capture.
func TestReduceArchiveRoundTrip(t *testing.T) {
	dir := t.TempDir()
	files, _ := filepath.Glob("../testdata/inspect/*.jsonl")
	files = append(files, "../testdata/real-server/real-timeout.jsonl", "../testdata/real-server/proxied-mix.jsonl")
	// Garbage lines that read as txtar file markers: the archive quotes
	// the capture, and running it must write no file of the capture's.
	marker := filepath.Join(dir, "pwned-by-archive")
	markers := filepath.Join(t.TempDir(), "markers.jsonl")
	if err := os.WriteFile(markers, []byte("-- "+marker+" --\n-- "+marker+" --\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files = append(files, markers)
	defer func() {
		if _, err := os.Lstat(marker); err == nil {
			t.Errorf("running the archives wrote %s, a file a capture line named", marker)
		}
	}()
	written := 0
	for _, file := range files {
		for _, redact := range []string{"", "--redact"} {
			base := strings.TrimSuffix(filepath.Base(file), ".jsonl")
			out := filepath.Join(dir, base+redact+".txtar")
			args := []string{"reduce", "--out", out, file}
			if redact != "" {
				args = append(args, redact)
			}
			ios, _, errOut := iostreams.Test("")
			code := run(ios, args)
			if strings.Contains(errOut.String(), "has no finding") || strings.Contains(errOut.String(), "is not NDJSON") {
				continue // a record capture's lines are framed: reduce refuses it (TestReduceUsage)
			}
			if strings.Contains(errOut.String(), "archive cannot keep") || strings.Contains(errOut.String(), "rewriting the lines loses capture-cut") {
				continue // a capture cut inside its last line (capture_cut.txtar)
			}
			if code != 0 {
				t.Fatalf("snapctl %v: exit %d: %s", args, code, errOut)
			}
			if !strings.Contains(errOut.String(), "wrote "+out) {
				t.Errorf("snapctl %v: stderr %q does not say where it wrote", args, errOut)
			}
			written++
		}
	}
	if written < 10 {
		t.Fatalf("only %d archives written", written)
	}
	testscript.Run(t, testscript.Params{Dir: dir})
}

// TestReduceRedactHidesEverySecret: the reduced capture of the canary
// capture holds no marker with --redact, and every marker that the kept
// lines carry without it.
func TestReduceRedactHidesEverySecret(t *testing.T) {
	const tag = "SeCrEt"
	dir := t.TempDir()
	file := filepath.Join(dir, "secret.jsonl")
	if err := os.WriteFile(file, []byte(redacttest.Capture(tag)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, redact := range []bool{false, true} {
		ios, out, errOut := iostreams.Test("")
		args := []string{"reduce", "--out", "-", "--finding", "invalid-event", file}
		if redact {
			args = append(args, "--redact")
		}
		if code := run(ios, args); code != 0 {
			t.Fatalf("snapctl %v: exit %d: %s", args, code, errOut)
		}
		if got := strings.Contains(out.String(), tag); got == redact {
			t.Errorf("redact=%v: tag in the reduced capture = %v\n%s", redact, got, out)
		}
	}
}

func TestReduceUsage(t *testing.T) {
	dir := t.TempDir()
	exists := filepath.Join(dir, "exists.jsonl")
	os.WriteFile(exists, nil, 0o644)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"reduce", "../testdata/reconnect.jsonl"}, "--out"},
		{[]string{"reduce", "--out", exists, "../testdata/reconnect.jsonl"}, "exists"},
		{[]string{"reduce", "--out", "-", "--finding", "no-such", "../testdata/reconnect.jsonl"}, "no-such"},
		{[]string{"reduce", "--out", "-", "--finding", "sequence-collision", "../testdata/reconnect.jsonl"}, "no sequence-collision finding"},
		{[]string{"reduce", "--out", "-", "../testdata/clean.jsonl"}, "has no finding"},
		{[]string{"reduce", "--out", "-", "../testdata/formats/reconnect.sse"}, "not NDJSON"},
		{[]string{"reduce", "--out", "-", "../testdata/inspect/delivery-gap.jsonl"}, "not NDJSON"},
	} {
		ios, out, errOut := iostreams.Test("")
		code := run(ios, tt.args)
		if code != 2 || out.Len() != 0 || !strings.Contains(errOut.String(), tt.want) || strings.Count(errOut.String(), "\n") != 1 {
			t.Errorf("snapctl %v: exit %d, stdout %q, stderr %q; want exit 2 and one line naming %q", tt.args, code, out, errOut, tt.want)
		}
	}
}

// TestReduceRenameIDs: with --rename-ids the reduced capture holds none of
// the capture's ids and still shows the finding, under the session's new
// name in the summary.
func TestReduceRenameIDs(t *testing.T) {
	for _, file := range []string{"../testdata/inspect/message-vanished.jsonl", "../testdata/inspect/sequence-collision.jsonl", "../testdata/reconnect.jsonl"} {
		ios, out, errOut := iostreams.Test("")
		if code := run(ios, []string{"reduce", "--rename-ids", "--out", "-", file}); code != 0 {
			t.Fatalf("%s: exit %d: %s", file, code, errOut)
		}
		data, _ := os.ReadFile(file)
		for _, id := range []string{`"s-vanish"`, `"s-collide"`, `"session-reconnect"`, `"evt-`} {
			if strings.Contains(string(data), id) && strings.Contains(out.String(), id) {
				t.Errorf("%s: the reduced capture still holds %s:\n%s", file, id, out)
			}
		}
		if !strings.Contains(out.String(), `"sessionId":"s1"`) || !strings.Contains(errOut.String(), "in session s1") {
			t.Errorf("%s: ids not mapped: %s\n%s", file, errOut, out)
		}
	}
}

// TestReduceToTerminalIsTerminalSafe: a reduced capture written to a
// terminal (--out -) shows its controls, bidi and invalid bytes as
// escapes, as every other output does, while the same capture written to
// a pipe stays the capture's own bytes.
func TestReduceToTerminalIsTerminalSafe(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "garbage.jsonl")
	capture := "\x1b]0;owned\a\x1b[2J\u009b31m\u202eevil\u2028\xff\n\x1b[31m more\n"
	if err := os.WriteFile(file, []byte(capture), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tty := range []bool{false, true} {
		ios, out, errOut := iostreams.Test("")
		ios.OutTTY = tty
		args := []string{"reduce", "--out", "-", file}
		if code := run(ios, args); code != 0 {
			t.Fatalf("snapctl %v: exit %d: %s", args, code, errOut)
		}
		got := out.String()
		if !tty {
			if got != "\x1b]0;owned\a\x1b[2J\u009b31m\u202eevil\u2028\xff\n" {
				t.Errorf("to a pipe: got %q, want the capture's first line byte for byte", got)
			}
			continue
		}
		want := `\x1b]0;owned\x07\x1b[2J\u009b31m\u202eevil\u2028\xff` + "\n"
		if got != want {
			t.Errorf("to a terminal: got %q, want %q", got, want)
		}
	}
}

// TestReduceRedactKeepsCut: a capture cut inside its last line, reduced
// with --redact, still ends inside an event: the neutral text of the
// cut line is JSON as far as it goes, so capture-cut is kept, and none of
// its message text is.
func TestReduceRedactKeepsCut(t *testing.T) {
	out := filepath.Join(t.TempDir(), "reduced.jsonl")
	ios, _, errOut := iostreams.Test("")
	if code := run(ios, []string{"reduce", "--finding", "capture-cut", "--redact", "--out", out, filepath.Join("..", "testdata", "inspect", "capture-cut.jsonl")}); code != 0 {
		t.Fatalf("reduce --redact: exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.HasSuffix(data, []byte("\n")) || bytes.Contains(data, []byte("question")) {
		t.Errorf("reduced capture %q: want its last line cut, and no message text", data)
	}
	ios, stdout, _ := iostreams.Test("")
	run(ios, []string{"inspect", out})
	if !strings.Contains(stdout.String(), "capture-cut") {
		t.Errorf("inspect of the reduced capture:\n%s\nwant capture-cut", stdout)
	}
}

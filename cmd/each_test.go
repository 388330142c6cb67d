package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
)

// TestRunEachOrder: captures that finish in reverse order are still
// written in argument order, with the worst exit status of them all, and
// no more run at once than there are cores.
func TestRunEachOrder(t *testing.T) {
	files := []string{"a", "b", "c", "d", "e", "f"}
	for _, tc := range []struct {
		name string
		errs map[string]error
		want error
	}{
		{"all fine", nil, nil},
		{"one matched", map[string]error{"c": errMatched}, errMatched},
		{"one failed, one matched", map[string]error{"b": errMatched, "e": usageErrorf("e: broken")}, &eachError{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ios, out, errOut := iostreams.Test("")
			var running, most atomic.Int32
			err := runEach(ios, files, true, func(sub *iostreams.IOStreams, file string) error {
				n := running.Add(1)
				defer running.Add(-1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				time.Sleep(time.Duration(len(files)-int(file[0]-'a')) * 5 * time.Millisecond)
				fmt.Fprintf(sub.Out, "out %s\n", file)
				return tc.errs[file]
			})
			var want []string
			for i, f := range files {
				if i > 0 {
					want = append(want, "")
				}
				want = append(want, "==> "+f+" <==", "out "+f)
			}
			if got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n"); !slices.Equal(got, want) {
				t.Errorf("output %q, want %q", got, want)
			}
			var ee *eachError
			switch {
			case tc.want == nil && err != nil, tc.want == errMatched && !errors.Is(err, errMatched):
				t.Errorf("err = %v, want %v", err, tc.want)
			case tc.want != nil && tc.want != errMatched && !errors.As(err, &ee):
				t.Errorf("err = %v, want an eachError", err)
			}
			if ee != nil && !strings.Contains(errOut.String(), "snapctl: e: broken\n") {
				t.Errorf("stderr %q does not report the failed capture", errOut)
			}
			if m := most.Load(); int(m) > max(1, runtimeProcs()) {
				t.Errorf("%d captures ran at once", m)
			}
		})
	}
}

// TestEachUnreadableEntries: under --each, a directory under the
// argument that cannot be read, and a file in it that cannot be opened,
// each fail alone with one line naming it; the other captures are read
// and shown, and the exit status is 2. Tests run as root, whom no
// permission stops, so the entries are made unreadable by a path over
// PATH_MAX (4096 bytes on Linux): the tree is made one level at a time
// through os.Root, below the limit.
func TestEachUnreadableEntries(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("relies on Linux's PATH_MAX")
	}
	dir := t.TempDir()
	capture, err := os.ReadFile("../testdata/reconnect.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.jsonl", "z.jsonl"} {
		if err := os.WriteFile(filepath.Join(dir, name), capture, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	level := strings.Repeat("d", 240)
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := dir
	for len(path)+1+len(level) < 4096 {
		if err := r.Mkdir(level, 0o755); err != nil {
			t.Fatal(err)
		}
		next, err := r.OpenRoot(level)
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		r, path = next, filepath.Join(path, level)
	}
	// path is the deepest directory that can be read: what is in it is
	// over the limit.
	if err := r.Mkdir(level, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteFile(level+".jsonl", capture, 0o644); err != nil {
		t.Fatal(err)
	}
	r.Close()
	badDir, badFile := filepath.Join(path, level), filepath.Join(path, level+".jsonl")

	ios, out, errOut := iostreams.Test("")
	if got := run(ios, []string{"inspect", "--each", "-o", "jsonl", dir}); got != exitUsage {
		t.Errorf("exit %d, want %d", got, exitUsage)
	}
	var files []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var row struct{ File string }
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatalf("row %q: %v", l, err)
		}
		files = append(files, row.File)
	}
	if want := []string{filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "z.jsonl")}; !slices.Equal(files, want) {
		t.Errorf("rows for %q, want %q", files, want)
	}
	want := []string{
		"snapctl: " + badDir + ": file name too long",
		"snapctl: " + badFile + ": file name too long",
		"snapctl: 2 of 4 captures failed (see above)",
	}
	if got := strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n"); !slices.Equal(got, want) {
		t.Errorf("stderr:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestEachRowAsTheHelpShows runs the row help each shows, on the capture
// it is of (testdata/diff-turns.jsonl as captures/a.jsonl): the row
// printed is the one shown, field for field.
func TestEachRowAsTheHelpShows(t *testing.T) {
	topic, err := os.ReadFile("internal/help/topics/each.txt")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(topic), "\n  {\"file\":\"captures/a.jsonl\"")
	if !ok {
		t.Fatal("each.txt shows no row of captures/a.jsonl")
	}
	shown, _, _ := strings.Cut(rest, "\n\n")
	var want strings.Builder
	want.WriteString(`{"file":"captures/a.jsonl"`)
	for _, l := range strings.Split(shown, "\n") {
		want.WriteString(strings.TrimSpace(l))
	}
	data, err := os.ReadFile("../testdata/diff-turns.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if err := os.Mkdir("captures", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("captures/a.jsonl", data, 0o644); err != nil {
		t.Fatal(err)
	}
	ios, out, errOut := iostreams.Test("")
	if code := run(ios, []string{"inspect", "--each", "-o", "jsonl", "captures/a.jsonl"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := strings.TrimSuffix(out.String(), "\n"); got != want.String() {
		t.Errorf("snapctl help each shows\n%s\nthe command prints\n%s", want.String(), got)
	}
}

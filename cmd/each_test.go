package cmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
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
			ios, out, errOut := testStreams("")
			var running, most atomic.Int32
			err := runEach(ios, files, true, func(sub *iostreams, file string) error {
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

// TestExpandEach: a directory stands for every file under it, in
// lexical order; other arguments stay as they are.
func TestExpandEach(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b/2.jsonl.gz", "b/1.jsonl", "a.jsonl", "c/d/e.har"} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := expandEach([]string{"-", dir, "missing.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"-", filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b/1.jsonl"), filepath.Join(dir, "b/2.jsonl.gz"),
		filepath.Join(dir, "c/d/e.har"), "missing.jsonl"}
	if !slices.Equal(got, want) {
		t.Errorf("expandEach = %q, want %q", got, want)
	}
}

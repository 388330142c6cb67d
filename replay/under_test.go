package replay

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCapturesUnder: a directory stands for every file under it, in
// lexical order; other arguments stay as they are.
func TestCapturesUnder(t *testing.T) {
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
	got, unreadable := CapturesUnder([]string{"-", dir, "missing.jsonl"})
	if unreadable != nil {
		t.Fatal(unreadable)
	}
	want := []string{"-", filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b/1.jsonl"), filepath.Join(dir, "b/2.jsonl.gz"),
		filepath.Join(dir, "c/d/e.har"), "missing.jsonl"}
	if !slices.Equal(got, want) {
		t.Errorf("CapturesUnder = %q, want %q", got, want)
	}
}

// TestCapturesUnderEmptyDirectory: a directory with no file under it is
// a capture that fails in its place, not an argument passed over.
func TestCapturesUnderEmptyDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, unreadable := CapturesUnder([]string{dir})
	if !slices.Equal(got, []string{dir}) || unreadable[dir] == nil || !strings.Contains(unreadable[dir].Error(), "no file under it") {
		t.Errorf("CapturesUnder = %q, %v", got, unreadable)
	}
}

//go:build unix

package replay

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestCapturesUnderSpecialFiles: under a directory, a symlink to a
// regular file is read; a fifo, a symlink to a directory and a dangling
// symlink are each a capture that fails in its place, saying why, not
// entries passed over in silence.
func TestCapturesUnderSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	other := t.TempDir()
	target := filepath.Join(other, "real.jsonl")
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for link, to := range map[string]string{"a-link.jsonl": target, "b-dir": other, "c-dangling.jsonl": filepath.Join(other, "gone")} {
		if err := os.Symlink(to, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "d-fifo"), 0o600); err != nil {
		t.Skip("no fifo here:", err)
	}
	if err := os.Symlink(filepath.Join(dir, "d-fifo"), filepath.Join(dir, "e-fifo-link")); err != nil {
		t.Fatal(err)
	}
	got, unreadable := CapturesUnder([]string{dir})
	want := []string{"a-link.jsonl", "b-dir", "c-dangling.jsonl", "d-fifo", "e-fifo-link"}
	for i := range want {
		want[i] = filepath.Join(dir, want[i])
	}
	if !slices.Equal(got, want) {
		t.Fatalf("CapturesUnder = %q, want %q", got, want)
	}
	if err := unreadable[want[0]]; err != nil {
		t.Errorf("a symlink to a file: %v, want it read", err)
	}
	for path, why := range map[string]string{want[1]: "symlink to a directory", want[2]: "symlink to nothing readable", want[3]: "is a fifo", want[4]: "is a symlink to a fifo"} {
		if err := unreadable[path]; err == nil || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, want an error saying %q", path, err, why)
		}
	}
}

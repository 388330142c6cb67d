package replay

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// twoFiles makes two files of the same size in a new directory.
func twoFiles(t *testing.T) (dir, a, b string) {
	t.Helper()
	dir = t.TempDir()
	a, b = filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	for _, n := range []string{a, b} {
		if err := os.WriteFile(n, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, a, b
}

func TestDistinctFiles(t *testing.T) {
	dir, a, b := twoFiles(t)
	// Same size, different files: told apart.
	if err := DistinctFiles([]string{a, b, StdinName}, strings.NewReader("")); err != nil {
		t.Fatalf("two files of one size: %v", err)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(a, link); err != nil {
		t.Skip(err)
	}
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{a, b, a}, a + " is named more than once"},
		{[]string{a, dir + "/./a.jsonl"}, "are the same file"},
		{[]string{b, link, a}, link + " and " + a + " are the same file"},
	} {
		err := DistinctFiles(c.names, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.names, err, c.want)
		}
	}
}

// TestDistinctFilesStdin checks that standard input redirected from a
// capture that is named too is that capture named twice, and that a
// stdin that is no file (a test's reader) is no name.
func TestDistinctFilesStdin(t *testing.T) {
	_, a, b := twoFiles(t)
	f, err := os.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, names := range [][]string{{StdinName, a}, {a, StdinName}} {
		err := DistinctFiles(names, f)
		if err == nil || !strings.Contains(err.Error(), "are the same file") || !strings.Contains(err.Error(), "standard input") {
			t.Errorf("%v, stdin %s: %v, want the same file", names, a, err)
		}
	}
	if err := DistinctFiles([]string{StdinName, b}, f); err != nil {
		t.Errorf("stdin %s and %s: %v", a, b, err)
	}
	if err := DistinctFiles([]string{StdinName, a}, strings.NewReader("{}\n")); err != nil {
		t.Errorf("a reader and %s: %v", a, err)
	}
}

// TestDistinctFilesByID checks that where the platform has device and
// inode numbers, a file is found by them (one map lookup a file), not by
// comparing it with every earlier file of its size.
func TestDistinctFilesByID(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no device and inode numbers here")
	}
	dir := t.TempDir()
	n := filepath.Join(dir, "a.jsonl")
	if err := os.WriteFile(n, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(n)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := fileID(fi); !ok {
		t.Fatal("no file id for a regular file")
	}
	var s namedFiles
	const files = 2000
	for i := range files {
		name := filepath.Join(dir, "f", string(rune('a'+i%26)), strings.Repeat("x", i/26+1))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.add(name, fi); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.byID) != files || len(s.bySize) != 0 {
		t.Fatalf("%d files by id and %d sizes compared pairwise, want %d and 0", len(s.byID), len(s.bySize), files)
	}
}

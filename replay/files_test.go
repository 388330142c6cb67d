//go:build unix

package replay

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"syscall"
	"testing"
)

// Captures are opened one at a time: 10,000 files are read under a limit
// of 64 open files, which opening them all at once would break.
func TestReaderManyFilesUnderLowFileLimit(t *testing.T) {
	const n = 10000
	dir := t.TempDir()
	names := make([]string, n)
	for i := range names {
		names[i] = writeFile(t, dir, fmt.Sprintf("c%05d.jsonl", i), []byte(fmt.Sprintf("%d\n", i)))
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Skip("cannot read the open-file limit:", err)
	}
	low := old
	low.Cur = 64
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skip("cannot lower the open-file limit:", err)
	}
	defer func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
			t.Errorf("restoring the open-file limit: %v", err)
		}
	}()

	rd, err := Open(names, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	seen := 0
	for {
		l, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if want := fmt.Sprint(seen); string(l.Data) != want || filepath.Base(l.File) != fmt.Sprintf("c%05d.jsonl", seen) {
			t.Fatalf("line %d: %s %q, want %q", seen, l.File, l.Data, want)
		}
		seen++
	}
	if seen != n || rd.Err() != nil {
		t.Fatalf("read %d of %d files, Err() = %v", seen, n, rd.Err())
	}
	if s := rd.Stats(); s.Files != n {
		t.Fatalf("stats %+v", s)
	}
}

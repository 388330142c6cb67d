//go:build unix

package replay

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
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

// Open only looks a fifo up: opening it would wait for its writer, and
// Open must return at once to report other captures' problems. The fifo
// is opened when the reader reaches it.
func TestOpenFifoWithoutWaiting(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("cannot make a fifo:", err)
	}
	opened := make(chan *Reader)
	go func() {
		rd, err := Open([]string{p}, nil, 0)
		if err != nil {
			t.Error(err)
		}
		opened <- rd
	}()
	var rd *Reader
	select {
	case rd = <-opened:
	case <-time.After(5 * time.Second):
		t.Fatal("Open waited for the fifo's writer")
	}
	if rd == nil {
		return
	}
	go func() {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.WriteString("a\nb\n")
		f.Close()
	}()
	if got := readAll(t, rd); len(got) != 2 || got[1].data != "b" {
		t.Fatalf("got %+v", got)
	}
	if _, total := rd.Progress(); total != -1 {
		t.Fatalf("a fifo's size is unknown, got total %d", total)
	}
}

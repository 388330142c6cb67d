//go:build unix

package replay

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
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

// Stop ends a run whose read is blocked on a quiet fifo: the lines before
// it are delivered, the line it cut is not, the capture counts as damaged
// by the cause, and the captures after it are not read.
func TestReaderStopWhileBlocked(t *testing.T) {
	for _, workers := range []int{1, 4} {
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "live")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skip("no fifo:", err)
			}
			after := writeFile(t, dir, "after", []byte("never\n"))
			rd, err := Open([]string{fifo, after}, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			go func() {
				w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
				if err != nil {
					return
				}
				w.WriteString("a\nbcdefghij\npart") // past the 10 bytes sniffed
				// The writer stays open: the reader waits for more.
				t.Cleanup(func() { w.Close() })
			}()
			cause := errors.New("interrupted")
			var got []string
			sum, err := Run(rd, Options{Workers: workers}, func(r *Result) error {
				got = append(got, fmt.Sprintf("%s:%d", filepath.Base(r.File), r.Line))
				if len(got) == 2 {
					go rd.Stop(cause)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if want := "live:1 live:2"; strings.Join(got, " ") != want {
				t.Fatalf("lines %v, want %s", got, want)
			}
			d := damageOf(t, rd)
			if d.Name != fifo || !d.Stopped || d.Decoded != 12 || !errors.Is(d, cause) ||
				d.Error() != fifo+": stopped at byte 12: interrupted" {
				t.Fatalf("damage %+v (%v)", d, d)
			}
			if sum.Input.Complete() || sum.Input.Files != 1 {
				t.Fatalf("summary input %+v", sum.Input)
			}
		})
	}
}

// Stop between two captures names the one not read; after the last
// capture was read to its end, it is no damage.
func TestReaderStopBetweenCaptures(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a", []byte("1\n2\n"))
	b := writeFile(t, dir, "b", []byte("3\n"))
	rd, _ := Open([]string{a, b}, nil, 0)
	for i := 0; i < 2; i++ {
		if _, err := rd.Next(); err != nil {
			t.Fatal(err)
		}
	}
	rd.Stop(errors.New("stop"))
	if l, err := rd.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("Next after Stop = %+v, %v", l, err)
	}
	if d := damageOf(t, rd); d.Name != a || d.Decoded != 4 {
		t.Fatalf("damage %+v", d)
	}

	rd, _ = Open([]string{a, b}, nil, 0)
	readAll(t, rd)
	rd.Stop(errors.New("stop"))
	if _, err := rd.Next(); !errors.Is(err, io.EOF) || rd.Err() != nil {
		t.Fatalf("Stop after the end: Next %v, Err %v", err, rd.Err())
	}
}

//go:build unix

package iostreams

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOutFileFifo: a named pipe is written to without --force, and stays
// a pipe. Before, it was refused as an existing file.
func TestOutFileFifo(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("cannot make a fifo:", err)
	}
	if err := CheckOutFile(fifo, false); err != nil {
		t.Fatalf("CheckOutFile(fifo, false): %v", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	ios, _, _ := Test("")
	done := make(chan error, 1)
	go func() { done <- ios.WriteOutFile(fifo, false, writeHello) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("WriteOutFile(fifo, false): %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("writing the fifo did not end")
	}
	if s := <-got; s != "hello\n" {
		t.Errorf("the fifo's reader got %q, want %q", s, "hello\n")
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the fifo is gone after writing: %v", err)
	}
}

// TestOutFileFailedWriteKeepsDevice: without --force a symlink to
// /dev/full is opened, the write fails, and the symlink stays.
func TestOutFileFailedWriteKeepsDevice(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full:", err)
	}
	link := filepath.Join(t.TempDir(), "out.html")
	if err := os.Symlink("/dev/full", link); err != nil {
		t.Skip("cannot make a symlink:", err)
	}
	ios, _, _ := Test("")
	err := ios.WriteOutFile(link, false, writeHello)
	if err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Errorf("WriteOutFile(/dev/full link, false) = %v, want the write's error", err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink is gone after a failed write: %v", err)
	}
}

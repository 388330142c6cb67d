//go:build unix

package explore

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestNeedsSpoolFIFO checks that a capture named by a pipe (mkfifo, or a
// shell's <(command)) is spooled, read once, and that telling so neither
// opens it (which waits for a writer) nor reads bytes of the stream.
func TestNeedsSpoolFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "capture.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no fifo here:", err)
	}
	done := make(chan bool, 1)
	go func() { done <- spoolsNone([]string{fifo}) }()
	select {
	case none := <-done:
		if none {
			t.Error("a fifo is taken for a capture that can be read again")
		}
	case <-time.After(5 * time.Second):
		// Let the open that waits for a writer go.
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		t.Fatal("telling whether a fifo is spooled waited for its writer")
	}
}

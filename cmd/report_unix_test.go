//go:build unix

package cmd

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentskit/snapctl/internal/hostile"
)

// TestReportHashesFifo checks that a capture that can be read only once,
// a fifo, gets its SHA-256 in the header: the hash comes from the run's
// one read. A second reader of the fifo would wait for a writer; once the
// capture is written, the test opens the fifo for writing again and
// again, without writing, until the report is done, so that such a reader
// gets no bytes and the wrong hash, rather than waiting for ever.
func TestReportHashesFifo(t *testing.T) {
	p := filepath.Join(t.TempDir(), "capture.fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("cannot make a fifo:", err)
	}
	data := hostile.Sessions(3, 40, 2000)
	done := make(chan struct{})
	defer close(done)
	go func() {
		if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			f.Write(data)
			f.Close()
		}
		for {
			select {
			case <-done:
				return
			case <-time.After(10 * time.Millisecond):
			}
			// Opening fails (ENXIO) unless some reader has the fifo open.
			if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		}
	}()
	page := runReport(t, []string{p}, nil)
	sum := sha256.Sum256(data)
	if !strings.Contains(page, "<code>"+hex.EncodeToString(sum[:])+"</code>") {
		t.Errorf("the header has not the fifo's SHA-256 %x", sum)
	}
}

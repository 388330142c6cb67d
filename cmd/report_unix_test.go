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

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
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

// TestReportFailedWriteKeepsWhatWasThere: --force --out to a file that is
// not a regular one (here a symlink to /dev/full, where every write
// fails) exits 2 with the write's error and leaves the name as it was: a
// failed write removes only a regular file. Before, the cleanup
// removed whatever the name was, and `--force --out /dev/full` run as
// root deleted the device node.
func TestReportFailedWriteKeepsWhatWasThere(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full:", err)
	}
	dir := t.TempDir()
	link := filepath.Join(dir, "report.html")
	if err := os.Symlink("/dev/full", link); err != nil {
		t.Skip("cannot make a symlink:", err)
	}
	for _, cmd := range [][]string{
		{"report", "--force", "--out", link, "../testdata/clean.jsonl"},
		{"reduce", "--force", "--out", link, "../testdata/inspect/sequence-gap.jsonl"},
	} {
		ios, _, errOut := iostreams.Test("")
		if code := run(ios, cmd); code != 2 {
			t.Fatalf("snapctl %v: exit %d, want 2: %s", cmd, code, errOut)
		}
		if !strings.Contains(errOut.String(), "no space left on device") {
			t.Errorf("snapctl %v: stderr %q does not give the write's error", cmd, errOut)
		}
		fi, err := os.Lstat(link)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("snapctl %v: the symlink is gone after a failed write: %v", cmd, err)
		}
	}
}

//go:build unix

package replay

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A fifo, which can be read only once, is hashed as it is read.
func TestHashStoredFifo(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("cannot make a fifo:", err)
	}
	data := []byte(captureText(5000))
	go func() {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write(data)
		f.Close()
	}()
	stored, _ := runStored(t, []string{p}, nil)
	checkStored(t, "fifo", stored[0], data)
}

//go:build unix

package cmd

import (
	"path/filepath"
	"syscall"
	"testing"
)

// fifoCase is a fifo no process writes to: opening it would wait for
// ever.
func fifoCase(t *testing.T, dir string) []completionBudgetCase {
	p := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return []completionBudgetCase{{"fifo without a writer", p, nil}}
}

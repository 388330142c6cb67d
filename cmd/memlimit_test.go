package cmd

import (
	"runtime/debug"
	"testing"
)

func TestLimitMemory(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	t.Setenv("GOMEMLIMIT", "")
	base := int64(64<<20) + 2<<20
	for _, tc := range []struct {
		sessions int
		want     int64
	}{
		{0, base},
		{1000, base}, // not a step: unchanged
		{1024, base + 1024*perSession},
		{1500, base + 1024*perSession},
		{4096, base + 4096*perSession},
	} {
		limitMemory(1<<20, tc.sessions)
		if got := debug.SetMemoryLimit(-1); got != tc.want {
			t.Errorf("%d sessions: limit %d, want %d", tc.sessions, got, tc.want)
		}
	}
	t.Setenv("GOMEMLIMIT", "1GiB")
	limitMemory(1<<20, 0)
	if got := debug.SetMemoryLimit(-1); got != base+4096*perSession {
		t.Errorf("with GOMEMLIMIT set the limit moved to %d", got)
	}
}

package memlimit

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
		{1024, base + 1024*PerSession},
		{1500, base + 1024*PerSession},
		{4096, base + 4096*PerSession},
	} {
		Limit(1<<20, tc.sessions)
		if got := debug.SetMemoryLimit(-1); got != tc.want {
			t.Errorf("%d sessions: limit %d, want %d", tc.sessions, got, tc.want)
		}
	}
	t.Setenv("GOMEMLIMIT", "1GiB")
	Limit(1<<20, 0)
	if got := debug.SetMemoryLimit(-1); got != base+4096*PerSession {
		t.Errorf("with GOMEMLIMIT set the limit moved to %d", got)
	}
}

func TestSessionStep(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want bool
	}{{0, false}, {512, false}, {1024, true}, {1100, false}, {1152, true}, {2048, true}, {2304, true}, {2400, false}, {196608, true}, {200000, false}} {
		if got := sessionStep(tc.n); got != tc.want {
			t.Errorf("sessionStep(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
}

func TestGCPercentFor(t *testing.T) {
	for _, tc := range []struct {
		live      uint64
		old, want int
	}{
		{10 << 20, 200, 200}, // within the headroom: unchanged
		{96 << 20, 200, 50},  // twice the headroom: half the live heap
		{96 << 20, 40, 40},   // never raised
		{1 << 30, 200, 25},   // never below a quarter
		{100 << 20, 100, 48}, // 48 MiB over 100 MiB
	} {
		if got := gcPercentFor(tc.live, tc.old); got != tc.want {
			t.Errorf("gcPercentFor(%d MiB, %d) = %d, want %d", tc.live>>20, tc.old, got, tc.want)
		}
	}
}

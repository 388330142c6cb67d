package diff

import (
	"os"
	"runtime"
	"runtime/pprof"
	"testing"

	"github.com/agentskit/snapctl/internal/hostile"
)

func TestZZProf(t *testing.T) {
	if os.Getenv("ZZPROF") == "" {
		t.Skip()
	}
	runtime.MemProfileRate = 4096
	capture := hostile.Sessions(200000, 1, 16)
	d := differ(t, capture, Options{}, func(*PairDiff) error { return nil })
	capture = nil
	runtime.GC()
	f, _ := os.Create("/tmp/s2-diff.prof")
	pprof.WriteHeapProfile(f)
	f.Close()
	runtime.KeepAlive(d)
}

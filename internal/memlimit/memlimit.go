// Package memlimit holds a run's memory to the bound the README promises,
// through the Go runtime's soft limit and its collector's pacing: the
// commands call it, and so do the benchmarks that measure a read as a
// command does it.
package memlimit

import (
	"math/bits"
	"os"
	"runtime/debug"
	"runtime/metrics"
)

// PerSession is the memory a session may cost on top of the bound: what
// inspect, lineage and diff keep of one, with room for the collector.
const PerSession = 16 << 10

// headroom is the garbage the collector lets pile up above the live heap
// once a capture has many sessions: three quarters of the fixed 64 MiB of
// the bound, since peak RSS counts what the runtime holds beside the heap
// too (memory freed but not yet returned, its own metadata), some 40 MB
// more on 200,000 sessions. A smaller headroom collects more often: 48
// MiB rather than 64 took 0 to 7% more CPU there, and 12 to 17 MB less
// peak RSS.
const headroom = 48 << 20

// Limit sets the Go runtime's soft memory limit to the bound the
// README promises: 64 MiB, plus twice the longest line a capture may hold
// (--max-line), plus a fixed cost per session seen so far, unless
// GOMEMLIMIT is set. Without it the collector lets the heap grow to twice
// (three times under GOGC=200, as the commands that decode every message set it) the live data, so a capture of long lines,
// whose buffers are live, would pass the bound with garbage alone. The
// limit is raised as sessions appear (from 1,024 on, eight times between
// doublings), so that a capture of many sessions does not make the
// collector run without end; and at each step the collector is paced
// (see paceCollector) so that the state kept per session is not doubled
// by garbage.
func Limit(maxLine, sessions int) {
	if os.Getenv("GOMEMLIMIT") != "" || (sessions != 0 && !sessionStep(sessions)) {
		return
	}
	debug.SetMemoryLimit(int64(64<<20) + 2*int64(maxLine) + int64(sessions)*PerSession)
	if sessions != 0 {
		paceCollector()
	}
}

// sessionStep reports whether n sessions is a step at which the limit is
// raised: from 1,024 on, every eighth of the power of two below n.
func sessionStep(n int) bool {
	if n < 1024 {
		return false
	}
	step := (1 << (bits.Len(uint(n)) - 1)) / 8
	return n%step == 0
}

// paceCollector sets GOGC so that the heap grows at most headroom above
// the live heap of the last collection, between 25 and the percentage set
// before (relaxGC's 200, or the default 100), unless GOGC is set: past
// some 64 MiB of state kept per session the default pacing would double
// that state, 200,000 sessions' 190 MB into 380. Collecting more often
// costs some CPU, a little more as the state grows; never less than a
// quarter of the live heap is left to fill.
func paceCollector() {
	if os.Getenv("GOGC") != "" {
		return
	}
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	old := debug.SetGCPercent(100)
	debug.SetGCPercent(gcPercentFor(s[0].Value.Uint64(), old))
}

// gcPercentFor is the GOGC that lets a heap of live bytes grow by at most
// headroom, never above old nor below 25.
func gcPercentFor(live uint64, old int) int {
	if live <= headroom {
		return old
	}
	return min(old, max(25, int(100*headroom/live)))
}

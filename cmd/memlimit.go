package cmd

import (
	"os"
	"runtime/debug"
)

// perSession is the memory a session may cost on top of the bound: what
// inspect, lineage and diff keep of one, with room for the collector.
const perSession = 16 << 10

// limitMemory sets the Go runtime's soft memory limit to the bound the
// README promises: 64 MiB, plus twice the longest line a capture may hold
// (--max-line), plus a fixed cost per session seen so far, unless
// GOMEMLIMIT is set. Without it the collector lets the heap grow to twice
// (three times under relaxGC) the live data, so a capture of long lines,
// whose buffers are live, would pass the bound with garbage alone. The
// limit is raised as sessions appear (at 1,024 and every doubling), so that a capture of
// many sessions does not make the collector run without end.
func limitMemory(maxLine, sessions int) {
	if os.Getenv("GOMEMLIMIT") != "" || (sessions != 0 && (sessions < 1024 || sessions&(sessions-1) != 0)) {
		return
	}
	debug.SetMemoryLimit(int64(64<<20) + 2*int64(maxLine) + int64(sessions)*perSession)
}

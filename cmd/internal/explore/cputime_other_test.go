//go:build !unix

package explore

import "time"

// cpuTime is not measured where there is no getrusage: the benchmark
// reports no CPU time there.
func cpuTime() time.Duration { return 0 }

//go:build linux

// Command measure runs a command several times with its standard output
// sent to /dev/null and prints the median wall time, the largest peak
// resident memory (KiB) and the median CPU time (user + system), so
// scripts/bench.sh needs nothing beyond Go. CPU time is the steadier
// figure on a shared machine, where wall time includes time stolen by
// other tenants. Linux only: elsewhere the peak is not counted in KiB,
// or not at all.
//
//	go run ./scripts/measure -runs 5 -- snapctl replay -o jsonl capture.jsonl
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"syscall"
	"time"
)

func main() {
	runs := flag.Int("runs", 5, "number of runs")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: measure [-runs N] -- command [args...]")
		os.Exit(2)
	}
	var times, cpus []time.Duration
	var peak int64
	for i := 0; i < *runs; i++ {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Stderr = os.Stderr
		start := time.Now()
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "measure: %v\n", err)
			os.Exit(1)
		}
		times = append(times, time.Since(start))
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && int64(ru.Maxrss) > peak {
			peak = int64(ru.Maxrss) // KiB on Linux
		}
		cpus = append(cpus, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	}
	median := func(d []time.Duration) time.Duration {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[len(d)/2]
	}
	fmt.Printf("%.3f %d %.3f\n", median(times).Seconds(), peak, median(cpus).Seconds())
}

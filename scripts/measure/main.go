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
//
// With -rounds, each argument is one command line (words split on
// spaces, single quotes group, a leading NAME=value sets the
// environment), and the commands run in turn, one run of each a round:
// a machine whose speed drifts over a minute (other tenants, clocks)
// then slows every command of a round alike. Each command's line adds
// the median, over the rounds, of its wall and CPU time divided by the
// first command's in the same round.
//
//	go run ./scripts/measure -runs 5 -rounds "snapctl replay c.jsonl" "GOMAXPROCS=1 snapctl replay c.jsonl"
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"syscall"
	"time"
)

type sample struct {
	wall, cpu time.Duration
	peak      int64 // KiB
}

func run(env, args []string) sample {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stderr = os.Stderr
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	start := time.Now()
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "measure: %s: %v\n", strings.Join(args, " "), err)
		os.Exit(1)
	}
	s := sample{wall: time.Since(start), cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.peak = int64(ru.Maxrss) // KiB on Linux
	}
	return s
}

// words splits a command line on spaces; single quotes group words and
// are removed; leading NAME=value words are the environment.
func words(line string) (env, args []string) {
	var cur strings.Builder
	quoted, in := false, false
	flush := func() {
		if in {
			args = append(args, cur.String())
		}
		cur.Reset()
		in = false
	}
	for _, r := range line {
		switch {
		case r == '\'':
			quoted, in = !quoted, true
		case r == ' ' && !quoted:
			flush()
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	flush()
	for len(args) > 1 && strings.Contains(args[0], "=") && !strings.HasPrefix(args[0], "=") {
		env, args = append(env, args[0]), args[1:]
	}
	return env, args
}

func median[T int64 | float64 | time.Duration](d []T) T {
	d = append([]T(nil), d...)
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

func main() {
	runs := flag.Int("runs", 5, "number of runs (with -rounds: of rounds)")
	rounds := flag.Bool("rounds", false, "each argument is a command line; run them in turn and print a line for each, with its ratios to the first")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 || *runs < 1 {
		fmt.Fprintln(os.Stderr, "usage: measure [-runs N] -- command [args...]\n       measure [-runs N] -rounds 'command line' ...")
		os.Exit(2)
	}
	if !*rounds {
		var s []sample
		for i := 0; i < *runs; i++ {
			s = append(s, run(nil, args))
		}
		wall, cpu, peak := stats(s)
		fmt.Printf("%.3f %d %.3f\n", wall.Seconds(), peak, cpu.Seconds())
		return
	}
	type command struct{ env, args []string }
	cmds := make([]command, len(args))
	for i, line := range args {
		env, a := words(line)
		if len(a) == 0 {
			fmt.Fprintf(os.Stderr, "measure: command %d is empty\n", i+1)
			os.Exit(2)
		}
		cmds[i] = command{env, a}
	}
	got := make([][]sample, len(cmds))
	for r := 0; r < *runs; r++ {
		for i, c := range cmds {
			got[i] = append(got[i], run(c.env, c.args))
		}
	}
	for i := range cmds {
		var wr, cr []float64
		for r := range got[i] {
			wr = append(wr, got[i][r].wall.Seconds()/got[0][r].wall.Seconds())
			cr = append(cr, got[i][r].cpu.Seconds()/max(got[0][r].cpu.Seconds(), 1e-9))
		}
		wall, cpu, peak := stats(got[i])
		fmt.Printf("%.3f %d %.3f %.3f %.3f\n", wall.Seconds(), peak, cpu.Seconds(), median(wr), median(cr))
	}
}

// stats are the median wall and CPU times and the largest peak.
func stats(s []sample) (wall, cpu time.Duration, peak int64) {
	var walls, cpus []time.Duration
	for _, x := range s {
		walls, cpus = append(walls, x.wall), append(cpus, x.cpu)
		peak = max(peak, x.peak)
	}
	return median(walls), median(cpus), peak
}

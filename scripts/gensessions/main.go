// Command gensessions writes hostile captures of many sessions or huge
// messages, to measure the per-session memory of inspect, lineage and
// diff and the bound of the word diff:
//
//	go run ./scripts/gensessions -sessions 200000 -o bench/sessions.jsonl
//	go run ./scripts/gensessions -sessions 5000 -size 100KB -o bench/big.jsonl
//	go run ./scripts/gensessions -sessions 1 -snapshots 2 -size 30MB -o bench/huge.jsonl
//
// Each session gets -snapshots accepted snapshots of a user message and
// an assistant message of -size bytes of distinct words, reworded between
// snapshots (see internal/hostile).
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/agentskit/snapctl/internal/hostile"
)

func main() {
	sessions := flag.Int("sessions", 200000, "number of sessions")
	snapshots := flag.Int("snapshots", 1, "accepted snapshots per session")
	size := flag.String("size", "16B", "assistant content per snapshot (B, KB, MB)")
	out := flag.String("o", "", "output file (default standard output)")
	flag.Parse()
	n, err := parseSize(*size)
	if err != nil {
		fail(err)
	}
	f := os.Stdout
	if *out != "" {
		if f, err = os.Create(*out); err != nil {
			fail(err)
		}
	}
	if err := hostile.WriteSessions(f, *sessions, *snapshots, n); err != nil {
		fail(err)
	}
	if err := f.Close(); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gensessions:", err)
	os.Exit(1)
}

func parseSize(s string) (int, error) {
	mult := 1
	for _, u := range []struct {
		suffix string
		m      int
	}{{"MB", 1 << 20}, {"KB", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.m
			break
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}

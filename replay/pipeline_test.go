package replay

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// A live stream: each result must be delivered while the writer is still
// waiting to send the next line, whatever the number of decoders.
func TestRunDeliversLiveLines(t *testing.T) {
	for _, workers := range []int{1, 2} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			pr, pw := io.Pipe()
			rd, _ := Open([]string{"-"}, pr, 0)
			seen := make(chan int, 10)
			go func() {
				for i := 1; i <= 3; i++ {
					fmt.Fprintln(pw, snapshotLine("s", int64(i)))
					select {
					case <-seen:
					case <-time.After(5 * time.Second):
						pw.CloseWithError(errors.New("line was held back"))
						return
					}
				}
				pw.Close()
			}()
			idle := 0
			_, err := Run(rd, Options{Workers: workers, Idle: func() { idle++ }}, func(r *Result) error {
				seen <- r.Line
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if idle == 0 {
				t.Fatal("Idle was never called while waiting for input")
			}
		})
	}
}

// Stopping early (fn returns an error) must not leak or deadlock.
func TestRunStopsOnCallbackError(t *testing.T) {
	pr, pw := io.Pipe()
	go func() {
		for i := 1; i <= 5000; i++ {
			if _, err := fmt.Fprintln(pw, snapshotLine("s", int64(i))); err != nil {
				return
			}
		}
		pw.Close()
	}()
	before := runtime.NumGoroutine()
	rd, _ := Open([]string{"-"}, pr, 0)
	stop := errors.New("stop")
	n := 0
	_, err := Run(rd, Options{Workers: 2}, func(r *Result) error {
		n++
		if n == 10 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 10 {
		t.Fatalf("got %v after %d results", err, n)
	}
	// Once its input ends, nothing of the run is left behind.
	pr.Close()
	for i := 0; runtime.NumGoroutine() > before && i < 500; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Fatalf("%d goroutines left, %d before the run", g, before)
	}
}

// With KeepRaw each result carries its own line, whatever the number of
// workers asked for.
func TestRunKeepRaw(t *testing.T) {
	lines := []string{snapshotLine("s", 1), "", "  not json", snapshotLine("s", 2)}
	for _, workers := range []int{0, 1, 3} {
		rd, err := Open([]string{StdinName}, strings.NewReader(strings.Join(lines, "\n")), 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		_, err = Run(rd, Options{KeepRaw: true, Workers: workers}, func(r *Result) error {
			got = append(got, fmt.Sprintf("%d:%s", r.Line, r.Raw))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"1:" + lines[0], "3:" + lines[2], "4:" + lines[3]}
		if !slices.Equal(got, want) {
			t.Errorf("workers=%d: got %q, want %q", workers, got, want)
		}
	}
}

// repeatLine is n copies of line, generated as they are read.
func repeatLine(line string, n int) io.Reader {
	line += "\n"
	i := 0
	return &genReader{left: int64(len(line) * n), fill: func(p []byte) {
		for k := range p {
			p[k] = line[i]
			i = (i + 1) % len(line)
		}
	}}
}

// A run costs by the batch, not by the line: a capture of a million
// 1-byte lines once held every line's slot in one batch (870 MB), and
// each malformed line cost eight allocations. Doubling the capture must
// add next to no allocations and no heap.
func TestRunCostPerLine(t *testing.T) {
	if testing.Short() {
		t.Skip("large inputs")
	}
	const mib = 1 << 20
	for _, workers := range []int{1, 2} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			cost := func(n int) (mallocs, peak uint64) {
				var before, after runtime.MemStats
				peak = peakHeap(func() {
					runtime.ReadMemStats(&before)
					_, reasons := runAll(t, repeatLine("x", n), Options{Workers: workers})
					runtime.ReadMemStats(&after)
					if reasons[ReasonMalformed] != n {
						t.Errorf("%d malformed of %d lines", reasons[ReasonMalformed], n)
					}
				})
				return after.Mallocs - before.Mallocs, peak
			}
			const n = 500_000
			m1, p1 := cost(n)
			m2, p2 := cost(2 * n)
			t.Logf("%d lines: %d allocations, heap %d MiB; %d lines: %d allocations, heap %d MiB", n, m1, p1/mib, 2*n, m2, p2/mib)
			if extra := int64(m2) - int64(m1); extra > n/100 {
				t.Errorf("%d more lines cost %d more allocations", n, extra)
			}
			if p2 > 16*mib {
				t.Errorf("heap peaked at %d MiB for %d lines of 1 byte", p2/mib, 2*n)
			}
		})
	}
}

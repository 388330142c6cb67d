package replay

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// genReader produces n bytes from fill without holding them, so a test can
// feed a capture far larger than it keeps in memory.
type genReader struct {
	left int64
	fill func(p []byte)
}

func (g *genReader) Read(p []byte) (int, error) {
	if g.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > g.left {
		p = p[:g.left]
	}
	g.fill(p)
	g.left -= int64(len(p))
	return len(p), nil
}

// peakHeap runs fn and samples the heap in use while it runs. It collects
// first, so that garbage of an earlier test does not set the GC's pace.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	fn()
	close(stop)
	<-done
	return peak.Load()
}

func runAll(t *testing.T, in io.Reader, opts Options) (Summary, map[Reason]int) {
	t.Helper()
	rd, err := Open([]string{"-"}, in, 0)
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[Reason]int{}
	sum, err := Run(rd, opts, func(r *Result) error { reasons[r.Reason]++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	return sum, reasons
}

// Hostile captures from issue 7: each is handled without a crash, every
// line gets a verdict, and memory stays bounded.
func TestLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("large inputs")
	}
	const mib = 1 << 20
	t.Run("200 MB line is malformed without being held", func(t *testing.T) {
		var reasons map[Reason]int
		peak := peakHeap(func() {
			g := &genReader{left: 200 * mib, fill: func(p []byte) {
				for i := range p {
					p[i] = 'x'
				}
			}}
			in := io.MultiReader(strings.NewReader(`{"a":"`), g, strings.NewReader("\"}\n"+snapshotLine("s", 1)+"\n"))
			_, reasons = runAll(t, in, Options{})
		})
		if reasons[ReasonMalformed] != 1 || reasons[ReasonInitial] != 1 {
			t.Fatalf("reasons %v", reasons)
		}
		// The reader holds at most --max-line (64 MiB) of the line, and
		// briefly twice that while its buffer grows: within the bound of
		// 64 MiB plus twice the longest line held.
		if peak > 192*mib {
			t.Fatalf("heap peaked at %d MiB for a line over --max-line", peak/mib)
		}
	})
	t.Run("long lines are not held once per batch in flight", func(t *testing.T) {
		const n, size = 12, 50 * mib
		var reasons map[Reason]int
		peak := peakHeap(func() {
			var parts []io.Reader
			for i := 0; i < n; i++ {
				g := &genReader{left: size, fill: func(p []byte) {
					for i := range p {
						p[i] = 'x'
					}
				}}
				parts = append(parts, strings.NewReader(`{"a":"`), g, strings.NewReader("\"}\n"))
			}
			_, reasons = runAll(t, io.MultiReader(parts...), Options{Workers: 2})
		})
		if reasons[ReasonMalformed] != n {
			t.Fatalf("reasons %v", reasons)
		}
		// The bound the README gives: 64 MiB plus twice the longest line.
		if peak > 64*mib+2*size {
			t.Fatalf("heap peaked at %d MiB for %d lines of %d MiB", peak/mib, n, size/mib)
		}
	})
	t.Run("1 GB of random bytes", func(t *testing.T) {
		r := rand.NewChaCha8([32]byte{7})
		var sum Summary
		peak := peakHeap(func() {
			g := &genReader{left: 1 << 30, fill: func(p []byte) { r.Read(p) }}
			sum, _ = runAll(t, g, Options{})
		})
		if sum.Counts.Events == 0 || sum.Counts.Reasons[ReasonMalformed] != sum.Counts.Events {
			t.Fatalf("counts %+v", sum.Counts)
		}
		if peak > 64*mib {
			t.Fatalf("heap peaked at %d MiB", peak/mib)
		}
	})
	t.Run("10 million nested brackets", func(t *testing.T) {
		deep := strings.Repeat("[", 10_000_000) + strings.Repeat("]", 10_000_000)
		lines := []string{
			deep,
			`{"protocol":"agentskit.chat.turn","version":2,"x":` + deep + `}`,
			strings.Replace(snapshotLine("s", 1), `"status":"complete","createdAt"`, `"metadata":{"a":`+deep+`},"status":"complete","createdAt"`, 1),
			strings.Repeat("{\"a\":", 1_000_000),
		}
		var reasons map[Reason]int
		peak := peakHeap(func() {
			_, reasons = runAll(t, strings.NewReader(strings.Join(lines, "\n")), Options{})
		})
		if reasons[ReasonMalformed] != 4 {
			t.Fatalf("reasons %v", reasons)
		}
		// The input itself is about 80 MB, held here; nesting costs a bit
		// per level, not a node.
		if peak > 256*mib {
			t.Fatalf("heap peaked at %d MiB", peak/mib)
		}
	})
	t.Run("100,000 sessions", func(t *testing.T) {
		var buf bytes.Buffer
		line := snapshotLine("s", 1)
		for i := 0; i < 100_000; i++ {
			buf.WriteString(strings.Replace(line, `"sessionId":"s"`, fmt.Sprintf(`"sessionId":"s%d"`, i), 1))
			buf.WriteByte('\n')
		}
		var sum Summary
		var reasons map[Reason]int
		peak := peakHeap(func() { sum, reasons = runAll(t, &buf, Options{}) })
		if reasons[ReasonInitial] != 100_000 || len(sum.Sessions) != 100_000 || !sum.PerSession {
			t.Fatalf("reasons %v, %d sessions", reasons, len(sum.Sessions))
		}
		// The capture (about 40 MB) is in memory here; per-session state
		// adds a few hundred bytes each.
		if peak > 160*mib {
			t.Fatalf("heap peaked at %d MiB", peak/mib)
		}
	})
	// A message record of 30 million tiny values, the same as a 6 KB
	// zstd bomb, and 10 million repeats of one key: the tape stops at a
	// fixed size, so only the reader's copy of the line counts.
	values := func() string {
		return strings.Replace(snapshotLine("s", 1), `"messages":[`, `"messages":[`+
			strings.Repeat(`[`+strings.Repeat(`0,`, 9998)+`0],`, 3000), 1)
	}
	for _, c := range []struct {
		name string
		in   func() ([]byte, int)
		want Reason
	}{
		{"30 million values in a message record", func() ([]byte, int) { v := values(); return []byte(v), len(v) }, ReasonMalformed},
		{"the same as a zstd bomb", func() ([]byte, int) {
			var bomb bytes.Buffer
			zw, _ := zstd.NewWriter(&bomb, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
			v := values()
			zw.Write([]byte(v))
			zw.Close()
			return bomb.Bytes(), len(v)
		}, ReasonMalformed},
		{"10 million repeated keys", func() ([]byte, int) {
			v := strings.Replace(snapshotLine("s", 1), `"status":"complete","createdAt"`,
				`"metadata":{`+strings.Repeat(`"a":0,`, 10_000_000)+`"a":0},"status":"complete","createdAt"`, 1)
			return []byte(v), len(v)
		}, ReasonInitial},
	} {
		t.Run(c.name, func(t *testing.T) {
			data, line := c.in()
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			base := ms.HeapInuse
			var reasons map[Reason]int
			peak := peakHeap(func() { _, reasons = runAll(t, bytes.NewReader(data), Options{Workers: 2}) })
			if reasons[c.want] != 1 {
				t.Fatalf("reasons %v", reasons)
			}
			// The bound the README gives: 64 MiB plus twice the longest line.
			if used := peak - base; used > uint64(64*mib+2*line) {
				t.Fatalf("heap grew by %d MiB for a %d MiB line", used/mib, line/mib)
			}
			runtime.KeepAlive(data)
		})
	}
}

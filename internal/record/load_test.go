package record

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentskit/snapctl/replay"
)

// loadLine is line i of stream s: a snapshot of session load-s.
func loadLine(s, i int) string {
	return fmt.Sprintf(`{"protocol":"agentskit.chat.turn","version":1,"eventId":"e-%d-%d","sessionId":"load-%d","turnId":"turn-1","sequence":%d,"emittedAt":"2026-12-01T08:45:53.617Z","event":"server.turn.snapshot","payload":{"messages":[],"status":"streaming","usage":{"promptTokens":0,"completionTokens":0,"totalTokens":0}}}`+"\n", s, i, s, i+2)
}

// loadUpstream streams the lines of the stream its URL names, made as
// they go (so that the test holds no body), in chunks of random length
// with a delay between.
func loadUpstream(lines int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var s int
		fmt.Sscanf(r.URL.Query().Get("s"), "%d", &s)
		rnd := rand.New(rand.NewPCG(uint64(s), 7))
		w.Header().Set("Content-Type", "application/x-ndjson")
		var buf []byte
		for i := 0; i < lines || len(buf) > 0; {
			n := 1 + rnd.IntN(700)
			for len(buf) < n && i < lines {
				buf = append(buf, loadLine(s, i)...)
				i++
			}
			n = min(n, len(buf))
			if _, err := w.Write(buf[:n]); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			buf = append(buf[:0], buf[n:]...)
			time.Sleep(100 * time.Microsecond)
		}
	})
}

// peakHeap samples the heap in use until stop is closed.
func peakHeap(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		var peak uint64
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-stop:
				out <- peak
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return out
}

// loadRun sends streams concurrent streams of lines lines through the
// proxy, checks that each client got its body whole, and returns the
// capture file and the peak heap in use above the heap before it.
func loadRun(t *testing.T, streams, lines int) (string, uint64) {
	// A low GC target keeps garbage from passing for memory held.
	defer debug.SetGCPercent(debug.SetGCPercent(20))
	r := startRig(t, loadUpstream(lines), Options{}, nil)
	r.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: streams}}
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	stop := make(chan struct{})
	peak := peakHeap(stop)
	var wg sync.WaitGroup
	var bad atomic.Int32
	for s := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := r.client.Post(fmt.Sprintf("%s/chat?s=%d", r.proxy, s), "application/json", bytes.NewReader([]byte(submit(fmt.Sprintf("load-%d", s), "turn-1", fmt.Sprintf("sub-%d", s)))))
			if err != nil {
				t.Error(err)
				bad.Add(1)
				return
			}
			defer res.Body.Close()
			br := bufio.NewReader(res.Body)
			for i := range lines {
				l, err := br.ReadString('\n')
				if err != nil || l != loadLine(s, i) {
					bad.Add(1)
					return
				}
			}
			if n, _ := io.Copy(io.Discard, br); n > 0 {
				bad.Add(1)
			}
		}()
	}
	wg.Wait()
	r.stop()
	close(stop)
	p := <-peak
	if n := bad.Load(); n > 0 {
		t.Fatalf("%d of %d clients did not get their body whole", n, streams)
	}
	if p < base.HeapInuse {
		return r.file, 0
	}
	return r.file, p - base.HeapInuse
}

// TestLoad sends 200 concurrent streams of 100 lines through the proxy
// on the loopback interface: every client gets its body whole; in the
// capture, every stream's lines are all there, in order, attributed to
// its exchange; and the heap in use (client, upstream and proxy in this
// process, GC target 20) stays within a fixed cost per open stream, with no term
// that grows with the lines recorded.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	const streams, lines = 200, 100
	file, peak := loadRun(t, streams, lines)
	rd, err := replay.Open([]string{file}, nil, replay.DefaultMaxLine)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	next := map[string]int{} // by session: the next line's index
	_, err = replay.Run(rd, replay.Options{}, func(res *replay.Result) error {
		o := res.Origin
		if o == nil || o.Sent || res.Event == nil {
			if o == nil || !o.Sent {
				t.Errorf("line %d: not a recorded line of a response: %+v", res.Line, res)
			}
			return nil
		}
		ev := res.Event
		i := next[ev.SessionID]
		if want := fmt.Sprintf("e-%s-%d", ev.SessionID[len("load-"):], i); ev.EventID != want || o.RequestSession != ev.SessionID {
			t.Errorf("line %d: %s of exchange %s, want %s: lost or reordered", res.Line, ev.EventID, o.RequestSession, want)
		}
		next[ev.SessionID] = i + 1
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for s := range streams {
		if n := next[fmt.Sprintf("load-%d", s)]; n != lines {
			t.Errorf("stream %d: %d lines in the capture, want %d", s, n, lines)
		}
	}
	// A fixed cost per open stream on each of its three sides (the
	// client's and the upstream's connections, and the proxy's two with
	// its 32 KiB copy buffer): 256 KiB is generous. The bodies total
	// 200 × 100 × 300 bytes = 6 MB, so a proxy that held what it
	// recorded would show.
	bound := uint64(streams) * 256 << 10
	t.Logf("peak heap in use above the start: %.1f MiB for %d streams of %d lines (bound %.1f MiB)", float64(peak)/(1<<20), streams, lines, float64(bound)/(1<<20))
	if peak > bound {
		t.Errorf("peak heap in use %d bytes over the start, over the bound of %d", peak, bound)
	}
}

// TestLoadLengthIndependent: streams 16 times as long cost no more
// memory, within 4 MiB (the longer bodies total 9.6 MB): nothing
// recorded is held.
func TestLoadLengthIndependent(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	_, short := loadRun(t, 20, 100)
	_, long := loadRun(t, 20, 1600)
	t.Logf("peak heap in use: %.1f MiB for 20 streams of 100 lines, %.1f MiB of 1600", float64(short)/(1<<20), float64(long)/(1<<20))
	if long > short+4<<20 {
		t.Errorf("20 streams of 1600 lines took %d bytes, of 100 lines %d: memory grows with the lines", long, short)
	}
}

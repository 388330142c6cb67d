package cmd

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/agentskit/snapctl/replay"
)

// BenchmarkExploreIndex measures opening a capture in the explorer: one
// pass that indexes every line, runs the cursor, and feeds the inspector
// and the lineage builder. SNAPCTL_BENCH_CAPTURE names a large capture
// (scripts/gencapture -size 300MB); without it, a sample is used.
func BenchmarkExploreIndex(b *testing.B) {
	file := os.Getenv("SNAPCTL_BENCH_CAPTURE")
	if file == "" {
		file = "../testdata/explore-sessions.jsonl"
	}
	st, err := os.Stat(file)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	var heap uint64
	for b.Loop() {
		rd, err := replay.Open([]string{file}, nil, 0)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		x, err := buildExploreIndex(rd, replay.Options{})
		rd.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "s/open")
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap = max(heap, ms.HeapAlloc)
		b.ReportMetric(float64(len(x.rows)), "rows")
		runtime.KeepAlive(x)
		x.close()
	}
	b.ReportMetric(float64(heap)/(1<<20), "MiB-live")
}

// BenchmarkExploreToggle measures what x costs: every verdict after the
// toggled line recomputed from the envelopes kept, with no line read or
// decoded again.
func BenchmarkExploreToggle(b *testing.B) {
	file := os.Getenv("SNAPCTL_BENCH_CAPTURE")
	if file == "" {
		file = "../testdata/explore-sessions.jsonl"
	}
	rd, err := replay.Open([]string{file}, nil, 0)
	if err != nil {
		b.Fatal(err)
	}
	x, err := buildExploreIndex(rd, replay.Options{})
	rd.Close()
	if err != nil {
		b.Fatal(err)
	}
	defer x.close()
	b.ReportMetric(float64(len(x.rows)), "rows")
	for b.Loop() {
		x.toggle(len(x.rows) / 2)
	}
}

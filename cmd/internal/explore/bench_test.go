package explore

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/internal/hostile"
	"github.com/agentskit/snapctl/replay"
)

// BenchmarkExploreIndex measures opening a capture in the explorer: one
// pass that indexes every line, runs the cursor, and feeds the inspector
// and the lineage builder. SNAPCTL_BENCH_CAPTURE names a large capture
// (scripts/gencapture -size 300MB); without it, a sample is used.
func BenchmarkExploreIndex(b *testing.B) {
	file := os.Getenv("SNAPCTL_BENCH_CAPTURE")
	if file == "" {
		file = "../../../testdata/explore-sessions.jsonl"
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
		b.ReportMetric(float64(x.len()), "rows")
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
		file = "../../../testdata/explore-sessions.jsonl"
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
	b.ReportMetric(float64(x.len()), "rows")
	for b.Loop() {
		x.toggle(x.len() / 2)
	}
}

// TestExploreBytesPerLine measures what the explorer keeps per line, its
// index and its list, on generated captures of two sizes: at most
// exploreLineBudget bytes a line at each, however long the lines and
// their ids (every event id is distinct, and none is kept).
func TestExploreBytesPerLine(t *testing.T) {
	for _, k := range []int{2000, 8000} {
		const sessions = 8
		lines := sessions * k
		name := filepath.Join(t.TempDir(), "capture.jsonl")
		f, err := os.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := hostile.WriteSessions(f, sessions, k, 64); err != nil {
			t.Fatal(err)
		}
		f.Close()
		ios, _, _ := iostreams.Test("")
		var x *exploreIndex
		kept := hostile.Retained(func() any {
			rd, err := replay.Open([]string{name}, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			if x, err = buildExploreIndex(rd, replay.Options{}); err != nil {
				t.Fatal(err)
			}
			return newExploreModel(x, ios.Palette(), false)
		})
		x.close()
		if x.len() != lines {
			t.Fatalf("%d rows, want %d", x.len(), lines)
		}
		perLine := float64(kept) / float64(lines)
		t.Logf("%d lines: %d bytes kept, %.1f a line", lines, kept, perLine)
		if perLine > exploreLineBudget {
			t.Errorf("%d lines: %.1f bytes kept a line, over %d", lines, perLine, exploreLineBudget)
		}
	}
}

// exploreLineBudget is the most the explorer may keep per line.
const exploreLineBudget = 64

// TestExploreBytesPerCitedLine measures what the explorer keeps per line
// of a capture whose every accepted line two findings cite
// (timestamp-sequence and sequence-gap), at two sizes: the marks cost a
// row index per finding and line, not a position.
func TestExploreBytesPerCitedLine(t *testing.T) {
	// Whole chunks of rows (a submit and n snapshots), so that the
	// measure is of the lines and not of a chunk's room.
	for _, n := range []int{2*rowChunk - 1, 4*rowChunk - 1} {
		file, _ := writeMsCapture(t, 1, n, 1000)
		ios, _, _ := iostreams.Test("")
		var x *exploreIndex
		kept := hostile.Retained(func() any {
			rd, err := replay.Open([]string{file}, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			if x, err = buildExploreIndex(rd, replay.Options{}); err != nil {
				t.Fatal(err)
			}
			return newExploreModel(x, ios.Palette(), false)
		})
		x.close()
		cited := 0
		for i := range x.len() {
			if x.row(i).cited() {
				cited++
			}
		}
		perLine := float64(kept) / float64(x.len())
		t.Logf("%d lines, %d cited: %d bytes kept, %.1f a line", x.len(), cited, kept, perLine)
		if cited < n/2 || perLine > exploreLineBudget {
			t.Errorf("%d lines, %d cited: %.1f bytes kept a line, over %d", x.len(), cited, perLine, exploreLineBudget)
		}
	}
}

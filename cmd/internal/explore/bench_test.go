package explore

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/internal/hostile"
	"github.com/agentskit/snapctl/internal/memlimit"
	"github.com/agentskit/snapctl/replay"
)

// benchCapture is the capture the benchmarks open: SNAPCTL_BENCH_CAPTURE
// (scripts/gencapture -size 300MB, or scripts/gensessions -sessions
// 200000 -snapshots 1 -size 16B), else a sample.
func benchCapture(b *testing.B) string {
	if file := os.Getenv("SNAPCTL_BENCH_CAPTURE"); file != "" {
		return file
	}
	return "../../../testdata/explore-sessions.jsonl"
}

// BenchmarkExploreIndex measures opening a capture in the explorer: one
// pass that indexes every line, runs the cursor, and feeds the inspector
// and the lineage builder.
func BenchmarkExploreIndex(b *testing.B) {
	file := benchCapture(b)
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
		x, err := buildExploreIndex(rd, replay.Options{}, false)
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

// BenchmarkExploreOpen measures what a user waits for: the view reading
// the capture behind it, as Run does (rows taken and the screen drawn at
// every tick), until it says the capture is read. It reports the wall
// and CPU seconds of that, and the peak resident memory it added, a
// session (where the fixed cost of the program is not counted: the high
// water mark is reset first, on Linux).
func BenchmarkExploreOpen(b *testing.B) {
	file := benchCapture(b)
	for b.Loop() {
		debug.FreeOSMemory() // what the last iteration held is not counted
		rss := resetPeakRSS()
		cpu := cpuTime()
		start := time.Now()
		rd, err := replay.Open([]string{file}, nil, 0)
		if err != nil {
			b.Fatal(err)
		}
		// The memory limit and the collector's pacing as the command
		// sets them (captureFlags.budget): without them the peak is that
		// of a run that does not exist, the garbage of the default pacing
		// on top of 200,000 sessions' state.
		memlimit.Limit(replay.DefaultMaxLine, 0)
		opts := replay.Options{Sessions: func(n int) { memlimit.Limit(replay.DefaultMaxLine, n) }}
		feed, err := startExploreFeed(rd, opts, nil, spoolsNone([]string{file}), false)
		if err != nil {
			b.Fatal(err)
		}
		x := &exploreIndex{open: map[int]*os.File{}}
		ios, _, _ := iostreams.Test("")
		m := newExploreModel(x, ios.Palette(), false)
		m.feed = feed
		m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		for m.feed != nil {
			time.Sleep(exploreTick)
			m.Update(exploreTickMsg{})
			m.View()
		}
		b.ReportMetric(time.Since(start).Seconds(), "s/open")
		b.ReportMetric((cpuTime() - cpu).Seconds(), "cpu-s/open")
		if peak := peakRSS(); rss > 0 && peak > 0 {
			b.ReportMetric(float64(peak-rss)/float64(len(x.ids)), "peak-B/session")
		}
		b.ReportMetric(float64(len(x.ids)), "sessions")
		rd.Close()
		x.close()
		debug.SetMemoryLimit(math.MaxInt64)
		debug.SetGCPercent(100)
	}
}

// BenchmarkExploreToggle measures x on the middle line and x again, as
// the user sees them: the key's Update and the screen drawn, with the
// verdicts judged again (ms/off, ms/on) and the rows that took
// (rows/toggle). The findings and tree follow on a goroutine
// (BenchmarkExploreWhatIf).
func BenchmarkExploreToggle(b *testing.B) {
	m := benchExplorer(b)
	defer m.x.close()
	m.selectRow(m.x.len() / 2)
	x := tea.KeyPressMsg{Code: 'x', Text: "x"}
	var off, on time.Duration
	rows := 0
	for b.Loop() {
		start := time.Now()
		m.Update(x)
		m.View()
		off += time.Since(start)
		rows += m.x.rejudged
		start = time.Now()
		m.Update(x)
		m.View()
		on += time.Since(start)
		rows += m.x.rejudged
	}
	b.ReportMetric(float64(off)/1e6/float64(b.N), "ms/off")
	b.ReportMetric(float64(on)/1e6/float64(b.N), "ms/on")
	b.ReportMetric(float64(rows)/float64(2*b.N), "rows/toggle")
	b.ReportMetric(float64(m.x.len()), "rows")
}

// BenchmarkExploreWhatIf measures the findings and tree of the capture
// without its middle line: the lines kept, read again and inspected on
// the goroutine a toggle starts.
func BenchmarkExploreWhatIf(b *testing.B) {
	m := benchExplorer(b)
	defer m.x.close()
	m.x.toggle(m.x.len() / 2)
	for b.Loop() {
		if msg := m.x.whatIfCmd(1)().(exploreWhatIfMsg); msg.err != nil {
			b.Fatal(msg.err)
		}
	}
}

// benchExplorer is the explorer of the benchmarks' capture, read.
func benchExplorer(b *testing.B) *exploreModel {
	ios, _, _ := iostreams.Test("")
	m := newExploreModel(openIndex(b, benchCapture(b), replay.Options{}), ios.Palette(), false)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	return m
}

// openIndex reads file into an index.
func openIndex(tb testing.TB, file string, opts replay.Options) *exploreIndex {
	tb.Helper()
	rd, err := replay.Open([]string{file}, nil, 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer rd.Close()
	x, err := buildExploreIndex(rd, opts, false)
	if err != nil {
		tb.Fatal(err)
	}
	return x
}

// retainedExplorer is the explorer of file, read, and the bytes it keeps
// (hostile.Retained); its files are closed.
func retainedExplorer(t *testing.T, file string) (int64, *exploreIndex) {
	ios, _, _ := iostreams.Test("")
	var x *exploreIndex
	kept := hostile.Retained(func() any {
		x = openIndex(t, file, replay.Options{})
		return newExploreModel(x, ios.Palette(), false)
	})
	x.close()
	return kept, x
}

// resetPeakRSS resets the process's high water mark of resident memory
// and returns the memory resident now, in bytes; 0 where Linux's
// /proc/self/clear_refs is not there.
func resetPeakRSS() int64 {
	if os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) != nil {
		return 0
	}
	return procStatus("VmRSS:")
}

// peakRSS is the high water mark of resident memory since resetPeakRSS.
func peakRSS() int64 { return procStatus("VmHWM:") }

// procStatus reads a figure in kB of /proc/self/status, in bytes.
func procStatus(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, field); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(rest), "%d", &kb)
			return kb << 10
		}
	}
	return 0
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
		kept, x := retainedExplorer(t, name)
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
		kept, x := retainedExplorer(t, file)
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

// TestExploreToggleWork counts the rows a toggle judges again, each line
// off and back on, on generated captures of two sizes: many sessions of
// a few lines, a few sessions of many lines, and those pinned to one
// session, where every line goes through the one cursor. The most a
// toggle judges must not grow with the capture: it stops where its
// cursor is back in the state it was in.
func TestExploreToggleWork(t *testing.T) {
	for _, c := range []struct {
		name        string
		sessions, k int
		session     string
		most        int
	}{
		{"many sessions", 1000, 2, "", 2},
		{"few sessions", 4, 500, "", 2},
		{"pinned", 4, 500, "s0", 5},
	} {
		var worst [2]int
		for size := range 2 {
			sessions, k := c.sessions, c.k
			if c.sessions > c.k {
				sessions <<= size
			} else {
				k <<= size
			}
			name := filepath.Join(t.TempDir(), "capture.jsonl")
			if err := os.WriteFile(name, hostile.Sessions(sessions, k, 16), 0o644); err != nil {
				t.Fatal(err)
			}
			x := openIndex(t, name, replay.Options{Session: c.session})
			for i := range x.len() {
				x.toggle(i)
				worst[size] = max(worst[size], x.rejudged)
				x.toggle(i)
				worst[size] = max(worst[size], x.rejudged)
			}
			x.close()
			t.Logf("%s: %d lines, a toggle judges at most %d rows", c.name, x.len(), worst[size])
		}
		if worst[1] > worst[0] || worst[1] > c.most {
			t.Errorf("%s: a toggle judges up to %d rows, then %d on twice the lines, want at most %d", c.name, worst[0], worst[1], c.most)
		}
	}
}

// TestExploreBytesPerSession measures what the explorer keeps of each
// session of a capture of one-line sessions, once read (its rows, the
// sessions' verdicts and lineage, the list), at two sizes: at most
// exploreSessionBudget bytes a session at each. The peak while reading
// is about twice that (BenchmarkExploreOpen's peak-B/session).
func TestExploreBytesPerSession(t *testing.T) {
	for _, n := range []int{5000, 10000} {
		name := filepath.Join(t.TempDir(), "capture.jsonl")
		if err := os.WriteFile(name, hostile.Sessions(n, 1, 16), 0o644); err != nil {
			t.Fatal(err)
		}
		kept, x := retainedExplorer(t, name)
		if len(x.ids) != n {
			t.Fatalf("%d sessions, want %d", len(x.ids), n)
		}
		perSession := float64(kept) / float64(n)
		t.Logf("%d sessions: %d bytes kept, %.1f a session", n, kept, perSession)
		if perSession > exploreSessionBudget {
			t.Errorf("%d sessions: %.1f bytes kept a session, over %d", n, perSession, exploreSessionBudget)
		}
	}
}

// exploreSessionBudget is the most the explorer may keep per session of
// one line once the capture is read.
const exploreSessionBudget = 1024

package cmd

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentskit/snapctl/replay"
	"github.com/klauspost/compress/zstd"
)

// completionBudgetCase is a capture completion must answer on within
// its budget, and the session ids it finds before the budget ends.
type completionBudgetCase struct {
	name string
	file string
	want []string
}

// TestCompletionWithinBudget runs id completion on captures that never
// end or hold far more than the budget, and checks that it comes back
// with what it found, having read and allocated a bounded amount: bytes
// are counted, not time. A hang fails at the guard instead of blocking.
func TestCompletionWithinBudget(t *testing.T) {
	const budget = 1 << 20
	const huge = 64 << 20 // bytes of text behind every hostile capture
	dir := t.TempDir()
	clean, err := os.ReadFile("../testdata/clean.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	found := []string{"session-7f3a\t14 events"}
	cases := []completionBudgetCase{
		{"endless line", write("endless.jsonl", append(slices.Clone(clean), make([]byte, huge)...)), found},
		{"zstd bomb", write("bomb.jsonl.zst", zstdBomb(t, clean, huge)), found},
		{"gzip bomb", write("bomb.jsonl.gz", gzipBomb(t, clean, huge)), found},
		{"HAR with a huge entry", write("huge.har", hugeHAR(t, huge)), nil},
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases = append(cases, completionBudgetCase{"device", "/dev/zero", nil})
	}
	cases = append(cases, fifoCase(t, dir)...)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			done := make(chan struct{})
			var ids []string
			var st replay.Stats
			go func() {
				defer close(done)
				ids, st = completeIDs([]string{tc.file}, idQuery{}, replay.Budget{Bytes: budget, Deadline: time.Now().Add(time.Minute)})
			}()
			select {
			case <-done:
			case <-time.After(2 * time.Minute):
				t.Fatal("completion did not return")
			}
			runtime.ReadMemStats(&after)
			if !slices.Equal(ids, tc.want) {
				t.Errorf("completed %q, want %q", ids, tc.want)
			}
			if st.Bytes > budget {
				t.Errorf("read %d bytes, over the %d-byte budget", st.Bytes, budget)
			}
			// A zstd decoder allocates its window (8 MiB here) whatever the budget.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16*budget {
				t.Errorf("allocated %d bytes for a %d-byte budget", alloc, budget)
			}
		})
	}
}

// zstdBomb is lines followed by n zero bytes, compressed to a few KiB.
func zstdBomb(t *testing.T, lines []byte, n int) []byte {
	var b bytes.Buffer
	zw, err := zstd.NewWriter(&b, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(lines)
	zw.Write(make([]byte, n))
	zw.Close()
	return b.Bytes()
}

// gzipBomb is lines followed by n zero bytes, gzipped.
func gzipBomb(t *testing.T, lines []byte, n int) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write(lines)
	zw.Write(make([]byte, n))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// hugeHAR is a HAR document whose first entry's body is n bytes long.
func hugeHAR(t *testing.T, n int) []byte {
	entry := map[string]any{"startedDateTime": "2026-07-11T03:00:00Z",
		"request":  map[string]any{"url": "https://chat.example/turn"},
		"response": map[string]any{"content": map[string]any{"text": strings.Repeat("x", n)}}}
	b, err := json.Marshal(map[string]any{"log": map[string]any{"version": "1.2", "entries": []any{entry}}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

package replay

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestPipelineReusesLongLineBuffers checks that the pipeline's batches do
// not cost an allocation of the reader's buffer for each line longer than
// a read (readSize), up to a batch: the bytes allocated by a run grow by
// less than half what the lines added, from n lines to 2n (other
// goroutines of the suite allocate some meanwhile). A
// buffer grown for such lines was not pooled, and the reader started the
// next line in a readSize one and grew it again: some 2.5 bytes allocated
// a byte read (peak RSS of inspect on 300 KiB lines 83-127 MB on four
// cores, 17 MB on one).
func TestPipelineReusesLongLineBuffers(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{300 << 10, 700 << 10, batchBytes - 64} {
		line := `{"padding":"` + strings.Repeat("w", size) + `"}` + "\n"
		alloc := func(n int) uint64 {
			name := filepath.Join(dir, "c.jsonl")
			if err := os.WriteFile(name, []byte(strings.Repeat(line, n)), 0o644); err != nil {
				t.Fatal(err)
			}
			rd, err := Open([]string{name}, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if _, err := Run(rd, Options{Workers: 4}, func(*Result) error { return nil }); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			return after.TotalAlloc - before.TotalAlloc
		}
		const n = 40
		one, two := alloc(n), alloc(2*n)
		if added := uint64(n * len(line)); two > one && two-one > added/2 {
			t.Errorf("lines of %d bytes: %d lines allocate %d bytes, %d lines %d: %.2f bytes a byte read", size, n, one, 2*n, two, float64(two-one)/float64(added))
		}
	}
}

package replay

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// TestBudgetStopsReading checks that a Budget ends every capture shape
// where it says, whatever its lines: a line that never ends, a
// decompression bomb, a past deadline.
func TestBudgetStopsReading(t *testing.T) {
	dir := t.TempDir()
	lines := snapshotLine("s1", 1) + "\n" + snapshotLine("s1", 2) + "\n"
	endless := lines + strings.Repeat("x", 8<<20) // one line that never ends
	var bomb bytes.Buffer
	zw, _ := zstd.NewWriter(&bomb, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	zw.Write([]byte(lines))
	zw.Write(make([]byte, 64<<20))
	zw.Close()
	const limit = 1 << 20
	for _, tc := range []struct {
		name   string
		data   []byte
		budget Budget
		events int // the two lines, and the cut one the budget ends
	}{
		{"endless line", []byte(endless), Budget{Bytes: limit}, 3},
		{"zstd bomb", bomb.Bytes(), Budget{Bytes: limit}, 3},
		{"past deadline", []byte(lines), Budget{Deadline: time.Now().Add(-time.Second)}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
			if err := os.WriteFile(name, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			rd, err := Open([]string{name}, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			rd.SetBudget(tc.budget)
			events := 0
			for {
				if _, err := rd.Next(); errors.Is(err, io.EOF) {
					break
				}
				events++
			}
			st := rd.Stats()
			if events != tc.events || !st.Stopped {
				t.Errorf("read %d lines, stopped %v; want %d, true", events, st.Stopped, tc.events)
			}
			if st.Bytes > limit {
				t.Errorf("read %d bytes past the %d-byte budget", st.Bytes, limit)
			}
		})
	}
}

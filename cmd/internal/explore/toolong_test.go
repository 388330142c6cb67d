package explore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentskit/snapctl/internal/samples"
	"github.com/agentskit/snapctl/replay"
)

// TestTooLongRowKeepsItsLength checks that the row of a line over
// --max-line keeps the line's real length (Result.Size is Line.Len for
// it, not the length of the text never held), which the decode error of
// the row judged again names, on both feeds.
func TestTooLongRowKeepsItsLength(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(samples.Dir(), "reconnect.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	long := `{"pad":"` + strings.Repeat("x", 5000) + `"}`
	name := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(name, []byte(first+"\n"+long+"\n"+first+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, every := range []bool{false, true} {
		x := indexOfMax(t, name, 1000, every)
		if x.len() != 3 || !x.rows.at(1).tooLong() {
			t.Fatalf("every core %v: %d rows, the second too long %v", every, x.len(), x.len() > 1 && x.rows.at(1).tooLong())
		}
		if got := x.rows.at(1).size; got != uint32(len(long)) {
			t.Errorf("every core %v: the row of a line of %d bytes over --max-line has size %d", every, len(long), got)
		}
	}
}

// indexOfMax is indexOf on one file read with a --max-line of maxLine.
func indexOfMax(t *testing.T, name string, maxLine int, onEveryCore bool) *exploreIndex {
	t.Helper()
	rd, err := replay.Open([]string{name}, nil, maxLine)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	opts := replay.Options{MaxLine: maxLine}
	if !onEveryCore {
		x, err := buildExploreIndex(rd, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(x.close)
		return x
	}
	feed, err := startExploreFeed(rd, opts, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	x := &exploreIndex{open: map[int]*os.File{}}
	t.Cleanup(x.close)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(time.Millisecond) {
		_, done, err := feed.take(x)
		if err != nil {
			t.Fatal(err)
		}
		if done {
			return x
		}
		if time.Now().After(deadline) {
			t.Fatal("the feed did not end")
		}
	}
}

package replay

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// briefMix writes captures for a run that decodes no messages, whose
// batches in a mapping each take one of the pipeline's slots: mapped
// ones with short lines, lines past a batch (sent alone, and held while
// fn reads a malformed one), and an unmapped (gzip) one between them, so
// that batches begin in a mapping and end outside it, and the other way.
func briefMix(t *testing.T) []string {
	dir := t.TempDir()
	ev := snapshotLine("s", 1) + "\n"
	var a strings.Builder
	for i := 0; a.Len() < 3*mapWindow; i++ {
		switch i % 500 {
		case 7:
			a.WriteString(`{"bad":"` + strings.Repeat("x", batchBytes+i) + "\n") // malformed, long
		case 300:
			a.WriteString(`{"pad":"` + strings.Repeat("y", batchBytes+1) + `"}` + "\n")
		default:
			a.WriteString(ev)
		}
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(a.String()))
	zw.Close()
	names := writeCases(t, dir, map[string]string{"a": a.String(), "small": ev + ev + `{"bad"` + "\n"})
	gzName := filepath.Join(dir, "a.jsonl.gz")
	if err := os.WriteFile(gzName, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{names[0], gzName, names[1], names[0], gzName, names[0]}
}

// TestMappedBriefMix runs a mix of mapped and unmapped captures without
// messages, or with brief ones, on two and four decoders, mapped and
// read: both report the
// same, and the run ends (the reader never waits for a slot that no
// batch in flight gives back).
func TestMappedBriefMix(t *testing.T) {
	files := briefMix(t)
	for _, workers := range []int{2, 4} {
		// The last as inspect and lineage read: brief messages, borrowed
		// from the batch, in the larger batches too.
		for _, o := range []Options{{Workers: workers, RawMalformed: true}, {Workers: workers},
			{Workers: workers, Messages: true, BriefMessages: true, BorrowMessages: true, Hash: true}} {
			sameMappedRead(t, "mix", files, o)
		}
	}
}

// TestMappedBriefAbort stops a run without messages by an error from fn
// at lines all through the mix: Run returns the error, and once its
// goroutines are gone nothing is left mapped.
func TestMappedBriefAbort(t *testing.T) {
	files := briefMix(t)
	defer mappedAs(true)()
	stop := errors.New("enough")
	for _, w := range []int{briefWorkers, 4} {
		for _, at := range []int{1, 2, 8, 9, 301, 302, 600, 1000, 1100, 1532} {
			briefAbort(t, files, w, at, stop)
		}
	}
}

func briefAbort(t *testing.T, files []string, workers, at int, stop error) {
	t.Helper()
	base := runtime.NumGoroutine()
	rd, err := Open(files, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	_, err = Run(rd, Options{Workers: workers, RawMalformed: true}, func(*Result) error {
		if n++; n == at {
			return stop
		}
		return nil
	})
	if err != stop {
		t.Fatalf("%d workers, stop at %d: %v after %d lines", workers, at, err, n)
	}
	if left := mappingsLeft(rd, base); left != 0 {
		t.Errorf("%d workers, stop at %d: %d mappings left", workers, at, left)
	}
}

// TestMappedBriefAbortBehind stops a run without messages at its first
// line, after a pause in which the reader takes every slot and waits for
// one more: it must leave that wait when Run stops (mappingsLeft waits
// for its goroutines to end, which a reader still waiting never does).
func TestMappedBriefAbortBehind(t *testing.T) {
	files := briefMix(t)
	defer mappedAs(true)()
	base := runtime.NumGoroutine()
	rd, err := Open(files, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("enough")
	_, err = Run(rd, Options{Workers: briefWorkers}, func(*Result) error {
		time.Sleep(20 * time.Millisecond) // the reader runs ahead meanwhile
		return stop
	})
	if err != stop {
		t.Fatalf("%v, want the error of fn", err)
	}
	if left := mappingsLeft(rd, base); left != 0 {
		t.Errorf("%d mappings left", left)
	}
}

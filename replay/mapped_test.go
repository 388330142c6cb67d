package replay

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentskit/snapctl/internal/samples"
)

// mappedRun is what a run delivers and reports, strings copied.
type mappedRun struct {
	Results  []pipelineResult
	Summary  string
	Err      string
	Warnings []string
	Stored   []StoredFile
}

// runMapped runs files with or without mapping them, on workers
// goroutines, hashing what it reads (see attackRun).
func runMapped(t *testing.T, files []string, maxLine, workers int, mapped bool) mappedRun {
	t.Helper()
	return attackRun(t, files, Options{Workers: workers, Messages: true, BorrowMessages: true, RawMalformed: true, MaxLine: maxLine}, mapped)
}

// TestMappedReadsAsRead reads every capture in testdata, and captures
// many times the mapping's window long, mapped and read, on one core and
// on four, and compares all that a run delivers and reports: results,
// counts, damage, warnings and the hash of each file. Lines cross the
// window's moves, and the pages behind it are given back as it goes.
func TestMappedReadsAsRead(t *testing.T) {
	var pool []string
	for _, name := range []string{"reconnect.jsonl", "interleaved.jsonl", "lineage-operations.jsonl", "explore-malformed.jsonl"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		pool = append(pool, strings.Split(strings.TrimSpace(string(data)), "\n")...)
	}
	rnd := rand.New(rand.NewPCG(3, 4))
	dir := t.TempDir()
	var long []string
	for f := 0; f < 2; f++ {
		var b bytes.Buffer
		for b.Len() < 2*(keepMapped+dropSpan+mapWindow)+rnd.IntN(mapWindow) {
			switch k := rnd.IntN(200); {
			case k == 0:
				// Longer than a window.
				fmt.Fprintf(&b, `{"padding":"%s"}`, strings.Repeat("y", mapWindow+rnd.IntN(mapWindow)))
			case k < 10:
				b.WriteString(pool[rnd.IntN(len(pool))] + "\r")
			default:
				b.WriteString(pool[rnd.IntN(len(pool))])
			}
			b.WriteByte('\n')
		}
		if f == 1 {
			b.WriteString(pool[0][:len(pool[0])/2]) // no newline at the end
		}
		name := filepath.Join(dir, fmt.Sprintf("long%d.jsonl", f))
		if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		long = append(long, name)
	}
	runs := [][]string{long, {long[1], long[0], long[1]}}
	for _, c := range samples.All(t) {
		runs = append(runs, []string{c})
	}
	for _, files := range runs {
		for _, maxLine := range []int{0, 64 << 10} {
			for _, workers := range []int{1, 4} {
				read, mapped := runMapped(t, files, maxLine, workers, false), runMapped(t, files, maxLine, workers, true)
				if !reflect.DeepEqual(read, mapped) {
					for i := range min(len(read.Results), len(mapped.Results)) {
						if read.Results[i] != mapped.Results[i] {
							t.Fatalf("%v, max line %d, %d workers: result %d differs:\nread:   %+v\nmapped: %+v", files, maxLine, workers, i, read.Results[i], mapped.Results[i])
						}
					}
					read.Results, mapped.Results = read.Results[len(read.Results):], mapped.Results[len(mapped.Results):]
					t.Fatalf("%v, max line %d, %d workers:\nread:   %+v\nmapped: %+v", files, maxLine, workers, read, mapped)
				}
			}
		}
	}
}

// TestMappedTruncated truncates a mapped capture while it is read: on
// one core the reader meets the missing bytes, on four the decoders and
// fn may too. The run ends without a panic, delivers a prefix of the
// capture's lines (the bytes of a line past the cut as the file now has
// them), and reports the capture damaged.
func TestMappedTruncated(t *testing.T) {
	needsMapping(t)
	var b bytes.Buffer
	for i := 0; b.Len() < 4*mapWindow; i++ {
		// Malformed lines, so that fn reads their text too.
		fmt.Fprintf(&b, `{"n":%d,"text":"%s"}`+"\n", i, strings.Repeat("x", i%3000))
	}
	whole := b.Bytes()
	dir := t.TempDir()
	for _, workers := range []int{1, 4} {
		for _, cut := range []int{0, 2*mapWindow + 77, len(whole) - 4096} {
			name := filepath.Join(dir, fmt.Sprintf("cut-%d-%d.jsonl", workers, cut))
			if err := os.WriteFile(name, whole, 0o644); err != nil {
				t.Fatal(err)
			}
			rd, err := Open([]string{name}, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			var raws []string
			_, err = Run(rd, Options{Workers: workers, RawMalformed: true}, func(res *Result) error {
				if len(raws) == 0 {
					if err := os.Truncate(name, int64(cut)); err != nil {
						t.Fatal(err)
					}
				}
				raws = append(raws, string(res.Raw))
				return nil
			})
			rd.Close()
			if err != nil && !errors.Is(err, errVanished) {
				t.Fatalf("%d workers, cut at %d: %v", workers, cut, err)
			}
			if err == nil && rd.Err() == nil {
				t.Fatalf("%d workers, cut at %d: %d lines and no damage", workers, cut, len(raws))
			}
			if dmg := rd.Err(); dmg != nil && !errors.Is(dmg, errVanished) {
				t.Fatalf("%d workers, cut at %d: %v", workers, cut, dmg)
			}
			// A line is the capture's as it was, but for one the reader
			// had found whole before the cut and a decoder or fn read
			// after it: past the file's new end, the rest of its last page
			// reads as zeros (malformed: a NUL is valid nowhere in JSON),
			// and pages past it fault (the line is lost, the capture
			// damaged).
			lines := strings.Split(string(whole), "\n")
			off := 0
			for i, r := range raws {
				if r != lines[i] {
					kept := lines[i][:min(len(lines[i]), max(0, cut-off))]
					if off+len(lines[i]) <= cut || r != kept+strings.Repeat("\x00", len(lines[i])-len(kept)) {
						t.Fatalf("%d workers, cut at %d: line %d is %.40q, want %.40q", workers, cut, i+1, r, lines[i])
					}
				}
				off += len(lines[i]) + 1
			}
		}
	}
}

// TestMappedGrown appends to a mapped capture while it is read: the
// lines past the mapping's end are read as from any file.
func TestMappedGrown(t *testing.T) {
	line := `{"protocol":"agentskit.chat.turn","version":1}` + "\n"
	first := strings.Repeat(line, 6*mapWindow/len(line))
	more := strings.Repeat(line, 1000)
	for _, workers := range []int{1, 4} {
		name := filepath.Join(t.TempDir(), "grown.jsonl")
		if err := os.WriteFile(name, []byte(first+line[:10]), 0o644); err != nil {
			t.Fatal(err)
		}
		rd, err := Open([]string{name}, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		if _, err := Run(rd, Options{Workers: workers, RawMalformed: true}, func(res *Result) error {
			if n == 0 {
				f, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(line[10:] + more)
				f.Close()
			}
			if n++; string(res.Raw) != strings.TrimSuffix(line, "\n") {
				t.Fatalf("line %d: %q", n, res.Raw)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		rd.Close()
		if want := strings.Count(first+more, "\n") + 1; n != want || rd.Err() != nil {
			t.Fatalf("%d workers: %d lines (%v), want %d", workers, n, rd.Err(), want)
		}
	}
}

// FuzzMapped reads any bytes from a file, mapped and read, and compares
// all that the runs deliver and report. The window is a few bytes to a
// few KiB and a page of the mapping is kept behind it, so that lines
// cross many moves of the window and pages are given back under them.
func FuzzMapped(f *testing.F) {
	f.Add([]byte(`{"a":1}`+"\n\r\n"+`{"event":"x"}`), uint16(3), uint16(0), false)
	f.Add([]byte("data: {}\n\ndata: x\n"), uint16(1), uint16(5), true)
	f.Add([]byte("\xef\xbb\xbf"+strings.Repeat(`{"protocol":"agentskit.chat.turn"}`+"\n", 400)), uint16(100), uint16(40), true)
	f.Fuzz(func(t *testing.T, data []byte, window, maxLine uint16, many bool) {
		defer func(w, k, d int) { mapWindow, keepMapped, dropSpan = w, k, d }(mapWindow, keepMapped, dropSpan)
		mapWindow, keepMapped = 1+int(window)%8192, os.Getpagesize()
		dropSpan = mapWindow
		name := filepath.Join(t.TempDir(), "capture")
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		workers := 1
		if many {
			workers = 4
		}
		opts := Options{Workers: workers, Messages: true, BorrowMessages: true, RawMalformed: true, MaxLine: int(maxLine)}
		sameMappedRead(t, fmt.Sprintf("window %d", mapWindow), []string{name}, opts)
	})
}

// TestMappedLetGoOfCaptureByCapture runs hundreds of captures: each is
// unmapped once no line of it is read any more, so that a run of many
// files never holds more mappings than the batches in flight can cite
// (the kernel allows some 65,000 a process).
func TestMappedLetGoOfCaptureByCapture(t *testing.T) {
	defer func(old int) { mapMin = old }(mapMin)
	mapMin = 64 << 10
	dir := t.TempDir()
	var names []string
	line := `{"event":"x","pad":"` + strings.Repeat("p", 500) + `"}` + "\n"
	for i := 0; i < 200; i++ {
		name := filepath.Join(dir, fmt.Sprintf("c%d.jsonl", i))
		if err := os.WriteFile(name, []byte(strings.Repeat(line, mapMin/len(line)+1+i%7)), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	for _, c := range []struct {
		workers  int
		messages bool
	}{{1, false}, {briefWorkers, false}, {4, false}, {4, true}} {
		workers := c.workers
		rd, err := Open(names, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		most, lines := 0, 0
		if _, err := Run(rd, Options{Workers: workers, Messages: c.messages}, func(*Result) error {
			rd.maps.mu.Lock()
			most = max(most, len(rd.maps.maps))
			rd.maps.mu.Unlock()
			lines++
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		left := len(rd.maps.maps)
		rd.Close()
		// The batches in flight and the one being filled hold lines of
		// this many captures at most, each one mapMin long or more.
		bound := (batchesInFlight+2)*mappedBatchBytes/mapMin + 2
		if !c.messages && workers > 1 && workers <= briefWorkers {
			bound = (briefBatches+2)*(batchesInFlight/briefBatches*mappedBatchBytes)/mapMin + 2
		}
		if lines == 0 || most > bound || left != 0 {
			t.Fatalf("%d workers, messages %v: %d lines, up to %d mappings at once (at most %d), %d left", workers, c.messages, lines, most, bound, left)
		}
	}
}

// TestMappedGrownAfterFakeHeader appends to a mapped capture whose first
// bytes look like gzip but are plain lines, read again from the start
// (rewind): the bytes kept for the rewind are not delivered a second time
// when the file is read on past the mapping.
func TestMappedGrownAfterFakeHeader(t *testing.T) {
	line := `{"protocol":"agentskit.chat.turn","version":1}` + "\n"
	head := "\x1f\x8b\x08\x08\x00\x00\x00\x00\x00\x03junk\n"
	for _, workers := range []int{1, 4} {
		for _, mapped := range []bool{false, true} {
			func() {
				defer mappedAs(mapped)()
				name := filepath.Join(t.TempDir(), "fake.jsonl")
				// Longer than the batches in flight, so that the reader is
				// still in the mapping when fn appends.
				n0 := 6 * mapWindow / len(line)
				if err := os.WriteFile(name, []byte(head+strings.Repeat(line, n0)), 0o644); err != nil {
					t.Fatal(err)
				}
				rd, err := Open([]string{name}, nil, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer rd.Close()
				n := 0
				if _, err := Run(rd, Options{Workers: workers}, func(*Result) error {
					if n++; n == 1 {
						f, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
						if err != nil {
							t.Fatal(err)
						}
						f.WriteString(strings.Repeat(line, 10))
						f.Close()
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				if want := 1 + n0 + 10; n != want || rd.Err() != nil {
					t.Fatalf("%d workers, mapped %v: %d lines (%v), want %d", workers, mapped, n, rd.Err(), want)
				}
			}()
		}
	}
}

// TestMappedFaultsExplained: a runtime error met while a mapped line was
// read is taken for the capture changing under the mapping only when its
// file changed since it was mapped; on a file as it was, it is a bug.
func TestMappedFaultsExplained(t *testing.T) {
	name := filepath.Join(t.TempDir(), "c.jsonl")
	if err := os.WriteFile(name, []byte(strings.Repeat("x\n", 5000)), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	m := mapFile(f, fi.Size())
	if m == nil {
		t.Skip("no mapping here")
	}
	var ms mappings
	ms.add(m, name, fi)
	defer ms.release()
	var bounds any
	func() {
		defer func() { bounds = recover() }()
		var s []byte
		_ = s[len(m)]
	}()
	if ms.explains(bounds, name) || ms.explains(errors.New("not a runtime error"), name) {
		t.Fatal("a runtime error on an unchanged file is taken for a change")
	}
	if ms.explains(bounds, "another.jsonl") {
		t.Fatal("a runtime error on another file is taken for a change")
	}
	later := fi.ModTime().Add(time.Second)
	if err := os.Chtimes(name, later, later); err != nil {
		t.Fatal(err)
	}
	if !ms.explains(bounds, name) {
		t.Fatal("a runtime error on a file written since it was mapped is not taken for the change")
	}
}

package cmd

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/report"
	"github.com/agentskit/snapctl/internal/hostile"
	"github.com/agentskit/snapctl/internal/poison"
	"github.com/agentskit/snapctl/internal/samples"
	"github.com/agentskit/snapctl/replay"
)

// TestReportBorrowsNothing checks that the report's run of borrowed
// messages (collectReport with borrow, as reportRun runs it) gives the
// page a run of copies gives, while every line is overwritten as soon as
// its results are delivered: a string the inspector, the collector, the
// lineage builder or the differ kept without copying it would show as
// the overwritten bytes on the page. On every capture in testdata and on
// one of many batches, on one core and on several, with and without
// --all-events and --redact.
func TestReportBorrowsNothing(t *testing.T) {
	poison.Released = true
	defer func() { poison.Released = false }()
	page := func(name string, procs int, borrow, all, redact bool) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		o := pageOptions(name)
		o.AllEvents, o.Redact = all, redact
		var b bytes.Buffer
		if err := report.WritePage(&b, pageOf(t, o, borrow)); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	captures := append(samples.All(t), samples.Long(t))
	for _, c := range captures {
		for _, flags := range [][2]bool{{false, false}, {true, false}, {false, true}} {
			want := page(c, 1, false, flags[0], flags[1])
			for _, procs := range []int{1, 4} {
				if got := page(c, procs, true, flags[0], flags[1]); got != want {
					i := 0
					for i < len(got) && i < len(want) && got[i] == want[i] {
						i++
					}
					t.Errorf("%s, GOMAXPROCS %d, --all-events %v, --redact %v: borrowed messages give another page, from byte %d:\n got %.200q\nwant %.200q",
						c, procs, flags[0], flags[1], i, got[i:], want[i:])
				}
			}
		}
	}
}

// failAfter is a writer that takes n bytes, then fails.
type failAfter struct{ n int }

var errFull = errors.New("disk full")

func (f *failAfter) Write(b []byte) (int, error) {
	if len(b) > f.n {
		n := f.n
		f.n = 0
		return n, errFull
	}
	f.n -= len(b)
	return len(b), nil
}

// TestWritePageFails checks that a page whose writer fails, at any point
// of the sessions drawn ahead of it, returns the writer's error and
// leaves no goroutine behind, on one core and on several; and that the
// page written whole is the same with one core as with several.
func TestWritePageFails(t *testing.T) {
	name := filepath.Join(t.TempDir(), "twenty.jsonl")
	if err := os.WriteFile(name, hostile.Sessions(20, 4, 200), 0o644); err != nil {
		t.Fatal(err)
	}
	p := pageOf(t, pageOptions(name), true)
	write := func(procs int) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		var b bytes.Buffer
		if err := report.WritePage(&b, p); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	whole := write(1)
	if n := strings.Count(whole, `<section class="session"`); n != 16 {
		t.Fatalf("%d sessions drawn, want 16", n)
	}
	if write(4) != whole {
		t.Error("the page written on four cores is not the page written on one")
	}
	before := runtime.NumGoroutine()
	for _, procs := range []int{1, 4} {
		func() {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			for _, n := range []int{0, 100, len(whole) / 3, len(whole) / 2, len(whole) - 10} {
				if err := report.WritePage(&failAfter{n}, p); !errors.Is(err, errFull) {
					t.Errorf("GOMAXPROCS %d, writer failing after %d bytes: %v, want %v", procs, n, err, errFull)
				}
			}
		}()
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines left behind by failed writes", n-before)
	}
}

// pageOptions are a report's options on the captures files, with a fixed
// clock.
func pageOptions(files ...string) *reportOptions {
	ios, _, _ := iostreams.Test("")
	o := &reportOptions{IO: ios, Now: func() time.Time { return time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC) }}
	o.Files, o.MaxLine = files, replay.DefaultMaxLine
	return o
}

// pageOf is the page reportRun builds with o, its messages borrowed or
// copied.
func pageOf(t *testing.T, o *reportOptions, borrow bool) *report.Page {
	t.Helper()
	rd, err := replay.Open(o.Files, nil, o.MaxLine)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	got, err := collectReport(o, rd, borrow)
	if err != nil {
		t.Fatalf("%s: %v", o.Files, err)
	}
	return report.BuildPage(report.PageOptions{Generated: o.Now(), Version: version(), Redact: o.Redact, AllEvents: o.AllEvents},
		report.FilesOf(rd.Stored()), got.in.Finish(got.sum), got.lb.Finish(), got.col)
}

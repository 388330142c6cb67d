package explore

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/agentskit/snapctl/internal/poison"
	"github.com/agentskit/snapctl/internal/samples"
	"github.com/agentskit/snapctl/replay"
)

// TestFeedOnEveryCore checks that the feed of captures decoded on every
// core (startExploreFeed onEveryCore, for captures spoolsNone) makes the
// index buildExploreIndex makes one line at a time: every row, file,
// session, turn, HAR entry, finding, citation, verdict and lineage, and
// the bytes each row reads again, while every line is overwritten once
// delivered (its messages are borrowed: a string the model kept of one
// would show as the overwritten bytes). On every capture in testdata that
// spools none, a long one and two files together, with one cursor per
// session and pinned, whole and in a window of lines, on two cores and
// on four.
func TestFeedOnEveryCore(t *testing.T) {
	var captures [][]string
	for _, c := range append(samples.All(t), samples.Long(t)) {
		if spoolsNone([]string{c}) {
			captures = append(captures, []string{c})
		}
	}
	captures = append(captures, []string{filepath.Join(samples.Dir(), "reconnect.jsonl"), filepath.Join(samples.Dir(), "explore-sessions.jsonl")})
	if len(captures) < 20 {
		t.Fatalf("only %d captures spool none", len(captures))
	}
	window := &replay.Window{Lines: []replay.LineRange{{First: 3, Last: 40}}}
	for _, files := range captures {
		for _, opts := range []replay.Options{{}, {Session: "session-7f3a"}, {Window: window}} {
			want := indexOf(t, files, opts, false, 1)
			for _, procs := range []int{2, 4} {
				got := indexOf(t, files, opts, true, procs)
				name := fmt.Sprintf("%s, session %q, window %v, GOMAXPROCS %d", filepath.Base(files[0]), opts.Session, opts.Window != nil, procs)
				sameIndex(t, name, got, want)
			}
		}
	}
}

// indexOf reads files into an index (with opts.MaxLine as --max-line):
// through the feed, decoded on every core, or with buildExploreIndex.
func indexOf(t *testing.T, files []string, opts replay.Options, onEveryCore bool, procs int) *exploreIndex {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	rd, err := replay.Open(files, nil, opts.MaxLine)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	if !onEveryCore {
		x, err := buildExploreIndex(rd, opts, false)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(x.close)
		return x
	}
	poison.Released = true
	defer func() { poison.Released = false }()
	feed, err := startExploreFeed(rd, opts, nil, true, false)
	if err != nil {
		t.Fatal(err)
	}
	x := &exploreIndex{opts: opts, open: map[int]*os.File{}}
	t.Cleanup(x.close)
	if err := drainFeed(t, feed, x); err != nil {
		t.Fatal(err)
	}
	return x
}

// drainFeed takes what feed brings into x until the input has ended, and
// returns the error the feed ended with.
func drainFeed(t *testing.T, feed *exploreFeed, x *exploreIndex) error {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, done, err := feed.take(x); done {
			return err
		}
		if time.Now().After(deadline) {
			t.Fatal("the feed did not end")
		}
	}
}

func sameIndex(t *testing.T, name string, got, want *exploreIndex) {
	t.Helper()
	if got.len() != want.len() {
		t.Errorf("%s: %d rows, want %d", name, got.len(), want.len())
		return
	}
	for i := range want.len() {
		g, w := *got.rows.at(i), *want.rows.at(i)
		if g != w {
			t.Errorf("%s: row %d is %+v, want %+v", name, i, g, w)
			return
		}
		gr, gerr := got.raw(&g)
		wr, werr := want.raw(&w)
		if string(gr) != string(wr) || (gerr == nil) != (werr == nil) {
			t.Errorf("%s: row %d reads again %q (%v), want %q (%v)", name, i, gr, gerr, wr, werr)
			return
		}
	}
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"files", got.files, want.files}, {"sessions", got.ids, want.ids}, {"turns", got.turns, want.turns},
		{"HAR entries", got.entries, want.entries}, {"findings", got.findings, want.findings}, {"citations", got.cites, want.cites},
		{"verdicts", got.verdicts, want.verdicts}, {"lineage", got.sessions, want.sessions}, {"accepted", got.accs, want.accs},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: other %s:\n got %+v\nwant %+v", name, c.what, c.got, c.want)
		}
	}
}

package replay_test

import (
	"encoding/json"
	"reflect"
	"runtime"
	"testing"

	"github.com/agentskit/snapctl/diff"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/inspect/lineage"
	"github.com/agentskit/snapctl/internal/poison"
	"github.com/agentskit/snapctl/internal/samples"
	"github.com/agentskit/snapctl/replay"
)

// TestBorrowedMessagesKeepNothing checks that inspect.Run, whose messages
// point into the lines as read (Options.BorrowMessages), gives the report
// an inspector fed copies gives, while every line is overwritten as soon
// as its results are delivered: a string the model kept from a borrowed
// message would show as the overwritten bytes. On every capture in
// testdata and on one of many batches, on one core and on several.
func TestBorrowedMessagesKeepNothing(t *testing.T) {
	poison.Released = true
	defer func() { poison.Released = false }()
	captures := samples.All(t)
	captures = append(captures, samples.Long(t))
	read := func(name string, procs int, borrow bool) inspect.Report {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		rd, err := replay.Open([]string{name}, nil, replay.DefaultMaxLine)
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		if borrow {
			rep, err := inspect.Run(rd, inspect.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return rep
		}
		in := inspect.New(inspect.Options{})
		sum, err := replay.Run(rd, inspect.ReplayOptions(replay.Options{}), func(res *replay.Result) error {
			in.Observe(res)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return in.Finish(sum)
	}
	// lineage's run: the builder beside the inspector, as cmd/lineage.go
	// runs them.
	graphs := func(name string, procs int, borrow bool) []*lineage.Session {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		rd, err := replay.Open([]string{name}, nil, replay.DefaultMaxLine)
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		b := lineage.NewBuilder("")
		opts := inspect.ReplayOptions(replay.Options{})
		opts.BorrowMessages = borrow
		if _, err := replay.Run(rd, opts, func(res *replay.Result) error {
			b.Add(res)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return b.Finish()
	}
	for _, c := range captures {
		want, wantGraphs := read(c, 1, false), graphs(c, 1, false)
		for _, procs := range []int{1, 4} {
			if got := read(c, procs, true); !reflect.DeepEqual(got, want) {
				t.Errorf("%s, GOMAXPROCS %d: borrowed messages give another report:\n got %+v\nwant %+v", c, procs, got.Findings, want.Findings)
			}
			if got := graphs(c, procs, true); !reflect.DeepEqual(got, wantGraphs) {
				t.Errorf("%s, GOMAXPROCS %d: borrowed messages give another lineage", c, procs)
			}
		}
	}
}

// TestBorrowedDiffKeepsNothing checks that a Differ of borrowed messages
// (diff.Options.Borrowed, as cmd/diff runs it) finds the pairs one fed
// copies finds, while every line is overwritten as soon as its results
// are delivered: a string the differ kept without copying it would show
// as the overwritten bytes in a later pair. On every capture in testdata
// and a long one, on one core and several, with and without --from/--to.
func TestBorrowedDiffKeepsNothing(t *testing.T) {
	poison.Released = true
	defer func() { poison.Released = false }()
	pairs := func(name string, procs int, borrow bool, opts diff.Options) []string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		rd, err := replay.Open([]string{name}, nil, replay.DefaultMaxLine)
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		var out []string
		opts.Borrowed = borrow
		d := diff.NewDiffer(opts, func(p *diff.PairDiff) error {
			// Written out at once, as cmd/diff writes its pairs.
			b, err := json.Marshal(p)
			out = append(out, string(b))
			return err
		})
		if _, err := replay.Run(rd, replay.Options{Messages: true, BorrowMessages: borrow}, d.Add); err != nil {
			t.Fatal(err)
		}
		d.Finish()
		return out
	}
	compared := 0
	for _, c := range append(samples.All(t), samples.Long(t)) {
		for _, opts := range []diff.Options{{}, {Range: true, From: 3, To: 9}} {
			want := pairs(c, 1, false, opts)
			for _, procs := range []int{1, 4} {
				if got := pairs(c, procs, true, opts); !reflect.DeepEqual(got, want) {
					t.Errorf("%s, %+v, GOMAXPROCS %d: borrowed messages give other pairs:\n got %v\nwant %v", c, opts, procs, got, want)
				}
			}
			compared += len(want)
		}
	}
	if compared == 0 {
		t.Fatal("no pair compared")
	}
}

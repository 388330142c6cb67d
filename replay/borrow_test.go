package replay_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
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
	captures = append(captures, longCapture(t))
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

// longCapture writes a capture of many batches whose turns end cut off,
// are completed later in another turn and lose messages, so that the
// model reads every message field it reads.
func longCapture(t *testing.T) string {
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		status := "streaming"
		if i%3 == 0 {
			status = "complete"
		}
		seq := i
		if i%17 == 0 {
			seq = i - 5 // stale
		}
		var msgs []string
		for k := 0; k < 1+i%4; k++ {
			msgs = append(msgs, fmt.Sprintf(`{"id":"m%d-%d","role":"assistant","content":%q,"status":%q,"createdAt":"2026-07-11T03:00:00.000Z"}`,
				i/7, k, strings.Repeat("reply text ", 1+i%23), status))
		}
		fmt.Fprintf(&b, `{"protocol":"agentskit.chat.turn","version":1,"eventId":"e%d","sessionId":"s%d","turnId":"t%d","sequence":%d,"emittedAt":"2026-07-11T03:00:00Z","event":"server.turn.snapshot","payload":{"status":%q,"usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"messages":[%s]}}`+"\n",
			i, i%3, i/5, seq, status, strings.Join(msgs, ","))
	}
	name := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
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
	for _, c := range append(samples.All(t), longCapture(t)) {
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

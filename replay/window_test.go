package replay

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestWindow(t *testing.T) {
	// Sequences 1 to 5, emitted a second apart, a malformed line after 3.
	var lines []string
	for i := int64(1); i <= 5; i++ {
		l := snapshotLine("s", i)
		lines = append(lines, strings.Replace(l, "03:00:00.000Z", "03:00:0"+string(rune('0'+i))+".000Z", 1))
		if i == 3 {
			lines = append(lines, "not json")
		}
	}
	capture := strings.Join(lines, "\n") + "\n"
	dur := func(d time.Duration) *time.Duration { return &d }
	at := func(s string) time.Time { tm, _ := time.Parse(time.RFC3339, s); return tm }
	tests := []struct {
		name string
		w    *Window
		want []int // lines kept
	}{
		{"no window", nil, []int{1, 2, 3, 4, 5, 6}},
		{"lines", &Window{Lines: []LineRange{{2, 3}, {6, 0}}}, []int{2, 3, 6}},
		{"since offset", &Window{SinceOffset: dur(2 * time.Second)}, []int{3, 4, 5, 6}},
		{"until instant", &Window{Until: at("2026-07-11T03:00:02Z")}, []int{1, 2}},
		{"malformed follows the event before it", &Window{Since: at("2026-07-11T03:00:03Z"), Until: at("2026-07-11T03:00:03Z")}, []int{3, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, workers := range []int{1, 4} {
				rd, err := Open([]string{StdinName}, strings.NewReader(capture), 0)
				if err != nil {
					t.Fatal(err)
				}
				var got []int
				sum, err := Run(rd, Options{Window: tt.w, Workers: workers}, func(res *Result) error {
					got = append(got, res.Line)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, tt.want) || sum.Counts.Events != len(tt.want) {
					t.Errorf("workers %d: lines %v (%d events), want %v", workers, got, sum.Counts.Events, tt.want)
				}
			}
		})
	}
}

// TestWindowPastWindow: the run notes a turn the window ends while the
// capture goes on with it (Summary.PastWindow): the session's last event
// in the window is of the turn, and so is the first it leaves out; not a
// session that goes on with another turn, nor a turn the window keeps
// more of after a gap.
func TestWindowPastWindow(t *testing.T) {
	line := func(session, turn string, seq int64) string {
		return strings.Replace(snapshotLine(session, seq), `"turnId":"t1"`, `"turnId":"`+turn+`"`, 1)
	}
	capture := strings.Join([]string{line("a", "t1", 1), line("b", "t1", 1), line("a", "t1", 2), line("b", "t2", 2), line("a", "t1", 3)}, "\n") + "\n"
	type cut struct {
		session, turn string
		line          int
	}
	for _, tc := range []struct {
		name string
		w    *Window
		want []cut
	}{
		{"no window", nil, nil},
		{"window to the end", &Window{Lines: []LineRange{{1, 0}}}, nil},
		{"window ends inside a's t1", &Window{Lines: []LineRange{{1, 3}}}, []cut{{"a", "t1", 5}}},
		{"gap inside a's t1, kept after", &Window{Lines: []LineRange{{1, 2}, {5, 5}}}, nil},
		{"a goes on with t1, b with t2", &Window{Lines: []LineRange{{1, 2}}}, []cut{{"a", "t1", 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, workers := range []int{1, 4} {
				rd, err := Open([]string{StdinName}, strings.NewReader(capture), 0)
				if err != nil {
					t.Fatal(err)
				}
				sum, err := Run(rd, Options{Window: tc.w, Workers: workers}, func(*Result) error { return nil })
				if err != nil {
					t.Fatal(err)
				}
				var got []cut
				for _, s := range []string{"a", "b"} {
					for _, turn := range []string{"t1", "t2"} {
						if c, ok := sum.PastWindow(s, turn); ok {
							got = append(got, cut{s, turn, c.Line})
						}
					}
				}
				if !slices.Equal(got, tc.want) || sum.WindowCuts() != len(tc.want) {
					t.Errorf("workers %d: cuts %v, want %v", workers, got, tc.want)
				}
			}
		})
	}
}

// TestWindowLeftOutBounded: Result.LeftOut counts the events of a session
// the window left out since its last kept one; a run notes them only for
// a session it has kept an event of, so that a window over a capture of
// many sessions holds nothing for those it never keeps (a window of a
// few lines of a huge capture), and a session's first kept event has
// none (it has no previous one).
func TestWindowLeftOutBounded(t *testing.T) {
	lines := []string{snapshotLine("a", 1)}
	for i := range 1000 {
		lines = append(lines, snapshotLine(fmt.Sprintf("x%d", i), 1))
	}
	lines = append(lines, snapshotLine("a", 2), snapshotLine("a", 3), snapshotLine("x7", 2))
	w := &Window{Lines: []LineRange{{1, 1}, {1003, 0}}}
	r, err := NewRunner(Options{Window: w})
	if err != nil {
		t.Fatal(err)
	}
	var left []int
	for i, l := range lines {
		res := r.Step(Line{File: "c", Num: i + 1, Data: []byte(l)})
		if i == 1000 && len(r.cuts.left) > 1 {
			t.Fatalf("after 1000 sessions the window never keeps, it holds %d of them", len(r.cuts.left))
		}
		if res.Event != nil {
			left = append(left, res.LeftOut)
		}
	}
	// a:1 kept; x0..x999 and a:2 left out; a:3 and x7:2 kept.
	if want := []int{0, 1, 0}; !slices.Equal(left, want) {
		t.Errorf("LeftOut %v, want %v", left, want)
	}
}

// FuzzWindow runs a capture through a window of line ranges on one
// worker and on four: the same lines, verdicts, LeftOut and cuts either
// way; every line kept is in the window; LeftOut counts no more events
// than the window left out; and every cut names a turn of a kept event,
// its position a line the window left out.
func FuzzWindow(f *testing.F) {
	line := func(session, turn string, seq int64) string {
		return strings.Replace(snapshotLine(session, seq), `"turnId":"t1"`, `"turnId":"`+turn+`"`, 1)
	}
	f.Add(strings.Join([]string{line("a", "t1", 1), line("b", "t1", 1), line("a", "t1", 2), line("b", "t2", 2), line("a", "t1", 3)}, "\n")+"\n", uint8(1), uint8(3), uint8(5), uint8(0))
	f.Add(strings.Join([]string{line("a", "t1", 1), "not json", line("a", "t2", 4), line("a", "t2", 5)}, "\n"), uint8(2), uint8(2), uint8(4), uint8(4))
	f.Fuzz(func(t *testing.T, capture string, a, b, c, d uint8) {
		w := &Window{Lines: []LineRange{{First: int(a%16) + 1, Last: int(a%16) + 1 + int(b%8)}, {First: int(c%32) + 1, Last: int(d % 64)}}}
		type got struct {
			line, leftOut int
			reason        Reason
			session, turn string
		}
		run := func(workers int, w *Window) ([]got, Summary) {
			rd, err := Open([]string{StdinName}, strings.NewReader(capture), 0)
			if err != nil {
				t.Fatal(err)
			}
			var out []got
			sum, err := Run(rd, Options{Window: w, Workers: workers}, func(res *Result) error {
				g := got{line: res.Line, leftOut: res.LeftOut, reason: res.Reason}
				if res.Event != nil {
					g.session, g.turn = res.Event.SessionID, res.Event.TurnID
				}
				out = append(out, g)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			return out, sum
		}
		one, sum := run(1, w)
		four, sum4 := run(4, w)
		all, _ := run(1, nil)
		if !slices.Equal(one, four) || sum.WindowCuts() != sum4.WindowCuts() {
			t.Fatalf("one worker %v (%d cuts), four %v (%d cuts)", one, sum.WindowCuts(), four, sum4.WindowCuts())
		}
		left := 0
		kept := map[[2]string]bool{}
		for _, g := range one {
			if !w.hasLine(g.line) {
				t.Errorf("line %d kept, outside the window %v", g.line, w.Lines)
			}
			left += g.leftOut
			kept[[2]string{g.session, g.turn}] = true
		}
		// What the window left out is every result it did not keep, which
		// a physical line may hold several of (an SSE stream's lines that
		// end in a lone CR): the summary says how many, and the results
		// say no more.
		if out := len(all) - len(one); sum.Input.LeftOut != out || sum4.Input.LeftOut != out || left > out {
			t.Errorf("Stats.LeftOut %d (%d on four workers), LeftOut sums to %d; the window left out %d of %d", sum.Input.LeftOut, sum4.Input.LeftOut, left, out, len(all))
		}
		cuts := 0
		for k := range kept {
			if c, ok := sum.PastWindow(k[0], k[1]); ok {
				cuts++
				if w.hasLine(c.Line) {
					t.Errorf("turn %v goes on past the window at line %d, inside it", k, c.Line)
				}
			}
		}
		if cuts != sum.WindowCuts() {
			t.Errorf("%d cuts, %d of them turns of kept events", sum.WindowCuts(), cuts)
		}
	})
}

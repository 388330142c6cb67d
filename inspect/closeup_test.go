package inspect

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/internal/samples"
	"github.com/agentskit/snapctl/replay"
)

func examine(t *testing.T, opts Options, target Target, path string) Examination {
	t.Helper()
	rd, err := replay.Open([]string{path}, nil, opts.MaxLine)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	x, err := Examine(rd, opts, target)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func TestExamine(t *testing.T) {
	const at = "2026-07-11T03:00:00.000Z"
	broken := `{"protocol":"agentskit.chat.turn","version":1,"eventId":"e3","sessionId":"s","turnId":"t","sequence":1.5,"emittedAt":"2026-07-11","event":"server.turn.snapshot","payload":{"status":"done","usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"messages":[]}}`
	path := writeCapture(t,
		snap("e1", "t", 1, at, "streaming", "a"),
		snap("e2", "t", 2, at, "streaming", "a"),
		"",
		broken,
		snap("e2", "t", 2, at, "streaming", "a", "b"),
		`{"eventId":"e9", "cut off`,
		strings.Repeat("x", 300),
	)
	tests := []struct {
		name     string
		target   Target
		maxLine  int
		matches  int
		lines    []int
		reasons  []replay.Reason
		problems int // of the first close-up
		findings []string
	}{
		{name: "line of an accepted snapshot", target: Target{File: path, Line: 2}, matches: 1,
			lines: []int{2}, reasons: []replay.Reason{replay.ReasonAdvanced},
			findings: []string{SequenceCollision, DuplicateEventID}},
		{name: "event id on two lines, verdict of each in context", target: Target{EventID: "e2"}, matches: 2,
			lines: []int{2, 5}, reasons: []replay.Reason{replay.ReasonAdvanced, replay.ReasonDuplicate},
			findings: []string{SequenceCollision, DuplicateEventID}},
		{name: "malformed line with every problem", target: Target{File: path, Line: 4}, matches: 1,
			lines: []int{4}, reasons: []replay.Reason{replay.ReasonMalformed}, problems: 3, findings: []string{InvalidEvent}},
		{name: "event id of a line that does not decode", target: Target{EventID: "e3"}, matches: 1,
			lines: []int{4}, reasons: []replay.Reason{replay.ReasonMalformed}, problems: 3, findings: []string{InvalidEvent}},
		{name: "invalid JSON has no event id", target: Target{EventID: "e9"}, matches: 0},
		{name: "blank line matches nothing", target: Target{File: path, Line: 3}, matches: 0},
		{name: "too long line", target: Target{File: path, Line: 7}, maxLine: 100, matches: 1,
			lines: []int{7}, reasons: []replay.Reason{replay.ReasonMalformed}, problems: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := examine(t, Options{MaxLine: tt.maxLine}, tt.target, path)
			if x.Matches != tt.matches || len(x.Closeups) != len(tt.lines) {
				t.Fatalf("matches %d, close-ups %d; want %d, %d", x.Matches, len(x.Closeups), tt.matches, len(tt.lines))
			}
			for i, c := range x.Closeups {
				if c.Line != tt.lines[i] || c.Reason != tt.reasons[i] {
					t.Errorf("close-up %d: line %d %s, want line %d %s", i, c.Line, c.Reason, tt.lines[i], tt.reasons[i])
				}
			}
			if len(x.Closeups) == 0 {
				return
			}
			c := x.Closeups[0]
			if got := 0; c.Err != nil {
				got = len(c.Err.Problems)
				if got != tt.problems {
					t.Errorf("problems: got %d (%s), want %d", got, c.Err.AllDetails(), tt.problems)
				}
			} else if tt.problems != 0 {
				t.Errorf("no decode error, want %d problems", tt.problems)
			}
			if tt.maxLine == 0 && len(c.Raw) == 0 {
				t.Errorf("raw line missing")
			}
			var ids []string
			for _, f := range c.Findings {
				ids = append(ids, f.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tt.findings, ",") {
				t.Errorf("findings %q, want %q", ids, tt.findings)
			}
		})
	}
}

// TestExamineKeepsEvent: a close-up's event outlives the runner's reuse of
// its event buffer.
func TestExamineKeepsEvent(t *testing.T) {
	const at = "2026-07-11T03:00:00.000Z"
	path := writeCapture(t, snap("e1", "t", 1, at, "streaming", "a"), snap("e2", "t", 2, at, "complete", "a", "b"))
	x := examine(t, Options{}, Target{File: path, Line: 1}, path)
	ev := x.Closeups[0].Event
	if ev == nil || ev.EventID != "e1" || ev.Snapshot.Status != "streaming" || ev.Snapshot.MessageCount != 1 {
		t.Errorf("event changed after its line: %+v", ev)
	}
}

// TestExamineOwnDrops: a close-up tells what its line dropped itself, as
// the model's rule decides, beside the finding that cites the line with
// the session's first example.
func TestExamineOwnDrops(t *testing.T) {
	path := filepath.Join("..", "testdata", "inspect", "message-vanished.jsonl")
	tests := []struct {
		line int
		want string // messageId:explained, in order
		from int64
	}{
		{line: 2, want: ""},
		{line: 3, want: "m-u1:false", from: 2},
		{line: 4, want: "m-u2:false m-a2:true", from: 3},
	}
	for _, tc := range tests {
		x := examine(t, Options{MaxLine: replay.DefaultMaxLine}, Target{File: path, Line: tc.line}, path)
		if len(x.Closeups) != 1 {
			t.Fatalf("line %d: %d close-ups", tc.line, len(x.Closeups))
		}
		c := x.Closeups[0]
		var got []string
		for _, d := range c.Dropped {
			got = append(got, fmt.Sprintf("%s:%v", d.MessageID, d.Explained))
		}
		if strings.Join(got, " ") != tc.want || c.DroppedFrom != tc.from {
			t.Errorf("line %d dropped %v of %d, want %q of %d", tc.line, got, c.DroppedFrom, tc.want, tc.from)
		}
		if len(c.Findings) != 1 || c.Findings[0].ID != MessageVanished {
			t.Errorf("line %d: findings %v, want message-vanished", tc.line, c.Findings)
		}
	}
}

// TestExamineHAREntry: a target with an entry matches that entry's line
// only, and the findings of its close-up are those that cite that line,
// not line 1 of every other entry.
func TestExamineHAREntry(t *testing.T) {
	path := realCapture("proxied.har")
	opts := Options{MaxLine: replay.DefaultMaxLine}
	all := examine(t, opts, Target{File: path, Line: 1}, path)
	if all.Matches < 10 {
		t.Fatalf("line 1 of every entry: %d matches", all.Matches)
	}
	x := examine(t, opts, Target{File: path, Entry: 13, Line: 1}, path)
	if x.Matches != 1 || len(x.Closeups) != 1 || x.Closeups[0].Entry != 13 {
		t.Fatalf("entry 13 line 1: %d matches, %+v", x.Matches, x.Closeups)
	}
	at := Position{File: path, Entry: 13, Line: 1}
	var want []string
	for _, f := range x.Report.Findings {
		if slices.Contains(f.Positions, at) {
			want = append(want, f.ID+" "+f.SessionID)
		}
	}
	var got []string
	for _, f := range x.Closeups[0].Findings {
		got = append(got, f.ID+" "+f.SessionID)
	}
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("entry 13 line 1 cited by %v, want %v", got, want)
	}
	// Line 1 of entry 3 is p-s-alpha's; no finding of another session
	// may follow it there.
	for _, c := range all.Closeups {
		for _, f := range c.Findings {
			if !f.Cites(Position{File: path, Entry: c.Entry, Line: 1}) {
				t.Errorf("entry %d line 1 lists %s of %s, which cites it not", c.Entry, f.ID, f.SessionID)
			}
		}
	}
}

// TestExamineEndedAsTheVerdictCounts: on every capture, the close-ups of
// the lines where turns ended name, in all, as many turns as the
// verdicts count unfinished: turn-never-accepted's turn-2 ends at line 4,
// but its finding cites it and the verdict counts it once, as that
// finding, so no close-up names it; orphan-submit's t2, whose diagnostic
// came with no accepted snapshot (no lineage node), is named at line 4.
func TestExamineEndedAsTheVerdictCounts(t *testing.T) {
	for _, file := range samples.All(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			rep := run(t, Options{}, file)
			want, lines := 0, map[model.Position]bool{}
			for _, s := range rep.Overview.Sessions {
				want += int(s.Verdict().Unfinished)
				for _, e := range s.Endings() {
					lines[e.At] = true
				}
			}
			got := 0
			for at := range lines {
				if at.File != file {
					continue // no line: an unanswered turn of no submit
				}
				for _, c := range examine(t, Options{}, Target{File: at.File, Entry: at.Entry, Line: at.Line}, file).Closeups {
					got += len(c.Ended)
				}
			}
			if got != want {
				t.Errorf("the close-ups name %d turns that ended there, the verdicts count %d unfinished", got, want)
			}
		})
	}
}

// TestExamineEndedOnePass: finding the turns that ended at the lines shown
// close up takes one pass over the sessions, not one a close-up: on
// 4,000 cut-off sessions whose lines share one event id, showing the
// MaxCloseups of them allocates no more than showing one line does, but
// for the close-ups themselves.
func TestExamineEndedOnePass(t *testing.T) {
	const n = 4000
	lines := make([]string, n)
	for i := range lines {
		lines[i] = line("server.turn.snapshot", "e", fmt.Sprint("s", i), "t", 1, "2026-07-11T03:00:00.000Z",
			`{"status":"streaming","usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"messages":[]}`)
	}
	path := writeCapture(t, lines...)
	mallocs := func(target Target) (uint64, int) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		x := examine(t, Options{}, target, path)
		runtime.ReadMemStats(&after)
		return after.Mallocs - before.Mallocs, len(x.Closeups)
	}
	one, k1 := mallocs(Target{File: path, Line: 1})
	many, k := mallocs(Target{EventID: "e"})
	if k1 != 1 || k != MaxCloseups {
		t.Fatalf("%d and %d close-ups, want 1 and %d", k1, k, MaxCloseups)
	}
	if extra := int64(many) - int64(one); extra > n/2 {
		t.Errorf("%d close-ups allocate %d more than one (%d against %d): a pass over the %d sessions for each", k, extra, many, one, n)
	}
}

package diff

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/replay"
)

// line builds one capture line; content "" gives no messages.
func line(session, turn string, seq int64, kind, content string) string {
	payload := `{"input":"hi"}`
	if kind == "snapshot" {
		msgs := ""
		if content != "" {
			msgs = fmt.Sprintf(`{"id":"m","role":"assistant","content":%q,"status":"streaming","createdAt":"2026-07-11T09:00:00.000Z"}`, content)
		}
		payload = `{"status":"streaming","usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"messages":[` + msgs + `]}`
	}
	ev := "client.turn.submit"
	if kind == "snapshot" {
		ev = "server.turn.snapshot"
	}
	return fmt.Sprintf(`{"protocol":"agentskit.chat.turn","version":1,"eventId":"e%d","sessionId":%q,"turnId":%q,"sequence":%d,"emittedAt":"2026-07-11T09:00:00Z","event":%q,"payload":%s}`,
		seq, session, turn, seq, ev, payload)
}

// runDiffer runs a capture through replay and a Differ, and describes each
// pair as "session from->to inert".
func runDiffer(t *testing.T, capture []string, opts Options) ([]string, error) {
	t.Helper()
	rd, err := replay.Open([]string{replay.StdinName}, strings.NewReader(strings.Join(capture, "\n")+"\n"), replay.DefaultMaxLine)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var got []string
	d := NewDiffer(opts, func(p *PairDiff) error {
		s := fmt.Sprintf("%s %d->%d", p.SessionID, p.From.Sequence, p.To.Sequence)
		for _, r := range replay.Reasons {
			if n := p.Inert[r]; n > 0 {
				s += fmt.Sprintf(" %s=%d", r, n)
			}
		}
		if p.AcceptedBetween > 0 {
			s += fmt.Sprintf(" between=%d", p.AcceptedBetween)
		}
		got = append(got, s)
		return nil
	})
	if _, err := replay.Run(rd, replay.Options{Session: opts.Session, Messages: true}, d.Add); err != nil {
		t.Fatal(err)
	}
	return got, d.Finish()
}

func TestDiffer(t *testing.T) {
	a1, a2, a3 := line("a", "t1", 1, "snapshot", "x"), line("a", "t1", 2, "snapshot", "x y"), line("a", "t2", 3, "snapshot", "x y z")
	b1, b2 := line("b", "t9", 1, "snapshot", "p"), line("b", "t9", 2, "snapshot", "q")
	tests := []struct {
		name    string
		capture []string
		opts    Options
		want    []string
		err     string
	}{
		{"consecutive pairs", []string{a1, a2, a3}, Options{}, []string{"a 1->2", "a 2->3"}, ""},
		{"single snapshot, no pair", []string{a1}, Options{}, nil, ""},
		{"stale and duplicate between", []string{a1, a2, a1, a2, a2, a3}, Options{},
			[]string{"a 1->2", "a 2->3 duplicate=2 stale=1"}, ""},
		{"inert before the first snapshot is not between", []string{line("a", "t1", 0, "submit", ""), a1, a2}, Options{}, []string{"a 1->2"}, ""},
		{"non-snapshot between", []string{a1, line("a", "t1", 5, "submit", ""), a2}, Options{}, []string{"a 1->2 non-snapshot=1"}, ""},
		{"malformed counts for every open session", []string{a1, b1, "{oops", a2, b2}, Options{},
			[]string{"a 1->2 malformed=1", "b 1->2 malformed=1"}, ""},
		{"sessions interleaved stay apart", []string{a1, b1, a2, b2, b1}, Options{},
			[]string{"a 1->2", "b 1->2"}, ""},
		{"pinned session counts foreign deliveries", []string{a1, b1, b2, a2}, Options{Session: "a"},
			[]string{"a 1->2 foreign-session=2"}, ""},
		{"turn filter", []string{a1, a2, a3}, Options{Turn: "t2"}, []string{"a 2->3"}, ""},
		{"range across turns", []string{a1, a2, a1, a3}, Options{Range: true, From: 1, To: 3}, []string{"a 1->3 stale=1 between=1"}, ""},
		{"range in every session that has both", []string{a1, b1, a2, b2}, Options{Range: true, From: 1, To: 2}, []string{"a 1->2", "b 1->2"}, ""},
		{"range with a skipped To", []string{a1, a3}, Options{Range: true, From: 1, To: 2}, nil,
			"sequence 2 is not an accepted snapshot of session a; nearest accepted: sequence 1 (session a) for sequence 2"},
		{"range with both missing", []string{a1}, Options{Range: true, From: 4, To: 5}, nil,
			"sequences 4 and 5 are not accepted snapshots of session a; nearest accepted: sequence 1 (session a) for sequence 4, sequence 1 (session a) for sequence 5"},
		{"range in no session", []string{a1, b2}, Options{Range: true, From: 1, To: 2}, nil,
			"no session has accepted snapshots at both sequence 1 and sequence 2"},
		{"range in an empty capture", []string{"{oops"}, Options{Range: true, From: 1, To: 2}, nil,
			"sequences 1 and 2 are not accepted snapshots: the capture has none"},
		{"range pinned to a session without snapshots", []string{a1, a2}, Options{Session: "b", Range: true, From: 1, To: 2}, nil,
			"sequences 1 and 2 are not accepted snapshots of session b"},
		{"range filtered by turn is no error", []string{a1, a2}, Options{Range: true, From: 1, To: 2, Turn: "t7"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := runDiffer(t, tt.capture, tt.opts)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("pairs = %q, want %q", got, tt.want)
			}
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tt.err != "":
				var re *RangeError
				if !errors.As(err, &re) || err.Error() != tt.err {
					t.Errorf("error = %v, want %q", err, tt.err)
				}
			}
		})
	}
}

// TestDifferEmitError checks that an error from emit stops the run.
func TestDifferEmitError(t *testing.T) {
	stop := errors.New("stop")
	d := NewDiffer(Options{}, func(*PairDiff) error { return stop })
	rd, _ := replay.Open([]string{replay.StdinName}, strings.NewReader(
		line("a", "t", 1, "snapshot", "x")+"\n"+line("a", "t", 2, "snapshot", "y")+"\n"), replay.DefaultMaxLine)
	if _, err := replay.Run(rd, replay.Options{Messages: true}, d.Add); !errors.Is(err, stop) {
		t.Fatalf("err = %v, want stop", err)
	}
}

// TestDifferRangeExplains checks that, across turns, a removal is
// explained by the lineage of a skipped snapshot (the edit of turn-2),
// not only by the newer snapshot's own lineage.
func TestDifferRangeExplains(t *testing.T) {
	tests := []struct {
		name      string
		opts      Options
		explained map[string]string // removed id -> explaining operation, "" if none
	}{
		{"edit in between", Options{Range: true, From: 2, To: 9}, map[string]string{"msg-u1": "edit", "msg-a1": "edit"}},
		{"edit is the newer snapshot", Options{Range: true, From: 3, To: 5}, map[string]string{"msg-u1": "edit", "msg-a1": "edit"}},
		{"turn filter", Options{Turn: "turn-2"}, map[string]string{"msg-u1": "edit", "msg-a1": "edit"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := os.Open("../testdata/diff-turns.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rd, err := replay.Open([]string{replay.StdinName}, f, replay.DefaultMaxLine)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			d := NewDiffer(tt.opts, func(p *PairDiff) error {
				for _, r := range p.Removed {
					got[r.Message.ID] = string(r.By.Operation)
					if r.Explained != (r.By.Operation != "") {
						t.Errorf("%s: Explained %v with By %+v", r.Message.ID, r.Explained, r.By)
					}
				}
				return nil
			})
			if _, err := replay.Run(rd, replay.Options{Messages: true}, d.Add); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.explained) {
				t.Fatalf("removals = %v, want %v", got, tt.explained)
			}
		})
	}
}

package inspect

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/replay"
)

// run inspects files (capture text given inline, or paths) and returns
// the report.
func run(t *testing.T, opts Options, files ...string) Report {
	t.Helper()
	rd, err := replay.Open(files, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	rep, err := Run(rd, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// brief is a finding reduced to what the tests compare: id, session and
// positions as base-name:line.
func brief(fs []Finding) []string {
	out := []string{}
	for _, f := range fs {
		var ps []string
		for _, p := range f.Positions {
			ps = append(ps, fmt.Sprintf("%s:%d", filepath.Base(p.File), p.Line))
		}
		out = append(out, fmt.Sprintf("%s %s %s [%s]", f.Severity, f.ID, f.SessionID, strings.Join(ps, " ")))
	}
	return out
}

// TestCaptures runs every capture of testdata/inspect: each named after
// the finding it shows, with every finding it must raise, positions
// included.
func TestCaptures(t *testing.T) {
	dir := "../testdata/inspect"
	tests := []struct {
		file    string
		session string
		want    []string
	}{
		{"clean.jsonl", "", nil},
		{"timestamp-sequence.jsonl", "", []string{
			"error timestamp-sequence s-ms [timestamp-sequence.jsonl:2 timestamp-sequence.jsonl:3 timestamp-sequence.jsonl:4]",
			"info sequence-gap s-ms [timestamp-sequence.jsonl:3 timestamp-sequence.jsonl:4]",
		}},
		{"sequence-collision.jsonl", "", []string{
			"error sequence-collision s-collide [sequence-collision.jsonl:3 sequence-collision.jsonl:4]",
		}},
		{"message-vanished.jsonl", "", []string{
			"error message-vanished s-vanish [message-vanished.jsonl:2 message-vanished.jsonl:3 message-vanished.jsonl:4]",
		}},
		{"status-regression.jsonl", "", []string{
			"error status-regression s-status [status-regression.jsonl:2 status-regression.jsonl:3]",
		}},
		{"emitted-at-regression.jsonl", "", []string{
			"warning emitted-at-regression s-emitted [emitted-at-regression.jsonl:2 emitted-at-regression.jsonl:3]",
		}},
		{"stale-redelivery.jsonl", "", []string{
			"info stale-redelivery s-reconnect [stale-redelivery.jsonl:5 stale-redelivery.jsonl:9]",
		}},
		{"sequence-gap.jsonl", "", []string{
			"info sequence-gap s-gap [sequence-gap.jsonl:3 sequence-gap.jsonl:7]",
		}},
		{"delivery-gap.jsonl", "", []string{
			"info delivery-gap  [delivery-gap.jsonl:11 delivery-gap.jsonl:20]",
		}},
		{"foreign-session.jsonl", "s-mine", []string{
			"warning foreign-session s-other [foreign-session.jsonl:3 foreign-session.jsonl:5]",
		}},
		{"duplicate-event-id.jsonl", "", []string{
			"warning duplicate-event-id s-dupid [duplicate-event-id.jsonl:2 duplicate-event-id.jsonl:3 duplicate-event-id.jsonl:4]",
			"info stale-redelivery s-dupid [duplicate-event-id.jsonl:4]",
		}},
		{"orphan-submit.jsonl", "", []string{
			"warning orphan-submit s-orphan [orphan-submit.jsonl:3]",
		}},
		{"invalid-event.jsonl", "", []string{
			"error invalid-event s-invalid [invalid-event.jsonl:3 invalid-event.jsonl:4]",
			"info sequence-gap s-invalid [invalid-event.jsonl:5]",
		}},
		{"request-refused.jsonl", "", []string{
			"info request-refused  [request-refused.jsonl:2]",
		}},
		{"glued-lines.jsonl", "", []string{
			"warning glued-lines  [glued-lines.jsonl:2]",
			"info request-refused  [glued-lines.jsonl:2]",
		}},
		{"out-of-order-delivery.jsonl", "", []string{
			"error turn-never-accepted s-fail [out-of-order-delivery.jsonl:4]",
			"warning out-of-order-delivery s-fail [out-of-order-delivery.jsonl:4]",
			"info sequence-gap s-fail [out-of-order-delivery.jsonl:2]",
		}},
		{"turn-never-accepted.jsonl", "", []string{
			"error turn-never-accepted s-fail [turn-never-accepted.jsonl:4]",
			"warning out-of-order-delivery s-fail [turn-never-accepted.jsonl:4]",
			"info sequence-gap s-fail [turn-never-accepted.jsonl:2]",
		}},
		{"unusable-input.jsonl", "", []string{
			"info unusable-input  [unusable-input.jsonl:1]",
		}},
		{"capture-cut.jsonl", "", []string{
			"warning capture-cut  [capture-cut.jsonl:12]",
		}},
		{"invalid-event.jsonl", "s-other", []string{
			"warning foreign-session s-invalid [invalid-event.jsonl:1 invalid-event.jsonl:2 invalid-event.jsonl:5]",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			rep := run(t, Options{Session: tt.session}, filepath.Join(dir, tt.file))
			got := brief(rep.Findings)
			want := tt.want
			if want == nil {
				want = []string{}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("findings:\n got %q\nwant %q", got, want)
			}
		})
	}
}

// TestEveryCheckHasACapture keeps the catalogue and the captures in step.
func TestEveryCheckHasACapture(t *testing.T) {
	for _, c := range Checks {
		if _, err := os.Stat(filepath.Join("../testdata/inspect", c.ID+".jsonl")); err != nil {
			t.Errorf("check %s has no capture: %v", c.ID, err)
		}
	}
}

// TestCleanSamples: the project's sample captures show only what the
// cursor is for (reconnects, coalescing), never a warning or an error.
func TestCleanSamples(t *testing.T) {
	for _, f := range []string{"clean.jsonl", "reconnect.jsonl", "interleaved.jsonl", "inspect/clean.jsonl"} {
		t.Run(f, func(t *testing.T) {
			rep := run(t, Options{}, filepath.Join("../testdata", f))
			for _, fd := range rep.Findings {
				if fd.Severity.AtLeast(SeverityWarning) {
					t.Errorf("unexpected %s %s: %s", fd.Severity, fd.ID, fd.Message)
				}
			}
		})
	}
}

// line builds one valid event line for synthetic captures.
func line(kind, id, session, turn string, seq int64, at, payload string) string {
	return fmt.Sprintf(`{"protocol":"agentskit.chat.turn","version":1,"eventId":%q,"sessionId":%q,"turnId":%q,"sequence":%d,"emittedAt":%q,"event":%q,"payload":%s}`,
		id, session, turn, seq, at, kind, payload)
}

// snap builds a snapshot line whose projection holds the given message ids.
func snap(id, turn string, seq int64, at, status string, msgs ...string) string {
	var ms []string
	for _, m := range msgs {
		ms = append(ms, fmt.Sprintf(`{"id":%q,"role":"user","content":"x","status":"complete","createdAt":"2026-07-11T03:00:00.000Z"}`, m))
	}
	p := fmt.Sprintf(`{"status":%q,"usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"messages":[%s]}`, status, strings.Join(ms, ","))
	return line("server.turn.snapshot", id, "s", turn, seq, at, p)
}

func writeCapture(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSyntheticCases pins the edges of each check on captures built here.
func TestSyntheticCases(t *testing.T) {
	const at = "2026-07-11T03:00:00.000Z"
	ms := int64(1783738800000) // at, in Unix milliseconds
	tests := []struct {
		name  string
		lines []string
		want  []string
	}{
		{"timestamp far from emittedAt is not a timestamp", []string{
			snap("e1", "t", ms-2*msWindow, at, "streaming"),
			snap("e2", "t", ms-2*msWindow+1, at, "complete"),
		}, []string{}},
		{"timestamp in half the snapshots is not most", []string{
			snap("e1", "t", 1, at, "streaming"),
			snap("e2", "t", ms, at, "complete"),
		}, []string{"info sequence-gap s [c.jsonl:2]"}},
		{"timestamp with an offset zone", []string{
			snap("e1", "t", ms+3, "2026-07-11T05:00+02:00", "complete"),
		}, []string{"error timestamp-sequence s [c.jsonl:1]"}},
		{"stale collision against an older accepted sequence", []string{
			snap("e1", "t", 1, at, "streaming", "a"),
			snap("e2", "t", 2, at, "streaming", "a"),
			snap("e1", "t", 1, at, "streaming", "a"),
			snap("e9", "t", 1, at, "streaming", "a"),
			snap("e8", "t", 1, at, "streaming", "b", "a"),
		}, []string{
			"error sequence-collision s [c.jsonl:1 c.jsonl:4 c.jsonl:5]",
			"info stale-redelivery s [c.jsonl:3]",
		}},
		{"edit explains its source and what follows it", []string{
			snap("e1", "t1", 1, at, "complete", "u1", "a1", "u2", "a2"),
			strings.Replace(snap("e2", "t2", 2, at, "complete", "u1", "a1", "u2b"),
				`"messages"`, `"lineage":{"operation":"edit","parentTurnId":"t1","sourceMessageId":"u2"},"messages"`, 1),
		}, []string{}},
		{"lineage naming another message explains nothing before it", []string{
			snap("e1", "t1", 1, at, "complete", "u1", "a1", "u2", "a2"),
			strings.Replace(snap("e2", "t2", 2, at, "complete", "a1", "u2"),
				`"messages"`, `"lineage":{"operation":"retry","parentTurnId":"t1","sourceMessageId":"a2"},"messages"`, 1),
		}, []string{"error message-vanished s [c.jsonl:1 c.jsonl:2]"}},
		{"error back to streaming in another turn is no regression", []string{
			snap("e1", "t1", 1, at, "error"),
			snap("e2", "t2", 2, at, "streaming"),
		}, []string{}},
		{"a submit fills the gap it explains", []string{
			snap("e1", "t1", 1, at, "complete"),
			line("client.turn.submit", "e2", "s", "t2", 2, at, `{"input":"more"}`),
			line("server.turn.diagnostic", "e3", "s", "t2", 3, at, `{"version":1,"code":"SLOW","message":"slow","retryable":true}`),
			snap("e4", "t2", 4, at, "complete"),
		}, []string{}},
		{"every reconnect starts a new run", []string{
			snap("e1", "t", 1, at, "streaming"),
			snap("e1", "t", 1, at, "streaming"),
			snap("e2", "t", 2, at, "streaming"),
			snap("e1", "t", 1, at, "streaming"),
			snap("e2", "t", 2, at, "streaming"),
		}, []string{"info stale-redelivery s [c.jsonl:2 c.jsonl:4]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := run(t, Options{}, writeCapture(t, tt.lines...))
			if got := brief(rep.Findings); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("findings:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestPositionCap: a finding lists at most MaxPositions lines but counts
// them all.
func TestPositionCap(t *testing.T) {
	var lines []string
	for i := int64(1); i <= 10; i++ {
		lines = append(lines, snap(fmt.Sprintf("e%d", i), "t", 2*i, "2026-07-11T03:00:00Z", "streaming"))
	}
	rep := run(t, Options{MaxPositions: 3}, writeCapture(t, lines...))
	if len(rep.Findings) != 1 {
		t.Fatalf("want one finding, got %q", brief(rep.Findings))
	}
	f := rep.Findings[0]
	if f.ID != SequenceGap || len(f.Positions) != 3 || f.PositionCount != 9 || f.Positions[0].Line != 2 {
		t.Errorf("got %s with %d positions (first %v) of %d; want sequence-gap with 3 of 9 from line 2",
			f.ID, len(f.Positions), f.Positions[0], f.PositionCount)
	}
}

// TestOverview checks the per-session overview of one capture by hand.
func TestOverview(t *testing.T) {
	rep := run(t, Options{}, "../testdata/inspect/clean.jsonl")
	ov := rep.Overview
	if ov.Input.Files != 1 || ov.Input.Lines != 10 || ov.Input.Blank != 1 || ov.Counts.Events != 9 {
		t.Errorf("input: %+v, events %d", ov.Input, ov.Counts.Events)
	}
	if len(ov.Sessions) != 1 {
		t.Fatalf("want one session, got %d", len(ov.Sessions))
	}
	s := ov.Sessions[0]
	want := SessionOverview{SessionID: "s-clean", Events: 9, Turns: 4, Snapshots: 6,
		Sequences: &SequenceRange{2, 9}, EmittedAt: &EmittedRange{"2026-07-11T03:00:00.000Z", "2026-07-11T03:00:08.000Z"},
		Final: &replay.Final{File: "../testdata/inspect/clean.jsonl", Line: 10, Sequence: 9, TurnID: "t4", Status: "complete", MessageCount: 4}}
	counts := map[string]any{
		"reasons":      map[replay.Reason]int{replay.ReasonInitial: 1, replay.ReasonAdvanced: 5, replay.ReasonNonSnapshot: 3},
		"lineage":      map[replay.Operation]int{replay.OpSubmit: 3, replay.OpRegenerate: 1, replay.OpEdit: 2},
		"lineageTurns": map[replay.Operation]int{replay.OpSubmit: 2, replay.OpRegenerate: 1, replay.OpEdit: 1}}
	got := map[string]any{"reasons": s.Reasons.Map(), "lineage": s.Lineage.Map(), "lineageTurns": s.LineageTurns.Map()}
	if !reflect.DeepEqual(got, counts) {
		t.Errorf("session counts:\n got %v\nwant %v", got, counts)
	}
	var endings []TurnEnding
	for i, line := range []int{3, 5, 7, 10} {
		endings = append(endings, TurnEnding{TurnID: fmt.Sprintf("t%d", i+1), Ending: model.EndComplete,
			At: model.Position{File: "../testdata/inspect/clean.jsonl", Line: line}})
	}
	if got := s.Endings(); !reflect.DeepEqual(got, endings) {
		t.Errorf("endings:\n got %+v\nwant %+v", got, endings)
	}
	s.Reasons, s.Lineage, s.LineageTurns, s.endings = replay.ReasonCounts{}, OpCounts{}, OpCounts{}, nil
	if !reflect.DeepEqual(s, want) {
		t.Errorf("session overview:\n got %+v\nwant %+v", s, want)
	}
}

func TestSeverity(t *testing.T) {
	tests := []struct {
		s, min Severity
		want   bool
	}{
		{SeverityError, SeverityWarning, true},
		{SeverityWarning, SeverityWarning, true},
		{SeverityInfo, SeverityWarning, false},
		{SeverityWarning, SeverityError, false},
		{SeverityInfo, SeverityInfo, true},
	}
	for _, tt := range tests {
		if got := tt.s.AtLeast(tt.min); got != tt.want {
			t.Errorf("%s.AtLeast(%s) = %v, want %v", tt.s, tt.min, got, tt.want)
		}
	}
}

// BenchmarkRun inspects a capture of many turns of one session, to watch
// the cost of the checks over a plain replay.
func BenchmarkRun(b *testing.B) {
	var lines []string
	ids := []string{"m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9"}
	for seq := int64(1); seq <= 20000; seq++ {
		lines = append(lines, snap(fmt.Sprintf("e%d", seq), fmt.Sprintf("t%d", seq/10), seq, "2026-07-11T03:00:00Z", "streaming", ids...))
	}
	p := filepath.Join(b.TempDir(), "big.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		rd, err := replay.Open([]string{p}, nil, 0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Run(rd, Options{}); err != nil {
			b.Fatal(err)
		}
		rd.Close()
	}
}

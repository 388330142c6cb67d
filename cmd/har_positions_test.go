package cmd

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/replay"
)

// TestHARPositionsInText: inspect's findings name the entry of every line
// of proxied.har (mitmproxy's HAR of the real server), where they said
// "at proxied.har:1,1".
func TestHARPositionsInText(t *testing.T) {
	ios, out, _ := iostreams.Test("")
	o := inspectOptions{IO: ios, Output: "wide"}
	o.Files, o.MaxLine = []string{realCapture("proxied.har")}, replay.DefaultMaxLine
	if err := inspectRun(&o); err != nil {
		t.Fatal(err)
	}
	file := realCapture("proxied.har")
	want := "  at " + file + ":entry 13:line 1 " + file + ":entry 22:line 1\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("inspect lacks %q:\n%s", want, out)
	}
	if strings.Contains(out.String(), "  at "+file+":1") {
		t.Errorf("a finding names a line without its entry:\n%s", out)
	}
}

// TestHARDiffRange: --from and --to take a line within a HAR entry, as
// positions print it: line 3 of entry 1 and line 1 of entry 3 are
// p-s-alpha's sequences 4 and 47.
func TestHARDiffRange(t *testing.T) {
	ios, out, _ := iostreams.Test("")
	var got *diffOptions
	c := newCmdDiff(ios, func(o *diffOptions) error { got = o; return nil })
	c.SetArgs([]string{"-o", "json", "--from", "entry 1:line 3", "--to", "entry:3:line:1", realCapture("proxied.har")})
	c.SetOut(&strings.Builder{})
	c.SetErr(&strings.Builder{})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	got.MaxLine = replay.DefaultMaxLine
	if err := diffRun(got); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Pairs []struct {
			SessionID    string `json:"sessionId"`
			FromSequence int64  `json:"fromSequence"`
			ToSequence   int64  `json:"toSequence"`
		}
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(res.Pairs) != 1 || res.Pairs[0].SessionID != "p-s-alpha" || res.Pairs[0].FromSequence != 4 || res.Pairs[0].ToSequence != 47 {
		t.Errorf("pairs %+v, want p-s-alpha 4 → 47", res.Pairs)
	}
}

// harPosition is any JSON object with a line of a capture.
type harPosition struct {
	File  string `json:"file"`
	Entry int    `json:"entry"`
	Line  int    `json:"line"`
}

// harOutcome is the outcome keys of inspect's and lineage's turns.
type harOutcome struct {
	TurnID         string       `json:"turnId"`
	OutcomeLine    *int         `json:"outcomeLine"`
	OutcomeEntry   int          `json:"outcomeEntry"`
	CompletedLater *harPosition `json:"completedLater"`
}

// checkOutcomeEntries: every outcome with a line names its entry, and so
// does every later completion; it reports how many outcomes had a line.
func checkOutcomeEntries(t *testing.T, cmd string, outs []harOutcome) int {
	t.Helper()
	n := 0
	for _, o := range outs {
		if o.OutcomeLine != nil {
			n++
			if o.OutcomeEntry < 1 {
				t.Errorf("%s: turn %s's outcome line %d has no entry", cmd, o.TurnID, *o.OutcomeLine)
			}
		}
		if o.CompletedLater != nil && o.CompletedLater.Entry < 1 {
			t.Errorf("%s: turn %s completed later at line %d of no entry", cmd, o.TurnID, o.CompletedLater.Line)
		}
	}
	return n
}

// TestHARPositionsEverywhere: on proxied.har every command's text and
// JSON name the entry of each line they cite.
func TestHARPositionsEverywhere(t *testing.T) {
	file := realCapture("proxied.har")
	var ins struct {
		Overview struct {
			Sessions []struct {
				Final        *harPosition `json:"final"`
				TurnOutcomes []harOutcome `json:"turnOutcomes"`
			}
		}
		Findings []struct {
			ID        string
			Positions []harPosition
		}
	}
	if err := json.Unmarshal([]byte(runFile(t, file, "inspect", "-o", "json")), &ins); err != nil {
		t.Fatal(err)
	}
	outcomes := 0
	for _, s := range ins.Overview.Sessions {
		if s.Final == nil || s.Final.Entry < 1 {
			t.Errorf("inspect: final %+v has no entry", s.Final)
		}
		outcomes += checkOutcomeEntries(t, "inspect", s.TurnOutcomes)
	}
	if outcomes == 0 {
		t.Error("inspect: no outcome has a line")
	}
	for _, f := range ins.Findings {
		for _, p := range f.Positions {
			if p.Entry < 1 {
				t.Errorf("inspect: %s at %s:%d has no entry", f.ID, p.File, p.Line)
			}
		}
	}

	var lin struct {
		Sessions []struct{ Turns []harOutcome }
	}
	if err := json.Unmarshal([]byte(runFile(t, file, "lineage", "-o", "json")), &lin); err != nil {
		t.Fatal(err)
	}
	outcomes = 0
	for _, s := range lin.Sessions {
		outcomes += checkOutcomeEntries(t, "lineage", s.Turns)
	}
	if outcomes == 0 {
		t.Error("lineage: no outcome has a line")
	}

	// Text: inspect's overview and every diff header.
	text := runFile(t, file, "inspect", "-o", "wide")
	for _, want := range []string{
		"  final: complete, 6 messages, turn turn-3, sequence 134 at " + file + ":entry 5:line 43\n",
		"turn-1 timed-out SERVER_TIMEOUT at " + file + ":entry 11:line 22 (completed later at " + file + ":entry 12:line 1, +0 characters)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("inspect lacks %q:\n%s", want, text)
		}
	}
	diffText := runFile(t, file, "diff", "--from", "entry 1:line 3", "--to", "entry 3:line 1")
	if want := "turn turn-1 → turn-2, at entry 1:line 3 → entry 3:line 1\n"; !strings.Contains(diffText, want) {
		t.Errorf("diff lacks %q:\n%s", want, diffText)
	}
	var pair struct{ FromLine, FromEntry, ToLine, ToEntry int }
	if err := json.Unmarshal([]byte(runFile(t, file, "diff", "-o", "jsonl", "--from", "entry 1:line 3", "--to", "entry 3:line 1")), &pair); err != nil {
		t.Fatal(err)
	}
	if pair.FromEntry != 1 || pair.FromLine != 3 || pair.ToEntry != 3 || pair.ToLine != 1 {
		t.Errorf("diff pair %+v, want entry 1 line 3 → entry 3 line 1", pair)
	}
	for _, line := range strings.Split(strings.TrimSpace(runFile(t, file, "diff", "-o", "jsonl", "--session", "p-s-alpha")), "\n") {
		var p struct{ FromEntry, ToEntry int }
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatal(err)
		}
		if p.FromEntry < 1 || p.ToEntry < 1 {
			t.Fatalf("diff pair without entries: %s", line)
		}
	}

	// --fail-on lists the matching lines by entry.
	ios, _, errOut := iostreams.Test("")
	if code := run(ios, []string{"replay", "-o", "jsonl", "--fail-on", "malformed", file}); code != 1 {
		t.Fatalf("replay --fail-on malformed: exit %d: %s", code, errOut)
	}
	if want := "5 events at " + file + ":entry 13:line 1 " + file + ":entry 19:line 1"; !strings.Contains(errOut.String(), want) {
		t.Errorf("--fail-on says %q, want %q", errOut, want)
	}
}

// TestInspectLineEntry: --line takes a line of one HAR entry, as
// positions print it, and its close-up is of that line alone.
func TestInspectLineEntry(t *testing.T) {
	file := realCapture("proxied.har")
	out := runFile(t, file, "inspect", "--line", "entry 12:line 1")
	if n := strings.Count(out, file+":"); n != 1 {
		t.Errorf("%d close-ups, want one:\n%s", n, out)
	}
	if !strings.HasPrefix(out, file+":entry 12:line 1  server.turn.snapshot ") {
		t.Errorf("close-up head:\n%s", out)
	}
	if want := "verdict: accepted (advanced): from 22, gap 2\n"; !strings.Contains(out, want) {
		t.Errorf("close-up lacks %q:\n%s", want, out)
	}
	// The gap is the 2 of a turn boundary, the server's numbering.
	if strings.Contains(out, "sequence-gap") {
		t.Errorf("close-up cites sequence-gap for a turn boundary's gap of 2:\n%s", out)
	}
	ios, _, errOut := iostreams.Test("")
	if code := run(ios, []string{"inspect", "--line", "entry 1:line", file}); code != 2 || !strings.Contains(errOut.String(), `--line "entry 1:line": give "entry E:line N"`) {
		t.Errorf("--line \"entry 1:line\": exit %d: %s", code, errOut)
	}
}

// TestInspectLineOwnDrops: the close-up of a line says what it dropped
// itself, not the finding's first example only.
func TestInspectLineOwnDrops(t *testing.T) {
	out := runFile(t, filepath.Join("..", "testdata", "inspect", "message-vanished.jsonl"), "inspect", "--line", "4")
	want := "dropped: 2 messages of sequence 3\n  m-u2  no lineage explains this removal\n  m-a2  regenerate from m-a2\n"
	if !strings.Contains(out, want) {
		t.Errorf("close-up lacks %q:\n%s", want, out)
	}
}

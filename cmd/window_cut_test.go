package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// windowOutcome is a turn's outcome keys in inspect's turnOutcomes and
// lineage's turns, with what a window that cut the turn adds.
type windowOutcome struct {
	TurnID      string `json:"turnId"`
	Outcome     string `json:"outcome"`
	OutcomeLine *int   `json:"outcomeLine"`
	CutByWindow *bool  `json:"cutByWindow"`
	PastWindow  *struct {
		File string `json:"file"`
		Line int    `json:"line"`
	} `json:"pastWindow"`
}

// windowInspect is what the tests read of inspect -o json.
type windowInspect struct {
	Overview struct {
		Sessions []struct {
			Verdict struct {
				Clean      bool `json:"clean"`
				Unfinished int  `json:"unfinished"`
			} `json:"verdict"`
			TurnOutcomes []windowOutcome `json:"turnOutcomes"`
		} `json:"sessions"`
	} `json:"overview"`
	Findings []struct {
		ID string `json:"id"`
	} `json:"findings"`
}

// TestWindowCutTurn: a window that ends inside a turn of real-alpha, whose
// capture goes on with it, makes the turn no problem: inspect's verdict,
// text and JSON, lineage and the report all say the window cut it, with
// the outcome still cut-off. The whole capture, or a window that ends
// with it, is as without a window.
func TestWindowCutTurn(t *testing.T) {
	file := realCapture("real-alpha.jsonl")
	line20 := regexp.QuoteMeta(file + ":20")
	line21 := regexp.QuoteMeta(file + ":21")

	out := runFile(t, file, "inspect", "--lines", "1-20")
	for _, want := range []string{`(?m)^verdict: no problems$`, `(?m)^  verdict: no problems$`,
		`(?m)^  outcomes: turn-1 cut-off by the window at ` + line20 + ` \(the turn goes on past the window, at ` + line21 + `\)$`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("inspect --lines 1-20: no %s in\n%s", want, out)
		}
	}

	var rep windowInspect
	if err := json.Unmarshal([]byte(runFile(t, file, "inspect", "--lines", "1-20", "-o", "json")), &rep); err != nil {
		t.Fatal(err)
	}
	s := rep.Overview.Sessions[0]
	if !s.Verdict.Clean || s.Verdict.Unfinished != 0 {
		t.Errorf("inspect -o json --lines 1-20: verdict %+v, want clean", s.Verdict)
	}
	o := s.TurnOutcomes[0]
	if o.Outcome != "cut-off" || o.OutcomeLine == nil || *o.OutcomeLine != 20 || o.CutByWindow == nil || !*o.CutByWindow ||
		o.PastWindow == nil || o.PastWindow.Line != 21 {
		t.Errorf("inspect -o json --lines 1-20: outcome %+v, want cut-off at 20, cutByWindow, pastWindow 21", o)
	}

	lin := runFile(t, file, "lineage", "--lines", "1-20")
	if !strings.Contains(lin, ": no problems;") || !strings.Contains(lin, "turn-1  submit  cut-off by the window  seq 2-21") {
		t.Errorf("lineage --lines 1-20:\n%s", lin)
	}
	var lj struct {
		Sessions []struct {
			Turns []windowOutcome `json:"turns"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(runFile(t, file, "lineage", "--lines", "1-20", "-o", "json")), &lj); err != nil {
		t.Fatal(err)
	}
	if o := lj.Sessions[0].Turns[0]; o.Outcome != "cut-off" || o.CutByWindow == nil || !*o.CutByWindow || o.PastWindow == nil || o.PastWindow.Line != 21 {
		t.Errorf("lineage -o json --lines 1-20: turn %+v, want cut-off, cutByWindow, pastWindow 21", o)
	}

	page := filepath.Join(t.TempDir(), "r.html")
	runFile(t, file, "report", "--lines", "1-20", "--out", page)
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), `<tr class="t-window">`) || !strings.Contains(string(html), `<td class="outcome">cut-off by the window (the turn goes on past the window, at real-alpha.jsonl:21)</td>`) ||
		strings.Contains(string(html), "unfinished turn") {
		t.Errorf("report --lines 1-20: the turn is not marked cut by the window")
	}

	// The whole capture, with a window or without: nothing cut.
	for _, args := range [][]string{{"inspect", "--lines", "1-129"}, {"inspect"}, {"inspect", "--lines", "1-"}} {
		out := runFile(t, file, args...)
		if strings.Contains(out, "window") || !strings.Contains(out, "outcomes: 3 complete\n") {
			t.Errorf("%s:\n%s", strings.Join(args, " "), out)
		}
		js := runFile(t, file, append(args, "-o", "json")...)
		if strings.Contains(js, "cutByWindow") || strings.Contains(js, "pastWindow") {
			t.Errorf("%s -o json: a window key without a cut", strings.Join(args, " "))
		}
	}
}

// TestWindowCutSubmit: a window that ends on a submit whose snapshots are
// past it leaves the turn unanswered in the window: no orphan-submit, no
// problem; so does --until, and a gap between two ranges of --lines cuts
// the turn it falls in. A turn that really ended before the window does
// (the session goes on with another) stays a problem.
func TestWindowCutSubmit(t *testing.T) {
	file := filepath.Join("..", "testdata", "clean.jsonl")
	at := func(n string) string { return regexp.QuoteMeta(file + ":" + n) }
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--lines", "1-6"}, `turn-2 unanswered in the window at ` + at("6") + ` \(the turn goes on past the window, at ` + at("7") + `\)`},
		{[]string{"--until", "5s"}, `turn-2 unanswered in the window at ` + at("6") + ` \(the turn goes on past the window, at ` + at("7") + `\)`},
		{[]string{"--lines", "1-3"}, `turn-1 cut-off by the window at ` + at("3") + ` \(the turn goes on past the window, at ` + at("4") + `\)`},
		{[]string{"--lines", "1-4,12-14"}, `turn-1 cut-off by the window at ` + at("4") + ` \(the turn goes on past the window, at ` + at("5") + `\)`},
	} {
		name := strings.Join(tc.args, " ")
		out := runFile(t, file, append([]string{"inspect"}, tc.args...)...)
		if !regexp.MustCompile(tc.want).MatchString(out) || strings.Contains(out, "orphan-submit") || strings.Contains(out, "unfinished turn") {
			t.Errorf("inspect %s: want %s, no problem, in\n%s", name, tc.want, out)
		}
		var rep windowInspect
		if err := json.Unmarshal([]byte(runFile(t, file, append([]string{"inspect", "-o", "json"}, tc.args...)...)), &rep); err != nil {
			t.Fatal(err)
		}
		for _, f := range rep.Findings {
			if f.ID == "orphan-submit" {
				t.Errorf("inspect -o json %s: orphan-submit", name)
			}
		}
		if v := rep.Overview.Sessions[0].Verdict; v.Unfinished != 0 {
			t.Errorf("inspect -o json %s: %d unfinished", name, v.Unfinished)
		}
	}
}

// TestWindowCutGenuine: a turn the stream really left (the session goes
// on with another turn right after it) stays cut-off and a problem under
// a window that ends there; the turn the window does cut is marked.
func TestWindowCutGenuine(t *testing.T) {
	file := realCapture("real-abort.jsonl")
	at := func(n string) string { return regexp.QuoteMeta(file + ":" + n) }
	for _, tc := range []struct {
		window, want string
	}{
		{"1-9", `(?m)^  outcomes: turn-1 cut-off at ` + at("9") + `$`},
		{"1-15", `(?m)^  outcomes: turn-1 cut-off at ` + at("9") + ` \(completed later at ` + at("10") + `, \+0 characters\); ` +
			`turn-2 cut-off by the window at ` + at("15") + ` \(the turn goes on past the window, at ` + at("16") + `\)$`},
	} {
		out := runFile(t, file, "inspect", "--lines", tc.window)
		if !regexp.MustCompile(tc.want).MatchString(out) || !strings.Contains(out, "verdict: 1 problem (1 unfinished turn)\n") {
			t.Errorf("inspect --lines %s: want %s and 1 unfinished turn in\n%s", tc.window, tc.want, out)
		}
	}
}

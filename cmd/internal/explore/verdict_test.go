package explore

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/render"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/internal/samples"
	"github.com/agentskit/snapctl/replay"
)

// inspectReport is snapctl inspect's report of a capture, pinned to
// session unless empty, computed apart from the explorer.
func inspectReport(t *testing.T, file, session string) inspect.Report {
	t.Helper()
	rd, err := replay.Open([]string{file}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	rep, err := inspect.Run(rd, inspect.Options{Session: session})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// inspectVerdicts is what snapctl inspect judges of each session of a
// capture.
func inspectVerdicts(t *testing.T, file string) map[string]inspect.Verdict {
	rep := inspectReport(t, file, "")
	return rep.Verdicts()
}

// ndjsonSamples are the NDJSON captures of testdata, by absolute path.
func ndjsonSamples(t *testing.T) []string {
	var files []string
	for _, glob := range []string{"*.jsonl", "inspect/*.jsonl", "real-server/*.jsonl"} {
		fs, err := filepath.Glob(filepath.Join("..", "..", "..", "testdata", glob))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			abs, err := filepath.Abs(f)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, abs)
		}
	}
	return files
}

// TestExploreVerdictAgreesWithInspect checks, on every NDJSON capture of
// testdata, that the Lineage and Findings tabs of a line of each session
// say "no problems" exactly when inspect's verdict on that session is
// clean, and put the verdict in the words of every other view
// (render.VerdictWords): "1 unfinished turn", "1 info", as inspect,
// lineage and the report say it.
func TestExploreVerdictAgreesWithInspect(t *testing.T) {
	dirty := 0
	for _, file := range ndjsonSamples(t) {
		want := inspectVerdicts(t, file)
		m := newTestExplorer(t, 120, 40, "", file)
		seen := map[string]bool{}
		for p := range m.view {
			i := int(m.view[p])
			id := m.x.sessionID(m.x.row(i))
			if id == "" || seen[id] {
				continue
			}
			seen[id] = true
			m.setPos(p)
			for _, tab := range []string{"4", "5"} {
				press(m, tab)
				screen := strings.Join(m.lines, "\n")
				if tab == "4" && !strings.Contains(screen, "verdict: ") {
					continue // no accepted snapshot: no tree
				}
				if words := "verdict: " + render.VerdictWords(want[id]); !strings.Contains(screen, words) {
					t.Errorf("%s session %s tab %s: lacks %q, as the other views word it:\n%s", filepath.Base(file), id, tab, words, screen)
				}
				clean := want[id].Clean()
				if says := strings.Contains(screen, "no problems"); says != clean {
					t.Errorf("%s session %s tab %s: says no problems %v, inspect's verdict clean %v (%+v):\n%s",
						filepath.Base(file), id, tab, says, clean, want[id], screen)
				}
			}
			if !want[id].Clean() {
				dirty++
			}
		}
	}
	if dirty == 0 {
		t.Errorf("no capture has a session with problems: the test proves nothing")
	}
}

// TestExploreLineageOutcome checks that the Lineage tab tells how each
// turn ended, as snapctl lineage does: real-timeout's turn-1 timed out.
func TestExploreLineageOutcome(t *testing.T) {
	m := newTestExplorer(t, 120, 40, "", "real-server/real-timeout.jsonl")
	press(m, "4")
	screen := strings.Join(m.lines, "\n")
	for _, want := range []string{"timed-out SERVER_TIMEOUT (completed later)", "verdict: 1 problem (1 unfinished turn)\n",
		"turn-1  timed-out SERVER_TIMEOUT at line 22 (completed later at line 23", "turn-2  complete at line 35"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the Lineage tab lacks %q:\n%s", want, screen)
		}
	}
}

// TestExploreProblemsAreHowTurnsEnded checks where n stops on the
// captures of the real server, whose README says how each turn ended: at
// the line where a turn ended other than complete (abort's turn-1 cut off
// at line 9, timeout's SERVER_TIMEOUT diagnostic, fail's error snapshot)
// and at the malformed lines (the proxied error bodies); not at a gap of
// 2 at a turn boundary, which is how the server numbers turns.
func TestExploreProblemsAreHowTurnsEnded(t *testing.T) {
	for _, c := range []struct {
		file  string
		lines []int
	}{
		{"real-alpha.jsonl", nil},
		{"real-busy.jsonl", nil},
		{"real-abort.jsonl", []int{9}},
		{"real-timeout.jsonl", []int{22}},
		{"real-fail.jsonl", []int{33}},
		{"proxied-mix.jsonl", []int{522, 536, 635, 654, 655, 656, 657}},
	} {
		m := newTestExplorer(t, 120, 40, "", "real-server/"+c.file)
		var got []int
		for range 20 {
			before := m.pos
			press(m, "n")
			if m.pos == before {
				break
			}
			got = append(got, m.x.line(m.selected()))
		}
		if !slices.Equal(got, c.lines) {
			t.Errorf("%s: n stops at lines %v, want %v", c.file, got, c.lines)
		}
	}
}

// TestExploreLaterWords checks that the Lineage tab says how a later text
// differs from the delivered one in the words of every view
// (render.LaterWords): real-abort's turn-1, its later text rewritten so
// that it no longer starts with what the client got.
func TestExploreLaterWords(t *testing.T) {
	lines := bytes.Split(samples.Read(t, "real-server/real-abort.jsonl"), []byte("\n"))
	old := []byte(`"id":"msg-1796114756804-19","role":"assistant","content":"Reply to`)
	later := bytes.Replace(lines[9], old, []byte(`"id":"msg-1796114756804-19","role":"assistant","content":"Edited: Reply to`), 1)
	path := filepath.Join(t.TempDir(), "rewritten.jsonl")
	if err := os.WriteFile(path, slices.Concat(lines[8], []byte("\n"), later, []byte("\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	m := newTestExplorer(t, 200, 40, "", path)
	press(m, "4")
	screen := strings.Join(m.lines, "\n")
	if want := "turn-1  cut-off at line 1 (completed later at line 2, +8 characters, not starting with the delivered text)"; !strings.Contains(screen, want) {
		t.Errorf("the Lineage tab lacks %q:\n%s", want, screen)
	}
}

// TestExploreEventSaysWhereTurnEnded checks that the Event tab of a line
// n stops at because a turn ended there says so, in the words of
// inspect --line: real-abort's turn-1, cut off at line 9.
func TestExploreEventSaysWhereTurnEnded(t *testing.T) {
	m := newTestExplorer(t, 160, 40, "", "real-server/real-abort.jsonl")
	press(m, "n", "1")
	screen := strings.Join(m.lines, "\n")
	if want := "ended: turn-1 cut-off here (completed later at line 10, +0 characters)"; !strings.Contains(screen, want) {
		t.Errorf("the Event tab of line %d lacks %q:\n%s", m.selectedLine(), want, screen)
	}
	press(m, "j")
	if screen := strings.Join(m.lines, "\n"); strings.Contains(screen, "ended:") {
		t.Errorf("the Event tab of line %d says a turn ended there:\n%s", m.selectedLine(), screen)
	}
}

// TestExploreEndedAsTheVerdictCounts checks, on every NDJSON capture of
// testdata, that the Event tabs of the rows n stops at for an ending say,
// in all, that as many turns ended there as inspect's verdicts count
// unfinished: orphan-submit's t2 ended with a diagnostic and no accepted
// snapshot, so the lineage has no node of it, and its line 4 is one of
// them all the same, as inspect --line 4 says.
func TestExploreEndedAsTheVerdictCounts(t *testing.T) {
	for _, file := range ndjsonSamples(t) {
		want := 0
		for _, v := range inspectVerdicts(t, file) {
			want += int(v.Unfinished)
		}
		m := newTestExplorer(t, 120, 40, "", file)
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		for _, r := range m.x.ends {
			if !m.problem(int(r)) {
				t.Errorf("%s: n does not stop at line %d, where a turn ended", filepath.Base(file), m.x.line(int(r)))
			}
			m.endedHere(w, int(r))
		}
		w.Flush()
		if got := strings.Count(b.String(), "ended: "); got != want {
			t.Errorf("%s: the Event tabs say %d turns ended, inspect's verdicts count %d unfinished:\n%s", filepath.Base(file), got, want, b.String())
		}
	}
}

package explore

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/agentskit/snapctl/cmd/internal/render"
	"github.com/agentskit/snapctl/internal/samples"
	"github.com/agentskit/snapctl/internal/termsafe"
)

// inspectOutcomes are the turn outcomes of snapctl inspect --json, by
// session, in its order: each "turnId outcome[ code] at position", as
// explore's outcomes list words them.
func inspectOutcomes(t *testing.T, m *exploreModel, file, session string) map[string][]string {
	t.Helper()
	var b bytes.Buffer
	if err := render.WriteInspectJSON(&b, inspectReport(t, file, session)); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Overview struct {
			Sessions []struct {
				SessionID    string
				TurnOutcomes []struct {
					TurnID       string
					Outcome      string
					OutcomeCode  *string
					OutcomeFile  *string
					OutcomeLine  *int
					OutcomeEntry int
				}
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, s := range doc.Overview.Sessions {
		for _, o := range s.TurnOutcomes {
			w := termsafe.String(o.TurnID) + "  " + o.Outcome
			if o.OutcomeCode != nil {
				w += " " + termsafe.String(*o.OutcomeCode)
			}
			if o.OutcomeLine != nil {
				w += " at " + m.at(*o.OutcomeFile, o.OutcomeEntry, *o.OutcomeLine)
			}
			out[s.SessionID] = append(out[s.SessionID], w)
		}
	}
	return out
}

// exploreOutcomes are the lines of explore's outcomes list on row i's
// Lineage tab, without their indent and colour.
func exploreOutcomes(m *exploreModel, i int) []string {
	m.tab = tabLineage
	lines := m.detailLines(i, 1000)
	k := slices.IndexFunc(lines, func(l string) bool { return ansi.Strip(l) == "outcomes" })
	if k < 0 {
		return nil
	}
	var out []string
	for _, l := range lines[k+1:] {
		l = ansi.Strip(l)
		rest, ok := strings.CutPrefix(l, "  ")
		if !ok {
			break
		}
		out = append(out, rest)
	}
	return out
}

// TestExploreOutcomesAreInspects checks that explore's outcomes list, on
// the Lineage tab of a line of each session, names the turns inspect
// --json lists of the session, in its order, with the same outcome, code
// and line: on every capture of testdata/ (the real server's included),
// unpinned and pinned to its first session. Among them are turns the
// lineage has no node of (no accepted snapshot: a submit no snapshot
// answered, snapshots all inert), which a list drawn from the lineage
// missed.
func TestExploreOutcomesAreInspects(t *testing.T) {
	files := samples.All(t)
	// noNode counts, by outcome, the turns listed that the lineage has no
	// node of: the ones the list missed when drawn from the lineage.
	noNode := map[string]int{}
	for _, file := range files {
		m := newTestExplorer(t, 80, 24, "", file)
		ids := m.x.ids
		for _, session := range append([]string{""}, ids[:min(len(ids), 1)]...) {
			m := newTestExplorer(t, 80, 24, session, file)
			want := inspectOutcomes(t, m, file, session)
			nodes := map[string]bool{}
			for _, s := range m.x.sessions {
				for _, n := range s.Turns {
					nodes[s.SessionID+"\x00"+n.TurnID] = true
				}
			}
			for i, id := range sessionRows(m) {
				got := exploreOutcomes(m, i)
				// The later completion is worded by render.LaterAt for
				// both, and not in inspect's JSON as words.
				var cut []string
				for _, o := range got {
					o, _, _ = strings.Cut(o, " (completed later")
					cut = append(cut, o)
				}
				if !slices.Equal(cut, want[id]) {
					t.Errorf("%s pinned %q, line %d (session %s): explore's outcomes\n%s\ninspect's\n%s", filepath.Base(file), session,
						m.x.line(i), id, strings.Join(cut, "\n"), strings.Join(want[id], "\n"))
				}
				for _, w := range want[id] {
					turn, rest, _ := strings.Cut(w, "  ")
					if !nodes[id+"\x00"+turn] {
						word, _, _ := strings.Cut(rest, " ")
						noNode[word]++
					}
				}
			}
		}
	}
	t.Logf("turns listed without a lineage node, by outcome: %v", noNode)
	for _, word := range []string{"unanswered", "never-accepted"} {
		if noNode[word] == 0 {
			t.Errorf("no capture has a %s turn without a lineage node: the test proves less than it says", word)
		}
	}
}

// TestExploreOutcomesFollowToggles checks that explore's outcomes list,
// with a line toggled off, is inspect's of the capture without the line
// (turns and outcomes: the lines are numbered as in the capture), and
// inspect's of the capture once the line is back: on a capture with a
// turn never accepted, each line in turn.
func TestExploreOutcomesFollowToggles(t *testing.T) {
	file := filepath.Join(samples.Dir(), "inspect", "turn-never-accepted.jsonl")
	lines := strings.SplitAfter(string(samples.Read(t, filepath.Join("inspect", "turn-never-accepted.jsonl"))), "\n")
	words := func(outs []string) []string {
		var w []string
		for _, o := range outs {
			o, _, _ = strings.Cut(o, " at ")
			w = append(w, o)
		}
		return w
	}
	m := newTestExplorer(t, 80, 24, "", file)
	id := m.x.sessionID(m.x.row(0))
	orig := inspectOutcomes(t, m, file, "")[id]
	for k := range m.x.len() {
		without := filepath.Join(t.TempDir(), "without.jsonl")
		if err := os.WriteFile(without, []byte(strings.Join(slices.Delete(slices.Clone(lines), k, k+1), "")), 0o644); err != nil {
			t.Fatal(err)
		}
		want := inspectOutcomes(t, m, without, "")[id]
		m.selectRow(k)
		press(m, "x")
		m.Update(m.x.whatIfCmd(m.gen)())
		if got := exploreOutcomes(m, k); !slices.Equal(words(got), words(want)) {
			t.Errorf("line %d off: explore's outcomes\n%s\ninspect's without it\n%s", k+1, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		press(m, "x")
		if got := exploreOutcomes(m, k); !slices.Equal(got, orig) {
			t.Errorf("line %d back on: explore's outcomes\n%s\ninspect's\n%s", k+1, strings.Join(got, "\n"), strings.Join(orig, "\n"))
		}
	}
}

// TestExploreHistoryIsInspects checks that explore's tree tab says what a
// session's first accepted snapshot holds of earlier turns exactly when
// inspect counts some (earlierMessages), in its words: on every capture
// of testdata/, the real server's p-s-abort among them.
func TestExploreHistoryIsInspects(t *testing.T) {
	shown := 0
	for _, file := range samples.All(t) {
		var b bytes.Buffer
		if err := render.WriteInspectJSON(&b, inspectReport(t, file, "")); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Overview struct {
				Sessions []struct {
					SessionID       string
					EarlierMessages int
				}
			}
		}
		if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, s := range doc.Overview.Sessions {
			if h := render.HistoryWords(s.EarlierMessages); h != "" {
				want[s.SessionID] = "history: " + h
			}
		}
		m := newTestExplorer(t, 200, 40, "", file)
		for i, id := range sessionRows(m) {
			m.tab = tabLineage
			var got string
			for _, l := range m.detailLines(i, 1000) {
				if l = strings.TrimSpace(ansi.Strip(l)); strings.HasPrefix(l, "history: ") {
					got = l
				}
			}
			if got != want[id] {
				t.Errorf("%s session %s: explore says %q, inspect %q", filepath.Base(file), id, got, want[id])
			}
			if got != "" {
				shown++
			}
		}
	}
	if shown == 0 {
		t.Error("no capture has a session with history: the test proves nothing")
	}
}

// sessionRows are the first row of each session of the explorer's list,
// with the session's id.
func sessionRows(m *exploreModel) map[int]string {
	rows, seen := map[int]string{}, map[string]bool{}
	for i := range m.x.len() {
		id := m.x.sessionID(m.x.row(i))
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		rows[i] = id
	}
	return rows
}

// TestExploreTreeOfLineWithoutSession: a line that names no session (a
// server error body, malformed) has no tree, and the lineage tab says so
// rather than speak of "this line's session".
func TestExploreTreeOfLineWithoutSession(t *testing.T) {
	m := newTestExplorer(t, 120, 40, "", filepath.Join(samples.Dir(), "inspect", "request-refused.jsonl"))
	m.tab = tabLineage
	var got []string
	for _, l := range m.detailLines(1, 1000) {
		got = append(got, strings.TrimSpace(ansi.Strip(l)))
	}
	if !slices.Contains(got, "this line names no session: no tree") || slices.ContainsFunc(got, func(l string) bool { return strings.Contains(l, "this line's session") }) {
		t.Errorf("the lineage tab of line 2, an error body, reads %q", got)
	}
}

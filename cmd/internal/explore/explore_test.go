package explore

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/internal/samples"
	"github.com/agentskit/snapctl/replay"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// newTestExplorer indexes captures of the repository's testdata into a model of the
// given size, without colour.
func newTestExplorer(t *testing.T, w, h int, session string, files ...string) *exploreModel {
	t.Helper()
	return newTestExplorerRedact(t, w, h, session, false, files...)
}

// newTestExplorerRedact is newTestExplorer with --redact as redact says.
func newTestExplorerRedact(t *testing.T, w, h int, session string, redact bool, files ...string) *exploreModel {
	t.Helper()
	return newTestExplorerWith(t, w, h, replay.Options{Session: session}, redact, files...)
}

// newTestExplorerWith is newTestExplorer with the run's options (a
// window) and --redact as given.
func newTestExplorerWith(t *testing.T, w, h int, opts replay.Options, redact bool, files ...string) *exploreModel {
	t.Helper()
	for i, f := range files {
		if !filepath.IsAbs(f) {
			files[i] = filepath.Join("..", "..", "..", "testdata", f)
		}
	}
	rd, err := replay.Open(files, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	x, err := buildExploreIndex(rd, opts, redact)
	rd.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(x.close)
	ios, _, _ := iostreams.Test("")
	m := newExploreModel(x, ios.Palette(), redact)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// press sends keys to the model, one message per key; a word longer
// than one rune is one named key (enter, tab, esc).
func press(m *exploreModel, keys ...string) {
	for _, k := range keys {
		var msg tea.KeyPressMsg
		switch k {
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "tab":
			msg = tea.KeyPressMsg{Code: tea.KeyTab}
		case "esc":
			msg = tea.KeyPressMsg{Code: tea.KeyEscape}
		default:
			r := []rune(k)[0]
			msg = tea.KeyPressMsg{Code: r, Text: k}
		}
		_, cmd := m.Update(msg)
		for k == "x" && cmd != nil {
			// The what-if starting, then its findings and tree,
			// recomputed as the program would on a goroutine.
			_, cmd = m.Update(cmd())
		}
	}
}

// typeText sends each rune of s as a key.
func typeText(m *exploreModel, s string) {
	for _, r := range s {
		press(m, string(r))
	}
}

func (m *exploreModel) selectedLine() int { return m.x.line(m.selected()) }

func TestExploreNavigation(t *testing.T) {
	tests := []struct {
		name string
		keys []string
		line int
	}{
		{"starts on the first line", nil, 1},
		{"j moves down", []string{"j", "j"}, 3},
		{"k stops at the top", []string{"k"}, 1},
		{"G goes to the last line", []string{"G"}, 15},
		{"g goes back to the first", []string{"G", "g"}, 1},
		{"n stops where turn-1 ended in error", []string{"n"}, 6},
		{"n then skips to the first stale line", []string{"n", "n"}, 8},
		{"n skips the submit, N comes back", []string{"n", "n", "n", "N"}, 8},
		{"the last problem is the duplicate", []string{"n", "n", "n", "n", "n"}, 11},
		{": goes to a line", []string{":", "1", "2", "enter"}, 12},
		{": on a blank line goes to the next", []string{":", "7", "enter"}, 8},
		{"esc leaves the prompt", []string{":", "9", "esc"}, 1},
		{"] moves along the timeline", []string{"]", "]"}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newTestExplorer(t, 80, 24, "", "reconnect.jsonl")
			press(m, tt.keys...)
			if got := m.selectedLine(); got != tt.line {
				t.Errorf("selected line %d, want %d", got, tt.line)
			}
		})
	}
}

func TestExploreSearch(t *testing.T) {
	tests := []struct {
		name, query string
		line        int
	}{
		{"event id", "evt-turn-2-1", 13},
		{"turn id", "turn-2", 12},
		{"message id", "msg-turn-2-assistant", 12},
		{"text", "reconnected within", 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newTestExplorer(t, 80, 24, "", "reconnect.jsonl")
			press(m, "/")
			typeText(m, tt.query)
			press(m, "enter")
			if got := m.selectedLine(); got != tt.line {
				t.Errorf("search %q selected line %d, want %d (status %q)", tt.query, got, tt.line, m.status)
			}
		})
	}
}

// TestExploreWhatIf is the walk: on a 3-session capture, jump to
// the first stale line, see the projection before and after, toggle the
// snapshot the redelivery was judged against off, and see later verdicts
// recomputed.
func TestExploreWhatIf(t *testing.T) {
	m := newTestExplorer(t, 120, 40, "", "explore-sessions.jsonl")
	// Lines 16-18 are where each session's turn-1 ended in error.
	press(m, "n", "n", "n", "n")
	stale := m.selected()
	if r := m.x.reason(stale); r != replay.ReasonStale {
		t.Fatalf("n stopped at line %d, %s, want the first stale line", m.selectedLine(), r)
	}
	press(m, "2")
	proj := strings.Join(m.lines, "\n")
	if !strings.Contains(proj, "accepted at line 16: sequence 6") || !strings.Contains(proj, "the same projection before and after it") {
		t.Errorf("projection after the stale line:\n%s", proj)
	}
	// The stale line itself toggled off: marked, and nothing downstream
	// changes, as the cursor had refused it.
	var before []replay.Reason
	for i := range m.x.len() {
		before = append(before, m.x.reason(i))
	}
	press(m, "x")
	if !m.x.isOff(stale) || !strings.Contains(m.render(), "X   19 snap") {
		t.Errorf("the toggled stale line is not marked:\n%s", m.render())
	}
	for i := range before {
		if i != stale && before[i] != m.x.reason(i) {
			t.Errorf("line %d went from %s to %s", m.x.line(i), before[i], m.x.reason(i))
		}
	}
	press(m, "x")
	// Toggle off session alpha's snapshot of sequence 6 (line 16): its
	// redelivery on line 28 becomes the accepted one.
	press(m, ":", "1", "6", "enter", "x")
	if m.x.reason(m.selected()) != "" {
		t.Errorf("a toggled line keeps a verdict")
	}
	press(m, ":", "2", "8", "enter")
	if got := m.x.reason(m.selected()); got != replay.ReasonAdvanced {
		t.Errorf("line 28 after toggling line 16 off: %s, want advanced", got)
	}
	if !strings.Contains(strings.Join(m.lines, "\n"), "accepted at line 28: sequence 6") {
		t.Errorf("projection after line 28:\n%s", strings.Join(m.lines, "\n"))
	}
	// Other sessions are untouched.
	press(m, ":", "2", "9", "enter")
	if got := m.x.reason(m.selected()); got != replay.ReasonDuplicate {
		t.Errorf("line 29 (session beta): %s, want duplicate", got)
	}
	// A message found by its id, in the 3-session capture.
	press(m, "g", "/")
	typeText(m, "msg-turn-2-assistant")
	press(m, "enter")
	if got := m.selectedLine(); got != 31 {
		t.Errorf("message msg-turn-2-assistant found on line %d, want 31", got)
	}
	// Toggling back restores every verdict.
	press(m, ":", "1", "6", "enter", "x", ":", "2", "8", "enter")
	if got := m.x.reason(m.selected()); got != replay.ReasonDuplicate {
		t.Errorf("line 28 after toggling line 16 back on: %s, want duplicate", got)
	}
}

func TestExploreSessionFilter(t *testing.T) {
	tests := []struct {
		name  string
		typed string
		rows  int
	}{
		{"an id", "session-beta", 14},
		{"part of an id", "gamma", 10},
		{"tab completes", "session-a\t", 14},
		{"empty lists every session", "", 38},
		{"no match keeps the list", "delta", 38},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newTestExplorer(t, 80, 24, "", "explore-sessions.jsonl")
			press(m, "s")
			for _, r := range tt.typed {
				if r == '\t' {
					press(m, "tab")
				} else {
					press(m, string(r))
				}
			}
			press(m, "enter")
			if len(m.view) != tt.rows {
				t.Errorf("%d rows listed, want %d (status %q)", len(m.view), tt.rows, m.status)
			}
		})
	}
}

func TestExploreWrite(t *testing.T) {
	m := newTestExplorer(t, 80, 24, "", "reconnect.jsonl")
	dir := t.TempDir()
	out := filepath.Join(dir, "kept.jsonl")
	press(m, "n", "n", "x", "w") // line 6, where turn-1 ended in error; then line 8
	m.input.SetValue(out)
	press(m, "enter")
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("%v (status %q)", err, m.status)
	}
	if n := bytes.Count(b, []byte("\n")); n != 13 {
		t.Errorf("wrote %d lines, want 13 (14 events less the toggled one)", n)
	}
	// Line 8 redelivers evt-turn-1-1 of line 3: one copy is left.
	if n := bytes.Count(b, []byte(`"eventId":"evt-turn-1-1"`)); n != 1 {
		t.Errorf("evt-turn-1-1 written %d times, want once", n)
	}
}

// TestExploreFrames compares whole screens with golden files at 80×24
// and 120×40 (UPDATE_GOLDEN=1 rewrites them).
func TestExploreFrames(t *testing.T) {
	tests := []struct {
		name string
		w, h int
		file string
		keys []string
	}{
		{"event-80x24", 80, 24, "reconnect.jsonl", nil},
		{"projection-80x24", 80, 24, "reconnect.jsonl", []string{"n", "n", "2"}},
		{"diff-120x40", 120, 40, "reconnect.jsonl", []string{"G", "3"}},
		{"lineage-120x40", 120, 40, "explore-sessions.jsonl", []string{"G", "4"}},
		{"findings-120x40", 120, 40, "explore-sessions.jsonl", []string{"n", "n", "n", "n", "5"}},
		{"whatif-120x40", 120, 40, "explore-sessions.jsonl", []string{":", "1", "6", "enter", "x", "j"}},
		{"whatif-findings-120x40", 120, 40, "explore-sessions.jsonl", []string{":", "1", "6", "enter", "x", ":", "1", "9", "enter", "5"}},
		{"help-80x24", 80, 24, "reconnect.jsonl", []string{"?"}},
		{"detail-focus-80x24", 80, 24, "reconnect.jsonl", []string{"tab", "j", "j"}},
		{"malformed-field-120x40", 120, 40, "explore-malformed.jsonl", []string{"n"}},
		{"malformed-json-80x24", 80, 24, "explore-malformed.jsonl", []string{"n", "n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newTestExplorer(t, tt.w, tt.h, "", tt.file)
			press(m, tt.keys...)
			got := m.render()
			for i, l := range strings.Split(got, "\n") {
				if w := text.Width(l); w != tt.w {
					t.Errorf("line %d is %d cells wide, want %d: %q", i+1, w, tt.w, l)
				}
			}
			compareGolden(t, tt.name, got)
		})
	}
}

// compareGolden compares a frame with testdata/explore/NAME.golden;
// UPDATE_GOLDEN=1 rewrites the file.
func compareGolden(t *testing.T, name, got string) {
	t.Helper()
	golden := filepath.Join("..", "..", "..", "testdata", "explore", name+".golden")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		os.MkdirAll(filepath.Dir(golden), 0o755)
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("frame differs from %s:\n%s", golden, got)
	}
}

// TestExploreProgram runs the model in bubbletea's test harness at both
// sizes: keys in, and the final model's frame against a golden file.
func TestExploreProgram(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := newTestExplorer(t, size[0], size[1], "", "explore-sessions.jsonl")
			tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(size[0], size[1]))
			teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("LINE")) },
				teatest.WithDuration(5*time.Second))
			// n stops at lines 16-18, where each turn-1 ended in error, then
			// at line 19, stale.
			for _, k := range "nnnn2jx" {
				tm.Send(tea.KeyPressMsg{Code: k, Text: string(k)})
			}
			tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
			final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*exploreModel)
			if final.pending {
				// q came before the what-if's findings, which the list's
				// marks follow: the frame is compared once they are in.
				final.Update(final.x.whatIfCmd(final.gen)())
			}
			if got := final.selectedLine(); got != 20 {
				t.Errorf("selected line %d, want 20", got)
			}
			if !final.x.isOff(final.selected()) {
				t.Errorf("line 20 is not toggled off")
			}
			compareGolden(t, fmt.Sprintf("program-%dx%d", size[0], size[1]), final.render())
		})
	}
}

// TestExploreFollowsStream feeds a capture through a pipe, as `explore -`
// reads a live stream: rows appear as their lines arrive, a selection on
// the last row follows them, and findings come once the input ends.
func TestExploreFollowsStream(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "reconnect.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	pw, rd, feed := pipeFeed(t, replay.Options{})
	defer rd.Close()
	x := &exploreIndex{open: map[int]*os.File{}}
	t.Cleanup(x.close)
	ios, _, _ := iostreams.Test("")
	m := newExploreModel(x, ios.Palette(), false)
	m.feed = feed
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	waitRows := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); m.x.len() < n; {
			if time.Now().After(deadline) {
				t.Fatalf("%d rows after 5s, want %d", m.x.len(), n)
			}
			time.Sleep(5 * time.Millisecond)
			m.Update(exploreTickMsg{})
		}
	}
	for _, l := range lines[:6] {
		pw.Write(l)
	}
	waitRows(6)
	if got := ansi.Strip(m.bottomLine()); !strings.Contains(got, "reading…") {
		t.Errorf("no word of the reading while a stream is read: %q", got)
	}
	press(m, "G")
	if got := m.selectedLine(); got != 6 {
		t.Errorf("selected line %d, want 6", got)
	}
	for _, l := range lines[6:] {
		pw.Write(l)
	}
	pw.Close()
	waitRows(14)
	for deadline := time.Now().Add(5 * time.Second); m.feed != nil && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
		m.Update(exploreTickMsg{})
	}
	if m.feed != nil {
		t.Fatal("the feed did not end")
	}
	if got := m.selectedLine(); got != 15 {
		t.Errorf("selection did not follow the stream: line %d, want 15", got)
	}
	// The rows listed as they came are those listed at once.
	view, listed := slices.Clone(m.view), m.listed
	m.setView()
	if !slices.Equal(view, m.view) || listed != m.listed {
		t.Errorf("listed as they came %v, %+v; at once %v, %+v", view, listed, m.view, m.listed)
	}
	if len(m.x.findings) == 0 || !m.x.row(6).cited() {
		t.Errorf("findings %v, row 6 not marked cited", m.x.findings)
	}
	press(m, "k", "k", "k", "k", "2")
	if !strings.Contains(strings.Join(m.lines, "\n"), "accepted at line 6: sequence 6") {
		t.Errorf("projection of a spooled line:\n%s", strings.Join(m.lines, "\n"))
	}
}

// TestExploreHostileText checks that capture text reaches the screen
// escaped, and that --redact hides it.
func TestExploreHostileText(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "reconnect.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	hostile := bytes.ReplaceAll(data, []byte("Summarise the incident."), []byte(`\u001b]0;pwned\u0007\u202eSummarise`))
	file := filepath.Join(t.TempDir(), "hostile.jsonl")
	if err := os.WriteFile(file, hostile, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, redact := range []bool{false, true} {
		m := newTestExplorer(t, 120, 40, "", file)
		m.redact = redact
		for _, tab := range []string{"1", "2", "3", "4"} {
			press(m, ":", "6", "enter", tab)
			screen := m.render()
			if strings.ContainsAny(screen, "\x1b\x07\u202e") {
				t.Errorf("redact=%v tab %s: raw control characters on screen:\n%q", redact, tab, screen)
			}
			if redact && strings.Contains(screen, "Summarise") {
				t.Errorf("tab %s shows message text with --redact:\n%s", tab, screen)
			}
		}
		press(m, "2")
		if !redact && !strings.Contains(strings.Join(m.lines, "\n"), `\x1b]0;pwned\x07\u202eSummarise`) {
			t.Errorf("projection does not show the escaped text:\n%s", strings.Join(m.lines, "\n"))
		}
	}
}

// TestExploreWritePromptHostileName: the write prompt offers a name made
// from the capture's file name, which may hold control characters, bidi
// overrides and escape sequences: they reach the screen escaped, and the
// name offered is the one shown.
func TestExploreWritePromptHostileName(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "reconnect.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "c\x1b]0;pwned\x07\u202e\u200b\xff.jsonl")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	m := newTestExplorer(t, 120, 40, "", file)
	press(m, "w")
	screen := ansi.Strip(m.render()) // the prompt's own colours
	if strings.ContainsAny(screen, "\x1b\x07\u202e\u200b\xff") || !utf8.ValidString(screen) {
		t.Errorf("raw control characters on screen:\n%q", screen)
	}
	if want := `c\x1b]0;pwned\x07\u202e\u200b\xff.what-if.jsonl`; m.input.Value() != want || !strings.Contains(screen, want) {
		t.Errorf("the prompt offers %q, want %q", m.input.Value(), want)
	}
}

func TestExploreMouse(t *testing.T) {
	m := newTestExplorer(t, 80, 24, "", "reconnect.jsonl")
	m.Update(tea.MouseClickMsg{X: 79, Y: 0})
	if got := m.selectedLine(); got != 15 {
		t.Errorf("a click on the timeline's last cell selected line %d, want 15", got)
	}
	m.Update(tea.MouseClickMsg{X: 3, Y: 5})
	if got := m.selectedLine(); got != 3 {
		t.Errorf("a click on the list's third row selected line %d, want 3", got)
	}
	m.Update(tea.MouseClickMsg{X: 60, Y: 4})
	if !m.detail {
		t.Errorf("a click on the detail does not give it the keys")
	}
}

// TestExplorePinnedProjection checks that with --session every line,
// foreign and malformed ones included, shows the pinned session's
// projection: the only one the client holds.
func TestExplorePinnedProjection(t *testing.T) {
	m := newTestExplorer(t, 120, 40, "session-beta", "explore-sessions.jsonl")
	press(m, ":", "1", "9", "enter", "2") // session alpha's stale line: foreign here
	if got := m.x.reason(m.selected()); got != replay.ReasonForeignSession {
		t.Fatalf("line 19 is %s, want foreign-session", got)
	}
	if text := strings.Join(m.lines, "\n"); !strings.Contains(text, "session session-beta after line 19") ||
		!strings.Contains(text, "accepted at line 17: sequence 6") {
		t.Errorf("projection after a foreign line:\n%s", text)
	}
}

// TestExploreWhatIfFindings checks that findings follow the toggles: a
// redelivery toggled off is no longer a stale line of any finding.
func TestExploreWhatIfFindings(t *testing.T) {
	m := newTestExplorer(t, 120, 40, "", "reconnect.jsonl")
	names := func() bool { return m.x.findings[0].Names(m.x.name(m.x.row(6)), 8) }
	if len(m.x.findings) != 1 || !names() {
		t.Fatalf("findings of the capture: %+v", m.x.findings)
	}
	for _, l := range []string{"8", "9", "10", "11"} {
		press(m, ":")
		typeText(m, l)
		press(m, "enter", "x")
	}
	if len(m.x.findings) != 0 {
		t.Errorf("findings without the redeliveries: %+v", m.x.findings)
	}
	press(m, "x")
	if len(m.x.findings) != 1 || m.x.findings[0].Names(m.x.name(m.x.row(6)), 8) {
		t.Errorf("findings with line 11 back: %+v", m.x.findings)
	}
	if !m.x.findings[0].Names(m.x.name(m.x.row(9)), 11) {
		t.Errorf("the finding does not name line 11 of the capture: %+v", m.x.findings[0].Positions)
	}
	press(m, ":", "8", "enter", "x", ":", "9", "enter", "x", ":", "1", "0", "enter", "x")
	if len(m.x.findings) != 1 || !names() || m.pending {
		t.Errorf("findings with every line back: %+v", m.x.findings)
	}
}

// TestExploreOddCaptures presses every key on captures with nothing to
// show, or nothing valid, at sizes down to the smallest: nothing panics
// and every line fits.
func TestExploreOddCaptures(t *testing.T) {
	dir := t.TempDir()
	captures := map[string]string{
		"empty.jsonl":   "",
		"blank.jsonl":   "\n\n   \n",
		"garbage.jsonl": "not json\n{\"protocol\":1}\n\x1b[2J\n",
	}
	keys := []string{"j", "k", "G", "g", "n", "N", "]", "[", "x", "tab", "j", "tab", "h", "l", "1", "2", "3", "4", "5", "?", "k", "s", "enter", "/", "a", "enter", ":", "3", "enter", "w", "esc", "f", "p", "enter", "F", "f", "tab", "enter", "q"}
	for name, text := range captures {
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, size := range [][2]int{{80, 24}, {40, 10}, {20, 5}, {10, 3}} {
			m := newTestExplorer(t, size[0], size[1], "", file)
			for _, k := range keys {
				press(m, k)
				m.Update(tea.MouseClickMsg{X: size[0] / 2, Y: 0})
				for i, l := range strings.Split(m.render(), "\n") {
					if w := ansi.StringWidth(l); w > size[0] {
						t.Errorf("%s at %dx%d after %q: line %d is %d cells wide", name, size[0], size[1], k, i+1, w)
					}
				}
			}
		}
	}
}

func TestSharedPrefix(t *testing.T) {
	tests := []struct {
		name string
		ids  []string
		want string
	}{
		{"cut after the separator", []string{"session-alpha", "session-beta"}, "session-"},
		{"not inside a number", []string{"turn-1", "turn-10", "turn-2"}, "turn-"},
		{"the same id twice, blanks skipped", []string{"session-a", "", "session-a"}, "session-"},
		{"a single id", []string{"session-a"}, ""},
		{"nothing shared", []string{"a-1", "b-1"}, ""},
		{"no separator", []string{"abc", "abd"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sharedPrefix(func(yield func(string) bool) {
				for _, id := range tt.ids {
					if !yield(id) {
						return
					}
				}
			})
			if got != tt.want {
				t.Errorf("sharedPrefix(%q) = %q, want %q", tt.ids, got, tt.want)
			}
		})
	}
}

// TestExploreSpoolBound checks that the copy of a compressed capture
// stops at its bound with a message that says what to do, having written
// no more than the bound.
func TestExploreSpoolBound(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "reconnect.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "reconnect.jsonl.gz")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rd, ix := testIndexer(t, name)
	const bound = 1000
	ix.spoolMax = bound
	for {
		l, rerr := rd.Next()
		if errors.Is(rerr, io.EOF) {
			break
		}
		if _, _, err = ix.step(l); err != nil && !errors.Is(err, errOutsideWindow) {
			break
		}
	}
	if ix.spool != nil {
		defer ix.spool.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "stops at 1000 bytes: decompress the capture") {
		t.Fatalf("spooling %d bytes with a bound of %d: %v", len(data), bound, err)
	}
	if st, _ := ix.spool.Stat(); st.Size() > bound || ix.off > bound {
		t.Errorf("spooled %d bytes, over the bound of %d", st.Size(), bound)
	}
}

// TestExploreTurnTableBound checks that past the table's room a row's
// turn is read from its line, and is the same.
func TestExploreTurnTableBound(t *testing.T) {
	rd, ix := testIndexer(t, filepath.Join("..", "..", "..", "testdata", "lineage-operations.jsonl"))
	ix.maxTurns = 2
	x := &exploreIndex{open: map[int]*os.File{}}
	defer x.close()
	for {
		l, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		row, news, err := ix.step(l)
		if err != nil {
			t.Fatal(err)
		}
		x.add(row, news)
	}
	x.files = ix.files
	unlisted := 0
	for i := range x.len() {
		if _, ok := x.listedTurn(x.row(i)); !ok {
			unlisted++
		}
		want := ""
		if ev, _, _ := x.decode(i); ev != nil {
			want = ev.TurnID
		}
		if got := x.turnID(i); got != want {
			t.Errorf("line %d: turn %q, the line says %q", x.line(i), got, want)
		}
	}
	if len(x.turns) != 2 || unlisted == 0 {
		t.Errorf("%d turns listed, %d rows read from their line; want 2 and some", len(x.turns), unlisted)
	}
}

// testIndexer is a reader of file and an indexer to step its lines
// through, for tests that change the indexer's bounds.
func testIndexer(t *testing.T, file string) (*replay.Reader, *exploreIndexer) {
	t.Helper()
	rd, err := replay.Open([]string{file}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rd.Close() })
	ix, err := newExploreIndexer(replay.Options{}, false)
	if err != nil {
		t.Fatal(err)
	}
	return rd, ix
}

// TestExploreWhatIfOnce toggles two lines one after the other: one
// what-if starts, the last one's, and its findings are of the capture
// without both lines.
func TestExploreWhatIfOnce(t *testing.T) {
	m := newTestExplorer(t, 80, 24, "", "reconnect.jsonl")
	x := tea.KeyPressMsg{Code: 'x', Text: "x"}
	_, first := m.Update(x)
	press(m, "j")
	_, last := m.Update(x)
	if first == nil || last == nil {
		t.Fatal("a toggle starts no what-if")
	}
	if _, cmd := m.Update(first()); cmd != nil {
		t.Error("the what-if of the first toggle starts after a second toggle")
	}
	_, cmd := m.Update(last())
	if cmd == nil || !m.pending {
		t.Fatal("the what-if of the last toggle does not start")
	}
	msg := cmd().(exploreWhatIfMsg)
	m.Update(msg)
	if m.pending || msg.gen != m.gen || m.toggled() != 2 {
		t.Errorf("pending %v, what-if of generation %d of %d, %d lines off", m.pending, msg.gen, m.gen, m.toggled())
	}
}

// TestWriteFailedLeavesNoFile: a what-if file whose write fails part way
// (here, the capture can no longer be read back) is not left behind,
// half written, under a status that says it was not written.
func TestWriteFailedLeavesNoFile(t *testing.T) {
	abs, _ := filepath.Abs("../../../testdata/reconnect.jsonl")
	m := newTestExplorer(t, 80, 24, "", abs)
	path := filepath.Join(t.TempDir(), "out.what-if.jsonl")
	m.x.close()
	m.write(path)
	if !strings.HasPrefix(m.status, "not written: ") {
		t.Fatalf("status %q", m.status)
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("%s is left behind: %v", path, err)
	}
}

// TestExploreWriteKeepsTheCut: the capture written from the explorer is
// the one its what-if judged, a capture cut inside its last line
// (capture-cut) included: that line is written without a newline, so
// that inspect of the file written still finds the cut; a line toggled
// off before it changes nothing of that.
func TestExploreWriteKeepsTheCut(t *testing.T) {
	m := newTestExplorer(t, 120, 40, "", filepath.Join(samples.Dir(), "inspect", "capture-cut.jsonl"))
	for _, off := range []int{-1, 3} {
		if off >= 0 {
			m.x.toggle(off)
		}
		var kept bytes.Buffer
		if _, err := m.x.writeKept(&kept); err != nil {
			t.Fatal(err)
		}
		rd, err := replay.Open([]string{replay.StdinName}, bytes.NewReader(kept.Bytes()), 0)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := inspect.Run(rd, inspect.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(rep.Findings, func(f inspect.Finding) bool { return f.ID == inspect.CaptureCut }) {
			t.Errorf("toggled %d: the capture written (%d bytes, ends %q) has no capture-cut: %+v", off, kept.Len(), kept.Bytes()[max(0, kept.Len()-10):], rep.Findings)
		}
	}
}

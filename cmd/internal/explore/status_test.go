package explore

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/replay"
	"github.com/charmbracelet/x/ansi"
)

// screenRow is row k of the model's screen, without styles.
func screenRow(m *exploreModel, k int) string {
	rows := strings.Split(m.render(), "\n")
	if k < 0 {
		k += len(rows)
	}
	return ansi.Strip(rows[k])
}

// TestExploreLegendAndStatus checks the line under the timeline, which
// says what it plots, and the status line's place in the capture.
func TestExploreLegendAndStatus(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		m := newTestExplorer(t, size[0], size[1], "", "reconnect.jsonl")
		legend := screenRow(m, 1)
		for _, want := range []string{"▲ lines 1…15", "▁…█ accepted seq 2…10", "s stale", "d duplicate"} {
			if !strings.Contains(legend, want) {
				t.Errorf("%dx%d: legend %q lacks %q", size[0], size[1], legend, want)
			}
		}
		if strings.Contains(legend, "m malformed") {
			t.Errorf("%dx%d: legend %q names a letter the strip does not show", size[0], size[1], legend)
		}
		press(m, "n", "n") // line 6, where turn-1 ended in error, then line 8
		if status := screenRow(m, -1); !strings.HasPrefix(status, "line 8 of 15  ") {
			t.Errorf("%dx%d: status line %q, want line 8 of 15 first", size[0], size[1], status)
		}
	}
	m := newTestExplorer(t, 120, 40, "", "real-server/proxied.har")
	press(m, "G")
	if legend, status := screenRow(m, 1), screenRow(m, -1); !strings.HasPrefix(legend, "▲ entry 1:line 1 … entry ") ||
		!regexp.MustCompile(`^entry \d+:line \d+ of 22 entries  `).MatchString(status) {
		t.Errorf("HAR legend %q, status %q", legend, status)
	}
}

// TestExploreStatusFiles checks the status line over two captures,
// whose line numbers count within each: the row counts across them.
func TestExploreStatusFiles(t *testing.T) {
	m := newTestExplorer(t, 120, 40, "", "reconnect.jsonl", "clean.jsonl")
	press(m, "G")
	r := m.x.row(m.selected())
	want := fmt.Sprintf("%s:%d, %d of %d lines  ", m.x.name(r), r.line, m.x.len(), m.x.len())
	if status := screenRow(m, -1); !strings.HasPrefix(status, want) {
		t.Errorf("status line %q, want it to start %q", status, want)
	}
}

// TestExploreFilter sets each kind of filter with f and clears it with F.
func TestExploreFilter(t *testing.T) {
	m := newTestExplorer(t, 120, 40, "", "explore-sessions.jsonl")
	all := len(m.view)
	filter := func(v string) {
		press(m, "f")
		m.input.SetValue(v)
		press(m, "enter")
	}
	check := func(name string, keep func(i int) bool) {
		t.Helper()
		want := 0
		for i := range m.x.len() {
			if keep(i) {
				want++
			}
		}
		for _, i := range m.view {
			if !keep(int(i)) {
				t.Errorf("%s: line %d listed", name, m.x.line(int(i)))
			}
		}
		if len(m.view) != want || want == 0 || want == all {
			t.Errorf("%s: %d lines listed, want %d of %d", name, len(m.view), want, all)
		}
		if status := screenRow(m, -1); !strings.Contains(status, "filter "+name) {
			t.Errorf("%s: status line %q does not name the filter", name, status)
		}
	}
	filter("problems")
	check("problems", m.problem)
	press(m, "F")
	if len(m.view) != all {
		t.Errorf("F lists %d lines, want %d", len(m.view), all)
	}
	filter("turn turn-2")
	check("turn turn-2", func(i int) bool { return m.x.turnID(i) == "turn-2" })
	filter("finding stale")
	check("finding stale-redelivery", func(i int) bool {
		for _, f := range m.citing(i) {
			if f.ID == inspect.StaleRedelivery {
				return true
			}
		}
		return false
	})
	filter("session session-gamma")
	check("session session-gamma", func(i int) bool {
		return m.x.sessionID(m.x.row(i)) == "session-gamma" && len(m.citing(i)) > 0
	})
	filter("")
	if len(m.view) != all || m.session != 0 {
		t.Errorf("an empty filter lists %d lines, session %d", len(m.view), m.session)
	}
	filter("bogus")
	if len(m.view) != all || !strings.Contains(m.status, "not bogus") {
		t.Errorf("a bad filter: %d lines, status %q", len(m.view), m.status)
	}
}

// TestExploreSearchShowsMatch checks that a search scrolls the detail to
// its match, far down the Event tab, and marks it there.
func TestExploreSearchShowsMatch(t *testing.T) {
	m := newTestExplorer(t, 80, 24, "", "explore-sessions.jsonl")
	press(m, "/")
	typeText(m, "no data was lost")
	press(m, "enter")
	if m.tab != tabEvent || m.scroll == 0 {
		t.Fatalf("tab %d, detail scrolled to %d: want the Event tab, scrolled", m.tab, m.scroll)
	}
	screen := ansi.Strip(m.render())
	if !strings.Contains(screen, "»no data was lost«") {
		t.Errorf("the match is not marked on screen:\n%s", screen)
	}
	press(m, "j")
	if strings.Contains(ansi.Strip(m.render()), "«") {
		t.Errorf("the mark stays after the selection moved")
	}
}

// TestExploreTimelineRises checks that the strip of a capture whose
// sequences are Unix milliseconds rises from ▁ to █ along the capture,
// rather than a flat row of full bars.
func TestExploreTimelineRises(t *testing.T) {
	file, _ := writeMsCapture(t, 1, 400, 1000)
	m := newTestExplorer(t, 120, 40, "", file)
	strip := []rune(screenRow(m, 0))
	if first, last := strip[len(strip)/10], strip[len(strip)-1]; first != '▁' || last != '█' {
		t.Errorf("strip %q: want ▁ early and █ at the end", string(strip))
	}
}

// TestExploreSaysInputIncomplete: a capture read only up to its damage
// (a gzip file cut short) says so in the status line once read, as every
// other command's summary does, and not only on standard error after
// the view has closed.
func TestExploreSaysInputIncomplete(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "reconnect.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	file := filepath.Join(t.TempDir(), "cut.jsonl.gz")
	if err := os.WriteFile(file, gz.Bytes()[:gz.Len()-30], 0o644); err != nil {
		t.Fatal(err)
	}
	rd, err := replay.Open([]string{file}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	feed, err := startExploreFeed(rd, replay.Options{}, nil, spoolsNone([]string{file}), false)
	if err != nil {
		t.Fatal(err)
	}
	x := &exploreIndex{open: map[int]*os.File{}}
	t.Cleanup(x.close)
	ios, _, _ := iostreams.Test("")
	m := newExploreModel(x, ios.Palette(), false)
	m.feed = feed
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 24})
	for deadline := time.Now().Add(5 * time.Second); m.feed != nil && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
		m.Update(exploreTickMsg{})
	}
	if m.feed != nil {
		t.Fatal("the feed did not end")
	}
	if got := screenRow(m, -1); !strings.Contains(got, "incomplete input: ") || !strings.Contains(got, "damaged gzip data") {
		t.Errorf("status line %q: want it to say the input is incomplete, and why", got)
	}
}

package explore

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/render"
	"github.com/agentskit/snapctl/diff"
	"github.com/agentskit/snapctl/replay"
)

// replayReasons runs a capture through replay.Run, as snapctl replay does.
func replayReasons(t *testing.T, files []string, stdin []byte, session string) []replay.Reason {
	t.Helper()
	rd, err := replay.Open(files, bytes.NewReader(stdin), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var reasons []replay.Reason
	if _, err := replay.Run(rd, replay.Options{Session: session}, func(res *replay.Result) error {
		reasons = append(reasons, res.Reason)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return reasons
}

// TestExploreAgreesWithReplay checks the explorer's verdicts against
// replay's on every sample capture, unpinned and pinned to each session,
// and its what-if against replay of the capture written without the
// toggled line: toggling a line off is the same as never receiving it.
func TestExploreAgreesWithReplay(t *testing.T) {
	files, _ := filepath.Glob("../../../testdata/*.jsonl")
	cursor, _ := filepath.Glob("../../../testdata/conformance/cursor/*.jsonl")
	for _, f := range cursor {
		if !strings.HasSuffix(f, ".expected.jsonl") {
			files = append(files, f)
		}
	}
	for _, file := range files {
		abs, _ := filepath.Abs(file)
		m := newTestExplorer(t, 80, 24, "", abs)
		for _, session := range append([]string{""}, m.x.ids...) {
			m := newTestExplorer(t, 80, 24, session, abs)
			name := filepath.Base(file) + "/" + session
			want := replayReasons(t, []string{abs}, nil, session)
			if len(want) != m.x.len() {
				t.Fatalf("%s: %d rows, replay has %d", name, m.x.len(), len(want))
			}
			for i, r := range want {
				if got := m.x.reason(i); got != r {
					t.Errorf("%s: line %d: %s, replay says %s", name, m.x.line(i), got, r)
				}
			}
			for k := range m.x.len() {
				if m.x.row(k).tooLong() {
					continue
				}
				m.x.toggle(k)
				var kept bytes.Buffer
				if _, err := m.x.writeKept(&kept); err != nil {
					t.Fatal(err)
				}
				want := replayReasons(t, []string{replay.StdinName}, kept.Bytes(), session)
				var got []replay.Reason
				for i := range m.x.len() {
					if !m.x.isOff(i) && !m.x.row(i).tooLong() {
						got = append(got, m.x.reason(i))
					}
				}
				if strings.Join(reasonStrings(got), " ") != strings.Join(reasonStrings(want), " ") {
					t.Errorf("%s without line %d:\n got %v\nwant %v", name, m.x.line(k), got, want)
				}
				m.x.toggle(k)
			}
		}
	}
}

func reasonStrings(rs []replay.Reason) []string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = string(r)
	}
	return s
}

// TestExploreDiffAgreesWithDiff checks that the Diff tab of every
// accepted line says what snapctl diff says of its pair.
func TestExploreDiffAgreesWithDiff(t *testing.T) {
	files, _ := filepath.Glob("../../../testdata/*.jsonl")
	for _, file := range files {
		abs, _ := filepath.Abs(file)
		for _, session := range append([]string{""}, newTestExplorer(t, 80, 24, "", abs).x.ids...) {
			out := diffText(t, abs, session)
			want := map[string]bool{}
			for _, pair := range strings.Split(out, "\n@@ ") {
				if i := strings.LastIndex(pair, "\n\n"); i >= 0 && !strings.Contains(pair[i:], "@@") {
					pair = pair[:i] // the summary after the last pair
				}
				want[strings.TrimPrefix(strings.TrimSpace(pair), "@@ ")] = true
			}
			m := newTestExplorer(t, 500, 100, session, abs)
			press(m, "3")
			for i := range m.x.len() {
				if m.x.reason(i).Verdict() != replay.Accepted || m.x.prevAcc(i) < 0 {
					continue
				}
				m.selectRow(i)
				m.refresh()
				got := strings.TrimPrefix(strings.TrimSpace(strings.Join(m.lines, "\n")), "@@ ")
				if !want[got] {
					t.Errorf("%s %s line %d: the Diff tab says\n%s\nwhich is not a pair of snapctl diff:\n%s", filepath.Base(file), session, m.x.line(i), got, out)
				}
			}
		}
	}
}

// TestExploreWindow checks that --lines keeps the explorer to the lines
// replay keeps, with the same verdicts.
func TestExploreWindow(t *testing.T) {
	file, _ := filepath.Abs("../../../testdata/explore-sessions.jsonl")
	win := &replay.Window{Lines: []replay.LineRange{{First: 19, Last: 33}}}
	rd, err := replay.Open([]string{file}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	if _, err := replay.Run(rd, replay.Options{Window: win}, func(res *replay.Result) error {
		want = append(want, fmt.Sprintf("%d %s", res.Line, res.Reason))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	rd.Close()
	rd, err = replay.Open([]string{file}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	x, err := buildExploreIndex(rd, replay.Options{Window: win})
	rd.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer x.close()
	var got []string
	for i := range x.len() {
		got = append(got, fmt.Sprintf("%d %s", x.line(i), x.reason(i)))
	}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("explore keeps\n%v\nreplay keeps\n%v", got, want)
	}
	if len(got) != 15 {
		t.Errorf("%d rows, want 15", len(got))
	}
}

// diffText is what `snapctl diff --color never [--session S] FILE` writes:
// the same differ, options and text view as the command.
func diffText(t *testing.T, file, session string) string {
	t.Helper()
	rd, err := replay.Open([]string{file}, nil, replay.DefaultMaxLine)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var b strings.Builder
	out := bufio.NewWriter(&b)
	pal := (&iostreams.IOStreams{}).Palette()
	w := render.NewDiffText(out, pal, render.DiffTextOptions{})
	d := diff.NewDiffer(diff.Options{Session: session}, w.Pair)
	opts := replay.Options{Session: session, MaxLine: replay.DefaultMaxLine, RawMalformed: true, Messages: true}
	if _, err := replay.Run(rd, opts, d.Add); err != nil {
		t.Fatal(err)
	}
	if err := d.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	out.Flush()
	return b.String()
}

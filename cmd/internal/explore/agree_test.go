package explore

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentskit/snapctl/internal/samples"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/render"
	"github.com/agentskit/snapctl/diff"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/internal/hostile"
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
	x, err := buildExploreIndex(rd, replay.Options{Window: win}, false)
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
	sum, err := replay.Run(rd, opts, d.Add)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(sum.Input); err != nil {
		t.Fatal(err)
	}
	out.Flush()
	return b.String()
}

// fromScratch judges the rows in play through a fresh runner, in order,
// as if the rows toggled off had never arrived: the reason and the link
// (the row its cursor accepted last before it) of every row, which a
// toggle's few re-judged rows must reproduce.
func fromScratch(x *exploreIndex) (reasons []uint8, links []int32) {
	run, _ := replay.NewRunner(replay.Options{Session: x.opts.Session, MaxLine: x.opts.MaxLine})
	last := map[int]int32{}
	for i := range x.len() {
		r := x.row(i)
		acc, ok := last[x.key(r)]
		if !ok {
			acc = -1
		}
		links = append(links, acc)
		if r.flags&rowOff != 0 {
			reasons = append(reasons, 0)
			continue
		}
		var res replay.Result
		if r.malformed() || r.kind() == "" {
			res = run.Apply(x.name(r), int(r.line), nil, &replay.DecodeError{})
		} else {
			res = run.Apply(x.name(r), int(r.line), &replay.Event{Kind: r.kind(), SessionID: x.sessionID(r), Sequence: r.seq}, nil)
		}
		reasons = append(reasons, reasonCode(res.Reason))
		if res.Verdict() == replay.Accepted {
			last[x.key(r)] = int32(i)
		}
	}
	return reasons, links
}

// sameAsScratch reports the first row whose verdict or link differs from
// what fromScratch gives.
func sameAsScratch(t *testing.T, x *exploreIndex, what string) bool {
	t.Helper()
	reasons, links := fromScratch(x)
	for i := range x.len() {
		if r := x.row(i); r.reason != reasons[i] || r.link != links[i] {
			t.Errorf("%s: line %d is %s after row %d, from scratch %s after row %d", what, x.line(i),
				x.reason(i), r.link, replay.Reasons[max(int(reasons[i]), 1)-1], links[i])
			return false
		}
	}
	return true
}

// TestExploreToggleMatchesRecompute checks that a toggle, which judges
// again only the rows of one cursor until its state is back, leaves every
// row with the verdict and link that judging every row in play from
// scratch gives: each line off and back on, and every line off one after
// the other and back on, on every capture of testdata/, unpinned and
// pinned to its first sessions.
func TestExploreToggleMatchesRecompute(t *testing.T) {
	for _, file := range samples.All(t) {
		ids := newTestExplorer(t, 80, 24, "", file).x.ids
		for _, session := range append([]string{""}, ids[:min(len(ids), 3)]...) {
			x := newTestExplorer(t, 80, 24, session, file).x
			name := filepath.Base(file) + "/" + session
			if !sameAsScratch(t, x, name+" as read") {
				continue
			}
			ok := true
			for k := 0; k < x.len() && ok; k++ {
				x.toggle(k)
				ok = sameAsScratch(t, x, fmt.Sprintf("%s without line %d", name, x.line(k)))
				x.toggle(k)
				ok = ok && sameAsScratch(t, x, fmt.Sprintf("%s with line %d back", name, x.line(k)))
			}
			for k := 0; k < x.len() && ok; k++ {
				x.toggle(k)
				ok = sameAsScratch(t, x, fmt.Sprintf("%s without lines %d to %d", name, x.line(0), x.line(k)))
			}
			for k := 0; k < x.len() && ok; k++ {
				x.toggle(k)
				ok = sameAsScratch(t, x, fmt.Sprintf("%s with lines %d to %d back", name, x.line(0), x.line(k)))
			}
		}
	}
}

// pipeFeed reads standard input from a pipe, as `explore -` reads a
// live stream: the lines written to pw arrive in feed.
func pipeFeed(t *testing.T, opts replay.Options) (*io.PipeWriter, *replay.Reader, *exploreFeed) {
	t.Helper()
	pr, pw := io.Pipe()
	rd, err := replay.Open([]string{replay.StdinName}, pr, 0)
	if err != nil {
		t.Fatal(err)
	}
	feed, err := startExploreFeed(rd, opts, nil, false, false)
	if err != nil {
		t.Fatal(err)
	}
	return pw, rd, feed
}

// TestExploreToggleWhileReading toggles lines off while a capture is
// still arriving: the rows that come after are judged without them, as
// judging every row in play from scratch does.
func TestExploreToggleWhileReading(t *testing.T) {
	for _, name := range []string{"explore-sessions.jsonl", "interleaved.jsonl", "reconnect.jsonl", "clean.jsonl"} {
		for _, session := range []string{"", "session-7f3a"} {
			data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.SplitAfter(data, []byte("\n"))
			pw, rd, feed := pipeFeed(t, replay.Options{Session: session})
			x := &exploreIndex{opts: replay.Options{Session: session}, open: map[int]*os.File{}}
			half, rows := len(lines)/2, 0
			for _, l := range lines[:half] {
				if len(bytes.TrimSpace(l)) > 0 {
					rows++ // a blank line is framing, not a row
				}
			}
			go func() {
				for _, l := range lines[:half] {
					pw.Write(l)
				}
			}()
			for deadline := time.Now().Add(5 * time.Second); x.len() < rows; time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("%s: %d rows after 5s, want %d", name, x.len(), rows)
				}
				feed.take(x)
			}
			for i := 0; i < rows; i += 3 {
				x.toggle(i)
			}
			go func() {
				for _, l := range lines[half:] {
					pw.Write(l)
				}
				pw.Close()
			}()
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("%s: the feed did not end", name)
				}
				if _, done, _ := feed.take(x); done {
					break
				}
			}
			sameAsScratch(t, x, fmt.Sprintf("%s/%s, every third of the first %d rows off while reading", name, session, rows))
			rd.Close()
			x.close()
		}
	}
}

// TestExploreBlockReader checks that the what-if reads again, line for
// line, what the detail reads, on every capture of testdata/ and on one
// of several blocks, every third line skipped.
func TestExploreBlockReader(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(big, hostile.Sessions(2000, 2, 300), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(big); st.Size() < 2*readBlock {
		t.Fatalf("%d bytes, not several blocks", st.Size())
	}
	read := 0
	for _, file := range append(samples.All(t), big) {
		x := newTestExplorer(t, 80, 24, "", file).x
		blocks := &blockReader{x: x}
		for i := range x.len() {
			r := x.row(i)
			if i%3 == 1 || r.tooLong() {
				continue
			}
			want, err := x.raw(r)
			if err != nil {
				t.Fatal(err)
			}
			got, err := blocks.read(r)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s line %d: the what-if reads %q, the detail %q", filepath.Base(file), x.line(i), got, want)
			}
			read++
		}
	}
	if read < 4000 {
		t.Errorf("%d lines read", read)
	}
}

// TestExploreWhatIfOfNothing checks that the what-if's pass is the
// reading's: with no line toggled off, its findings, verdicts and tree
// are those of the capture as read, on every capture of testdata/,
// unpinned and pinned to its first session. But for delivery-gap: it
// needs the receipt time of each line of a capture snapctl record wrote,
// which the index does not keep (a row keeps the HAR entry of its
// origin only), so a what-if does not find it.
func TestExploreWhatIfOfNothing(t *testing.T) {
	for _, file := range samples.All(t) {
		ids := openIndex(t, file, replay.Options{}).ids
		for _, session := range append([]string{""}, ids[:min(len(ids), 1)]...) {
			x := openIndex(t, file, replay.Options{Session: session})
			rows, long := []int32{}, map[int32]bool{}
			for i := range x.len() {
				rows = append(rows, int32(i))
				if x.row(i).tooLong() {
					long[int32(i)] = true
				}
			}
			o, err := x.inspectRows(rows, long)
			findings, sessions, verdicts := o.findings, o.sessions, o.verdicts
			if err != nil {
				t.Fatal(err)
			}
			x.citedRows(findings, o.ended) // as the model takes them, positions capped
			read := slices.DeleteFunc(slices.Clone(x.origFindings), func(f inspect.Finding) bool { return f.ID == inspect.DeliveryGap })
			name := filepath.Base(file) + "/" + session
			if got, want := fmt.Sprintf("%+v", findings), fmt.Sprintf("%+v", read); got != want {
				t.Errorf("%s: the what-if of nothing finds\n%s\nthe reading\n%s", name, got, want)
			}
			if !reflect.DeepEqual(verdicts, x.origVerdicts) {
				t.Errorf("%s: the what-if of nothing's verdicts %+v, the reading's %+v", name, verdicts, x.origVerdicts)
			}
			if !reflect.DeepEqual(o.ended, x.origEnded) {
				t.Errorf("%s: the what-if of nothing's unfinished turns %+v, the reading's %+v", name, o.ended, x.origEnded)
			}
			if !reflect.DeepEqual(sessions, x.origSessions) {
				t.Errorf("%s: the what-if of nothing's tree differs from the reading's", name)
			}
			x.close()
		}
	}
}

// TestExploreFindsWhatInspectFinds checks that the explorer's findings
// are those of snapctl inspect, on every capture of testdata/, unpinned
// and pinned to its first session: those that read a malformed line's
// text (request-refused, glued-lines, unusable-input) included.
func TestExploreFindsWhatInspectFinds(t *testing.T) {
	found := map[string]bool{}
	for _, file := range samples.All(t) {
		ids := openIndex(t, file, replay.Options{}).ids
		for _, session := range append([]string{""}, ids[:min(len(ids), 1)]...) {
			x := openIndex(t, file, replay.Options{Session: session})
			rep := inspectReport(t, file, session)
			if got, want := fmt.Sprintf("%+v", x.findings), fmt.Sprintf("%+v", rep.Findings); got != want {
				t.Errorf("%s/%s: the explorer finds\n%s\ninspect\n%s", filepath.Base(file), session, got, want)
			}
			for _, f := range x.findings {
				found[f.ID] = true
			}
			x.close()
		}
	}
	for _, id := range []string{inspect.RequestRefused, inspect.GluedLines, inspect.UnusableInput} {
		if !found[id] {
			t.Errorf("no capture shows %s: the test proves less than it says", id)
		}
	}
}

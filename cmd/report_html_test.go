package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentskit/snapctl/cmd/internal/render"
	"github.com/agentskit/snapctl/cmd/internal/report"
	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/inspect/lineage"
	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/internal/samples"
	"github.com/agentskit/snapctl/replay"
	"golang.org/x/net/html"
)

// Tests of what the report's page shows, on its parsed HTML.

// parsePage parses a page that checkPage accepted.
func parsePage(t *testing.T, page string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// elements are the elements under n that match, in document order.
func elements(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && match(c) {
			out = append(out, c)
		}
		out = append(out, elements(c, match)...)
	}
	return out
}

// tag matches the elements of a name.
func tag(name string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Data == name }
}

// hasClass matches the elements of a class.
func hasClass(class string) func(*html.Node) bool {
	return func(n *html.Node) bool { return slices.Contains(strings.Fields(nodeAttr(n, "class")), class) }
}

// nodeAttr is the value of n's attribute key, "" when it has none.
func nodeAttr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// textOf is the text under n.
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// TestReportHAREntries checks that a HAR's positions name their entry,
// in the findings and the tables, and that every row has an id of its
// own although each entry's lines count from 1.
func TestReportHAREntries(t *testing.T) {
	doc := parsePage(t, runReport(t, []string{"../testdata/real-server/proxied.har"}, nil))
	entry := regexp.MustCompile(`^proxied\.har:entry [0-9]+:line [0-9]+$`)
	links := elements(doc, func(n *html.Node) bool { return n.Parent != nil && hasClass("pos")(n.Parent) })
	if len(links) == 0 {
		t.Fatal("no finding lists a position")
	}
	for _, a := range links {
		if !entry.MatchString(textOf(a)) {
			t.Errorf("finding position %q does not name its entry", textOf(a))
		}
	}
	ids := map[string]bool{}
	rows := elements(doc, func(n *html.Node) bool { return n.Data == "tr" && nodeAttr(n, "id") != "" })
	if len(rows) == 0 {
		t.Fatal("no rows")
	}
	for _, tr := range rows {
		id := nodeAttr(tr, "id")
		if ids[id] {
			t.Errorf("two rows have id %q", id)
		}
		ids[id] = true
		if pos := textOf(elements(tr, tag("td"))[0]); !entry.MatchString(pos) {
			t.Errorf("row %s: position %q does not name its entry", id, pos)
		}
	}
}

// TestReportTurnOutcomes checks, on captures of the real server, that
// the turn list and the lineage picture say how each turn ended, with the
// line that shows it, and colour green only a turn that ended complete.
func TestReportTurnOutcomes(t *testing.T) {
	tests := []struct {
		capture string
		// outcomes are the turn list's outcome cells, in order; ended the
		// first turn's "ended at" cell.
		outcomes []string
		ended    string
	}{
		{"real-timeout", []string{"timed-out SERVER_TIMEOUT (completed later)", "complete"}, "real-timeout.jsonl:22"},
		{"real-abort", []string{"cut-off (completed later)", "complete"}, "real-abort.jsonl:9"},
		{"real-fail", []string{"complete", "error CHAT_TURN_FAILED", "complete"}, ""},
		{"real-alpha", []string{"complete", "complete", "complete"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.capture, func(t *testing.T) {
			doc := parsePage(t, runReport(t, []string{"../testdata/real-server/" + tt.capture + ".jsonl"}, nil))
			rows := elements(doc, func(n *html.Node) bool {
				return n.Data == "tr" && n.Parent != nil && hasClass("turns")(n.Parent.Parent)
			})
			rows = rows[1:] // the header
			if len(rows) != len(tt.outcomes) {
				t.Fatalf("%d turns listed, want %d", len(rows), len(tt.outcomes))
			}
			boxes := elements(doc, func(n *html.Node) bool { return n.Data == "g" && strings.HasPrefix(nodeAttr(n, "id"), "s1-t") })
			if len(boxes) != len(rows) {
				t.Fatalf("%d lineage boxes, want %d", len(boxes), len(rows))
			}
			for i, tr := range rows {
				cells := elements(tr, tag("td"))
				if got := textOf(cells[2]); got != tt.outcomes[i] {
					t.Errorf("turn %d: outcome %q, want %q", i+1, got, tt.outcomes[i])
				}
				complete := tt.outcomes[i] == "complete"
				if hasClass("t-complete")(tr) != complete {
					t.Errorf("turn %d (%s): row class %q", i+1, tt.outcomes[i], nodeAttr(tr, "class"))
				}
				// The box is the turn's: its outcome line is green, and its
				// fill its operation's (submit's is green), only if complete.
				rect := elements(boxes[i], tag("rect"))[0]
				green := len(elements(boxes[i], hasClass("st-complete"))) > 0 || nodeAttr(rect, "fill") == "#e6f4ea"
				if green != complete {
					t.Errorf("turn %d (%s): box green %v", i+1, tt.outcomes[i], green)
				}
				if !strings.Contains(textOf(boxes[i]), tt.outcomes[i]) {
					t.Errorf("turn %d: box %q lacks outcome %q", i+1, textOf(boxes[i]), tt.outcomes[i])
				}
			}
			if tt.ended != "" {
				a := elements(elements(rows[0], tag("td"))[3], tag("a"))
				if len(a) != 1 || textOf(a[0]) != tt.ended {
					t.Fatalf("turn 1 ended at %q, want a link to %s", textOf(elements(rows[0], tag("td"))[3]), tt.ended)
				}
				if id := strings.TrimPrefix(nodeAttr(a[0], "href"), "#"); len(elements(doc, func(n *html.Node) bool { return nodeAttr(n, "id") == id })) != 1 {
					t.Errorf("the link to %s has no row", tt.ended)
				}
			}
		})
	}
}

// inspectVerdicts runs inspect on files and returns its verdict on each
// session.
func inspectVerdicts(t *testing.T, files []string) map[string]inspect.Verdict {
	t.Helper()
	rep := inspectReport(t, files, 0)
	return rep.Verdicts()
}

// TestReportVerdicts checks, on every capture in testdata, that the page
// gives each session inspect's verdict, in the sessions table and its
// section's heading, and colours it green, or says "no problems", only
// when the verdict is clean.
func TestReportVerdicts(t *testing.T) {
	unclean := 0
	for _, name := range samples.All(t) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			verdicts := inspectVerdicts(t, []string{name})
			doc := parsePage(t, runReport(t, []string{name}, nil))
			shown := elements(doc, hasClass("verdict"))
			if len(shown) < len(verdicts) {
				t.Fatalf("%d verdicts shown for %d sessions", len(shown), len(verdicts))
			}
			for _, tr := range elements(doc, tag("tr")) {
				cells := elements(tr, tag("td"))
				if len(cells) < 2 || len(elements(cells[1], hasClass("verdict"))) == 0 {
					continue
				}
				id := textOf(cells[0])
				v, ok := verdicts[id]
				if !ok {
					t.Fatalf("session %q: inspect has no verdict", id)
				}
				checkVerdict(t, "sessions table, "+id, elements(cells[1], hasClass("verdict"))[0], v)
				if !v.Clean() {
					unclean++
				}
			}
			for _, sec := range elements(doc, hasClass("session")) {
				h := elements(sec, tag("h2"))[0]
				id := textOf(elements(h, tag("code"))[0])
				checkVerdict(t, "section of "+id, elements(h, hasClass("verdict"))[0], verdicts[id])
				// Its lineage boxes take their operations' colours, submit's
				// green, only when the session is clean.
				for _, rect := range elements(sec, func(n *html.Node) bool { return n.Data == "rect" && n.Parent.Data == "g" }) {
					if green := nodeAttr(rect, "fill") == render.OpStyle[lineage.OpSubmit][0]; green && !verdicts[id].Clean() {
						t.Errorf("section of %s (%s): a green lineage box", id, render.VerdictWords(verdicts[id]))
					}
				}
			}
		})
	}
	if unclean == 0 {
		t.Error("no capture has a session with problems: the test proves nothing")
	}
}

// checkVerdict checks one verdict shown: inspect's words, and green only
// when clean.
func checkVerdict(t *testing.T, where string, n *html.Node, v inspect.Verdict) {
	t.Helper()
	if got, want := textOf(n), render.VerdictWords(v); got != want {
		t.Errorf("%s: verdict %q, want %q", where, got, want)
	}
	if hasClass("clean")(n) != v.Clean() || strings.HasPrefix(textOf(n), "no problems") != v.Clean() {
		t.Errorf("%s: verdict %q shown as %q, clean %v", where, textOf(n), nodeAttr(n, "class"), v.Clean())
	}
}

// timestampCapture is a session of n snapshots numbered by their
// emittedAt in milliseconds, as a server that uses the clock for a
// sequence does: every tenth shares the millisecond of the one before.
func timestampCapture(n int) []byte {
	var b strings.Builder
	ms := int64(1783738800000)
	line := func(id int, kind string, seq int64, payload string) {
		fmt.Fprintf(&b, `{"protocol":"agentskit.chat.turn","version":1,"eventId":"e%d","sessionId":"s-ms","turnId":"t1","sequence":%d,"emittedAt":"%s","event":"%s","payload":%s}`+"\n",
			id, seq, time.UnixMilli(seq).UTC().Format("2006-01-02T15:04:05.000Z"), kind, payload)
	}
	line(0, "client.turn.submit", ms, `{"input":"hi"}`)
	for i := 1; i <= n; i++ {
		if i%10 != 0 {
			ms += 3
		}
		status := "streaming"
		if i == n {
			status = "complete"
		}
		line(i, "server.turn.snapshot", ms, fmt.Sprintf(`{"status":"%s","usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"messages":[{"id":"m-a1","role":"assistant","content":"%s","status":"%s","createdAt":"2026-07-11T03:00:00.000Z"}],"lineage":{"operation":"submit"}}`,
			status, strings.Repeat("a", i), status))
	}
	return []byte(b.String())
}

// TestReportRingsEveryCitedLine checks that the charts ring every line
// an error or warning finding cites, however many, exact or aggregated:
// the rings of a session's chart stand for as many lines as its findings
// cite.
func TestReportRingsEveryCitedLine(t *testing.T) {
	big := filepath.Join(t.TempDir(), "timestamps.jsonl")
	if err := os.WriteFile(big, timestampCapture(3000), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, files := range [][]string{{big}, {"../testdata/inspect/sequence-collision.jsonl"}, {"../testdata/reconnect.jsonl"}, {"../testdata/real-server/proxied.har"}} {
		t.Run(filepath.Base(files[0]), func(t *testing.T) {
			rep := inspectReport(t, files, report.MaxPositions)
			cited := map[string]map[inspect.Position]bool{}
			for _, f := range rep.Findings {
				if len(f.Positions) != f.PositionCount {
					t.Errorf("%s lists %d of its %d positions", f.ID, len(f.Positions), f.PositionCount)
				}
				if f.Severity == inspect.SeverityInfo {
					continue
				}
				if cited[f.SessionID] == nil {
					cited[f.SessionID] = map[inspect.Position]bool{}
				}
				for _, p := range f.Positions {
					cited[f.SessionID][p] = true
				}
			}
			doc := parsePage(t, runReport(t, files, nil))
			for _, sec := range elements(doc, hasClass("session")) {
				id := textOf(elements(elements(sec, tag("h2"))[0], tag("code"))[0])
				for _, chart := range elements(sec, hasClass("chart")) {
					n := 0
					for _, ring := range elements(chart, hasClass("ring")) {
						k, err := strconv.Atoi(nodeAttr(ring, "data-n"))
						if err != nil || k < 1 {
							t.Fatalf("ring of %q lines", nodeAttr(ring, "data-n"))
						}
						n += k
					}
					if n != len(cited[id]) {
						t.Errorf("session %s, chart by %s: rings for %d lines, findings cite %d", id, nodeAttr(chart, "data-x"), n, len(cited[id]))
					}
				}
			}
			if files[0] == big {
				if len(cited["s-ms"]) <= inspect.DefaultMaxPositions {
					t.Fatalf("findings cite %d lines: the test proves nothing", len(cited["s-ms"]))
				}
				if len(elements(doc, hasClass("ring"))) == 2*len(cited["s-ms"]) {
					t.Error("the chart is not aggregated: the test proves nothing of aggregated rings")
				}
			}
		})
	}
}

// inspectReport runs inspect on files, listing at most max positions per
// finding.
func inspectReport(t *testing.T, files []string, max int) inspect.Report {
	t.Helper()
	rd, err := replay.Open(files, nil, replay.DefaultMaxLine)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	in := inspect.New(inspect.Options{MaxLine: replay.DefaultMaxLine, MaxPositions: max})
	// As the commands run it (inspect.ReplayOptions): payload hashes tell
	// a reused sequence, the raw malformed lines glued lines.
	sum, err := replay.Run(rd, inspect.ReplayOptions(replay.Options{MaxLine: replay.DefaultMaxLine}), func(res *replay.Result) error {
		in.Observe(res)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return in.Finish(sum)
}

// TestReportProblemRowsAreHowTurnsEnded checks, on every capture in
// testdata with every row shown, that a row that is no problem in itself
// is coloured a problem exactly when a turn its verdict counts unfinished
// ended there, as
// inspect's endings say (real-abort's turn-1 cut off at line 9, real-fail's
// error snapshot), as explore's n stops there (inspect.ProblemReason); a
// sequence gap is a note, not a problem: a gap of 2 at each turn boundary
// is how the real server numbers turns.
func TestReportProblemRowsAreHowTurnsEnded(t *testing.T) {
	gaps, ends := 0, 0
	for _, name := range samples.All(t) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			// A turn never accepted, unanswered, or that orphan-submit
			// names (orphan-submit's t2: a diagnostic and no snapshot) is
			// its finding's problem, and cited as such; any other
			// unfinished one is where it ended, on whatever line: an error
			// snapshot, a cut-off stream's last.
			ended := map[string]bool{}
			for _, s := range inspectReport(t, []string{name}, report.MaxPositions).Overview.Sessions {
				for _, e := range s.Unfinished() {
					if e.Ending == model.EndComplete {
						t.Errorf("%s: turn %s counted unfinished, and complete", s.SessionID, e.TurnID)
					}
					if e.At.Line > 0 {
						ended[text.Position(filepath.Base(e.At.File), e.At.Entry, e.At.Line)] = true
					}
				}
			}
			doc := parsePage(t, runReport(t, []string{name}, func(o *reportOptions) { o.AllEvents = true }))
			for _, tr := range elements(doc, func(n *html.Node) bool { return n.Data == "tr" && strings.HasPrefix(nodeAttr(n, "id"), "e-") }) {
				cells := elements(tr, tag("td"))
				if inspect.ProblemReason(replay.Reason(textOf(cells[2]))) {
					continue // a problem in itself
				}
				pos := textOf(cells[0])
				if hasClass("problem")(tr) != ended[pos] {
					t.Errorf("%s (%s): coloured a problem %v, a turn counted unfinished ended there %v", pos, textOf(cells[4]), hasClass("problem")(tr), ended[pos])
				}
				if strings.Contains(textOf(cells[4]), "gap") && !ended[pos] {
					gaps++
				}
				if ended[pos] {
					ends++
				}
			}
		})
	}
	if gaps == 0 || ends == 0 {
		t.Errorf("%d gap rows, %d rows where a turn ended unfinished: the test proves nothing", gaps, ends)
	}
}

// TestReportRowsSayWhy checks that every event table has the legend of
// its row colours, and that each row marked as cited names the error and
// warning findings that cite it, and only those.
func TestReportRowsSayWhy(t *testing.T) {
	cited := 0
	for _, name := range samples.All(t) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			by := map[string][]string{}
			for _, f := range inspectReport(t, []string{name}, report.MaxPositions).Findings {
				if f.Severity == inspect.SeverityInfo {
					continue
				}
				for _, p := range f.Positions {
					pos := text.Position(filepath.Base(p.File), p.Entry, p.Line)
					if !slices.Contains(by[pos], f.ID) {
						by[pos] = append(by[pos], f.ID)
					}
				}
			}
			doc := parsePage(t, runReport(t, []string{name}, nil))
			for _, box := range elements(doc, hasClass("rows")) {
				legend := box.PrevSibling
				for legend != nil && legend.Type != html.ElementNode {
					legend = legend.PrevSibling
				}
				if legend == nil || !hasClass("rows-legend")(legend) {
					t.Error("an event table without the legend of its colours")
				}
			}
			for _, tr := range elements(doc, func(n *html.Node) bool { return n.Data == "tr" && strings.HasPrefix(nodeAttr(n, "id"), "e-") }) {
				cells := elements(tr, tag("td"))
				pos := textOf(cells[0])
				why := elements(cells[4], hasClass("why"))
				if hasClass("cited")(tr) != (by[pos] != nil) || (len(why) > 0) != (by[pos] != nil) {
					t.Errorf("%s: marked cited %v, says why %d, findings cite it: %v", pos, hasClass("cited")(tr), len(why), by[pos])
					continue
				}
				if len(why) > 0 {
					cited++
					if got, want := textOf(why[0]), "cited by "+strings.Join(by[pos], ", "); got != want {
						t.Errorf("%s: %q, want %q", pos, got, want)
					}
				}
			}
		})
	}
	if cited == 0 {
		t.Error("no row is cited: the test proves nothing")
	}
}

// TestReportTablesScroll checks that every table and picture of the page
// is inside a box that scrolls sideways, so that at 390 pixels nothing
// is off the page: the page itself never scrolls sideways.
func TestReportTablesScroll(t *testing.T) {
	doc := parsePage(t, runReport(t, []string{"../testdata/real-server/real-timeout.jsonl", "../testdata/reconnect.jsonl"}, nil))
	inScroll := func(n *html.Node) bool {
		for p := n.Parent; p != nil; p = p.Parent {
			if hasClass("scroll")(p) {
				return true
			}
		}
		return false
	}
	n := 0
	for _, el := range elements(doc, func(n *html.Node) bool {
		return n.Data == "table" || n.Data == "svg" && (hasClass("chart")(n) || hasClass("lineage")(n))
	}) {
		n++
		if !inScroll(el) {
			t.Errorf("a <%s class=%q> outside a scroll box", el.Data, nodeAttr(el, "class"))
		}
	}
	if n < 8 {
		t.Errorf("%d tables and pictures: the test proves little", n)
	}
}

// TestReportMalformedEnvelope checks that a malformed line's row gives
// what its envelope says, as replay does: event id, kind, turn and
// sequence, and the session in its detail.
func TestReportMalformedEnvelope(t *testing.T) {
	withEnvelope := 0
	for _, name := range samples.All(t) {
		envs := map[string]*replay.Envelope{}
		rd, err := replay.Open([]string{name}, nil, replay.DefaultMaxLine)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := replay.Run(rd, replay.Options{}, func(res *replay.Result) error {
			if res.Err != nil && res.Err.Envelope != nil {
				e := *res.Err.Envelope
				envs[text.Position(filepath.Base(res.File), 0, res.Line)] = &e
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		rd.Close()
		if len(envs) == 0 {
			continue
		}
		t.Run(filepath.Base(name), func(t *testing.T) {
			doc := parsePage(t, runReport(t, []string{name}, nil))
			for _, tr := range elements(doc, hasClass("r-malformed")) {
				cells := elements(tr, tag("td"))
				env := envs[textOf(cells[0])]
				if env == nil {
					continue
				}
				withEnvelope++
				seq := ""
				if env.HasSequence {
					seq = strconv.FormatInt(env.Sequence, 10)
				}
				got := []string{textOf(cells[3]), textOf(cells[5]), textOf(cells[6]), textOf(cells[7])}
				want := []string{seq, env.TurnID, env.EventID, render.ShortKind(replay.Kind(env.Event))}
				if !slices.Equal(got, want) {
					t.Errorf("%s: seq, turn, event id, kind %q, want %q", textOf(cells[0]), got, want)
				}
				if env.SessionID != "" && !strings.Contains(textOf(cells[4]), "session "+env.SessionID+" · ") {
					t.Errorf("%s: detail %q lacks session %s", textOf(cells[0]), textOf(cells[4]), env.SessionID)
				}
			}
		})
	}
	if withEnvelope == 0 {
		t.Error("no malformed line with an envelope: the test proves nothing")
	}
}

// TestReportReceiptTimes: the rows of a record capture say when each line
// reached the proxy, as replay's table does.
func TestReportReceiptTimes(t *testing.T) {
	page := runReport(t, []string{"../testdata/inspect/delivery-gap.jsonl"}, func(o *reportOptions) { o.AllEvents = true })
	for _, want := range []string{"request 1 (200) at 2026-12-01T12:00:00.100Z", "delivery-gap"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestReportTurnListIsTheModels checks, on every capture in testdata,
// that each drawn session's turn list names the turns of the model's
// endings (inspect's outcomes line), in their order, with their ending:
// a turn with no accepted snapshot, which the lineage has not (a
// diagnostic alone, orphan-submit's t2), is listed too.
func TestReportTurnListIsTheModels(t *testing.T) {
	listed := 0
	for _, name := range samples.All(t) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			want := map[string][]string{}
			for _, s := range inspectReport(t, []string{name}, report.MaxPositions).Overview.Sessions {
				for _, e := range s.Endings() {
					want[s.SessionID] = append(want[s.SessionID], e.TurnID+" "+e.Ending.String())
				}
			}
			doc := parsePage(t, runReport(t, []string{name}, nil))
			for _, sec := range elements(doc, hasClass("session")) {
				if sec.Data != "section" {
					continue
				}
				h2 := elements(sec, tag("h2"))
				id := textOf(elements(h2[0], tag("code"))[0])
				var got []string
				for _, tb := range elements(sec, hasClass("turns")) {
					for _, tr := range elements(tb, tag("tr"))[1:] {
						cells := elements(tr, tag("td"))
						got = append(got, textOf(cells[0])+" "+strings.Fields(textOf(cells[2]))[0])
					}
				}
				w := want[id][:min(len(want[id]), 500)] // reportLineageTurns
				if strings.Join(got, "; ") != strings.Join(w, "; ") {
					t.Errorf("session %s lists turns %q; the model's endings are %q", id, got, w)
				}
				listed += len(got)
			}
		})
	}
	if listed == 0 {
		t.Fatal("no turn listed: the test proves nothing")
	}
}

package cmd

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/report"
	"github.com/agentskit/snapctl/internal/hostile"
	"github.com/agentskit/snapctl/replay"
	"golang.org/x/net/html"
)

// runReport writes the report of files and returns the page.
func runReport(t *testing.T, files []string, edit func(*reportOptions)) string {
	t.Helper()
	ios, _, _ := iostreams.Test("")
	out := filepath.Join(t.TempDir(), "report.html")
	o := &reportOptions{IO: ios, Output: "html", Out: out, Now: func() time.Time { return time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC) }}
	o.Files, o.MaxLine = files, replay.DefaultMaxLine
	if edit != nil {
		edit(o)
	}
	if err := o.finish(ios, reportRun(o)); err != nil {
		t.Fatalf("report: %v", err)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	checkPage(t, string(page))
	return string(page)
}

// htmlVoid are the elements without an end tag.
var htmlVoid = map[string]bool{"meta": true, "input": true, "br": true, "hr": true, "link": true, "img": true, "wbr": true}

// checkPage checks that a page is well formed (every element closed, in
// order) and self-contained: its Content-Security-Policy first in <head>,
// no script, no event handler, no resource or link off the page.
func checkPage(t *testing.T, page string) {
	t.Helper()
	z := html.NewTokenizer(strings.NewReader(page))
	var open []string
	inHead, cspFirst := false, false
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				t.Fatalf("tokenizing: %v", z.Err())
			}
			break
		}
		tok := z.Token()
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			if inHead {
				inHead = false
				cspFirst = tok.Data == "meta" && attr(tok, "http-equiv") == "Content-Security-Policy" && attr(tok, "content") == report.CSP
			}
			inHead = tok.Data == "head"
			if tok.Data == "script" || tok.Data == "iframe" || tok.Data == "object" || tok.Data == "embed" || tok.Data == "link" || tok.Data == "img" || tok.Data == "base" || tok.Data == "form" {
				t.Errorf("page has a <%s> element", tok.Data)
			}
			for _, a := range tok.Attr {
				switch {
				case a.Key == "src" || strings.HasPrefix(a.Key, "on"):
					t.Errorf("<%s> has attribute %s=%q", tok.Data, a.Key, a.Val)
				case (a.Key == "href" || a.Key == "xlink:href") && !strings.HasPrefix(a.Val, "#"):
					t.Errorf("<%s> links off the page: %q", tok.Data, a.Val)
				case a.Key == "style" && loadsSomething(a.Val):
					t.Errorf("<%s> style loads something: %q", tok.Data, a.Val)
				}
			}
			if tt == html.StartTagToken && !htmlVoid[tok.Data] {
				open = append(open, tok.Data)
			}
		case html.TextToken:
			if len(open) > 0 && open[len(open)-1] == "style" && loadsSomething(tok.Data) {
				t.Error("the style loads something")
			}
		case html.EndTagToken:
			if len(open) == 0 || open[len(open)-1] != tok.Data {
				t.Fatalf("</%s> closes %v", tok.Data, open)
			}
			open = open[:len(open)-1]
		}
	}
	if len(open) > 0 {
		t.Errorf("elements left open: %v", open)
	}
	if !cspFirst {
		t.Errorf("the first element of <head> is not the Content-Security-Policy %q", report.CSP)
	}
}

// loadsSomething tells whether CSS text fetches a resource.
func loadsSomething(css string) bool {
	return strings.Contains(css, "url(") || strings.Contains(css, "@import")
}

// attr is the value of tok's attribute key, "" when it has none.
func attr(tok html.Token, key string) string {
	for _, a := range tok.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func TestReportSamples(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		// want are texts the page must hold.
		want []string
		// marks is the number of inert marks in each chart, in order.
		marks []int
	}{
		{"reconnect", []string{"../testdata/reconnect.jsonl"},
			[]string{"stale-redelivery", `<a href="#e-0-8">reconnect.jsonl:8</a>`, "<code>reconnect.jsonl</code> is <code>../testdata/reconnect.jsonl</code>", `id="e-0-8"`, "session-reconnect"}, []int{5}},
		{"collision", []string{"../testdata/inspect/sequence-collision.jsonl"},
			[]string{"sequence-collision", `class="ring"`, "sev-error"}, []int{2}},
		{"timestamps", []string{"../testdata/inspect/timestamp-sequence.jsonl"},
			[]string{"timestamp-sequence", "sequence (ms timestamp) from ", " s</text>"}, nil},
		{"lineage", []string{"../testdata/lineage-operations.jsonl"},
			[]string{`class="lineage"`, ">regenerate</text>", "Diffs of accepted projections"}, nil},
		{"two files", []string{"../testdata/reconnect.jsonl", "../testdata/clean.jsonl"},
			[]string{"clean.jsonl", "reconnect.jsonl"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := runReport(t, tt.files, nil)
			for _, w := range tt.want {
				if !strings.Contains(page, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			if tt.marks != nil {
				charts := strings.Split(page, `<svg class="chart" data-x="position"`)[1:]
				if len(charts) != len(tt.marks) {
					t.Fatalf("%d charts, want %d", len(charts), len(tt.marks))
				}
				for i, c := range charts {
					if n := strings.Count(c[:strings.Index(c, "</svg>")], `class="mark `); n != tt.marks[i] {
						t.Errorf("chart %d has %d marks, want %d", i, n, tt.marks[i])
					}
				}
			}
		})
	}
}

// TestReportSessions checks a generated capture of three sessions: one
// section, chart and lineage tree each.
func TestReportSessions(t *testing.T) {
	name := filepath.Join(t.TempDir(), "three.jsonl")
	if err := os.WriteFile(name, hostile.Sessions(3, 4, 200), 0o644); err != nil {
		t.Fatal(err)
	}
	page := runReport(t, []string{name}, nil)
	for _, w := range []string{`<section class="session"`, `<svg class="chart" data-x="position"`, `<svg class="chart" data-x="emittedAt"`, `<svg class="lineage"`} {
		if n := strings.Count(page, w); n != 3 {
			t.Errorf("%d of %q, want 3", n, w)
		}
	}
}

// reportHostile is a capture whose every free text tries to break out of
// the page.
const reportHostile = `{"protocol":"agentskit.chat.turn","version":1,"eventId":"e1","sessionId":"s1","turnId":"t1","sequence":1,"emittedAt":"2026-07-11T03:00:00.000Z","event":"client.turn.submit","payload":{"input":"<script>alert(1)</script>"}}
{"protocol":"agentskit.chat.turn","version":1,"eventId":"e2","sessionId":"s1","turnId":"t1","sequence":2,"emittedAt":"2026-07-11T03:00:01.000Z","event":"server.turn.snapshot","payload":{"status":"streaming","usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"messages":[{"id":"m1","role":"user","content":"<script>alert(1)</script>","status":"complete","createdAt":"2026-07-11T03:00:01.000Z"}],"lineage":{"operation":"submit"}}}
{"protocol":"agentskit.chat.turn","version":1,"eventId":"e3","sessionId":"s1","turnId":"t1","sequence":3,"emittedAt":"2026-07-11T03:00:02.000Z","event":"server.turn.snapshot","payload":{"status":"complete","usage":{"promptTokens":1,"completionTokens":2,"totalTokens":3},"messages":[{"id":"m1","role":"user","content":"<script>alert(1)</script>","status":"complete","createdAt":"2026-07-11T03:00:01.000Z"},{"id":"m2","role":"assistant","content":"</title></svg><img src=x onerror=alert(2)>\u001b[31m","status":"complete","createdAt":"2026-07-11T03:00:02.000Z"}],"lineage":{"operation":"submit"}}}
{"protocol":"<script>alert(3)</script>","version":1}
{"protocol":"agentskit.chat.turn","version":1,"eventId":"e4\"><svg onload=go(5)>","sessionId":"s1","turnId":"t2\" onmouseover=\"go(6)","sequence":4,"emittedAt":"2026-07-11T03:00:03.000Z","event":"server.turn.snapshot","payload":{"status":"complete","usage":{"promptTokens":1,"completionTokens":2,"totalTokens":3},"messages":[{"id":"m3\"><a href=\"https://evil.example/\">","role":"assistant","content":"<style>@import url(https://evil.example/a.css)</style><a href=\"javascript:alert(4)\">x</a><image href=\"https://evil.example/p.png\"/>","status":"complete","createdAt":"2026-07-11T03:00:03.000Z"}],"lineage":{"operation":"submit"}}}
{"protocol":"agentskit.chat.turn","version":1,"eventId":"e2","sessionId":"s1","turnId":"t1","sequence":2,"emittedAt":"2026-07-11T03:00:01.000Z","event":"server.turn.snapshot","payload":{"status":"streaming","usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"messages":[{"id":"m1","role":"user","content":"<script>alert(1)</script>","status":"complete","createdAt":"2026-07-11T03:00:01.000Z"}],"lineage":{"operation":"submit"}}}
`

func TestReportHostileText(t *testing.T) {
	name := filepath.Join(t.TempDir(), "<b>hostile&.jsonl")
	if err := os.WriteFile(name, []byte(reportHostile), 0o644); err != nil {
		t.Fatal(err)
	}
	page := runReport(t, []string{name}, nil)
	for _, bad := range []string{"<script", "<img", "<b>hostile", "\x1b", "<style>@import", "<a href=\"javascript", "<a href=\"https", "<svg onload", "<image"} {
		if strings.Contains(page, bad) {
			t.Errorf("page holds %q", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(2)&gt;", `\x1b[31m`, "&lt;b&gt;hostile&amp;.jsonl"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks the escaped %q", want)
		}
	}

	redacted := runReport(t, []string{name}, func(o *reportOptions) { o.Redact = true })
	if strings.Contains(redacted, "alert(") {
		t.Error("the redacted page quotes message text")
	}
	if !strings.Contains(redacted, `class="banner redacted"`) {
		t.Error("the redacted page does not say so at the top")
	}
}

// TestReportAllEvents checks that --all-events shows every event, and the
// default only problems and their context.
func TestReportAllEvents(t *testing.T) {
	rows := regexp.MustCompile(`<tr id="e-`)
	def := runReport(t, []string{"../testdata/diff-turns.jsonl"}, nil)
	all := runReport(t, []string{"../testdata/diff-turns.jsonl"}, func(o *reportOptions) { o.AllEvents = true })
	lines := bytes.Count(mustRead(t, "../testdata/diff-turns.jsonl"), []byte("\n"))
	if n := len(rows.FindAllString(all, -1)); n != lines {
		t.Errorf("--all-events: %d rows, want %d", n, lines)
	}
	if n := len(rows.FindAllString(def, -1)); n >= lines {
		t.Errorf("default: %d rows, want fewer than %d", n, lines)
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestLineageSVGWellFormed(t *testing.T) {
	for _, name := range []string{"lineage-operations", "lineage-orphan", "lineage-conflict", "lineage-sessions"} {
		t.Run(name, func(t *testing.T) {
			ios, out, _ := iostreams.Test("")
			o := &lineageOptions{IO: ios, Output: "svg"}
			o.Files, o.MaxLine = []string{"../testdata/" + name + ".jsonl"}, replay.DefaultMaxLine
			if err := lineageRun(o); err != nil {
				t.Fatal(err)
			}
			checkSVG(t, out.Bytes())
			if !strings.Contains(out.String(), `<svg xmlns="http://www.w3.org/2000/svg"`) {
				t.Error("no SVG root")
			}
		})
	}
}

// TestLineageSVGHostile checks that the standalone SVG, which has no
// Content-Security-Policy of its own, holds no script, event handler or
// reference off the picture whatever the capture's ids and texts say.
func TestLineageSVGHostile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "hostile.jsonl")
	if err := os.WriteFile(name, []byte(reportHostile), 0o644); err != nil {
		t.Fatal(err)
	}
	ios, out, _ := iostreams.Test("")
	o := &lineageOptions{IO: ios, Output: "svg"}
	o.Files, o.MaxLine = []string{name}, replay.DefaultMaxLine
	if err := lineageRun(o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "alert(") {
		t.Fatal("the picture quotes none of the hostile text: the test proves nothing")
	}
	checkSVG(t, out.Bytes())
}

// checkSVG checks that a picture is well-formed XML holding no script,
// event handler, link or reference off the picture, and no style that
// loads anything.
func checkSVG(t *testing.T, svg []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	var in []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.EndElement:
			in = in[:len(in)-1]
		case xml.StartElement:
			in = append(in, tok.Name.Local)
			switch tok.Name.Local {
			case "script", "foreignObject", "image", "use", "a", "iframe", "feImage":
				t.Errorf("the picture has a <%s> element", tok.Name.Local)
			}
			for _, a := range tok.Attr {
				if strings.HasPrefix(a.Name.Local, "on") || a.Name.Local == "href" || a.Name.Local == "src" {
					t.Errorf("<%s> has attribute %s=%q", tok.Name.Local, a.Name.Local, a.Value)
				}
			}
		case xml.CharData:
			if len(in) > 0 && in[len(in)-1] == "style" && loadsSomething(string(tok)) {
				t.Errorf("the picture's style loads something: %q", tok)
			}
		}
	}
}

// BenchmarkReport measures the whole report, reading included, on a
// capture of 20 sessions of 50 snapshots, or on the capture
// SNAPCTL_BENCH_CAPTURE names (to profile it on scripts/gencapture's).
func BenchmarkReport(b *testing.B) {
	name := os.Getenv("SNAPCTL_BENCH_CAPTURE")
	if name == "" {
		name = filepath.Join(b.TempDir(), "bench.jsonl")
		if err := os.WriteFile(name, hostile.Sessions(20, 50, 2000), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	st, err := os.Stat(name)
	if err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(b.TempDir(), "report.html")
	b.SetBytes(st.Size())
	for b.Loop() {
		ios, _, _ := iostreams.Test("")
		o := &reportOptions{IO: ios, Output: "html", Out: out, Force: true, Now: time.Now}
		o.Files, o.MaxLine = []string{name}, replay.DefaultMaxLine
		if err := reportRun(o); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReportLinksEveryCitedLine checks that each line a finding cites
// has its row, and its link, in the report of each inspect sample.
func TestReportLinksEveryCitedLine(t *testing.T) {
	samples, err := filepath.Glob("../testdata/inspect/*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range samples {
		t.Run(filepath.Base(name), func(t *testing.T) {
			page := runReport(t, []string{name}, nil)
			if strings.Contains(page, "not in this report") {
				t.Error("a cited line has no row")
			}
		})
	}
}

// TestReportManySessions checks the state snapshot report keeps per
// session on a capture of many one-line sessions against the README's
// 1 KiB: after the run (inspector, collector, lineage and diffs of the
// sessions drawn, summary) and once the page is built from them.
func TestReportManySessions(t *testing.T) {
	collect := func(capture []byte) (*reportOptions, *reportInputs) {
		ios, _, _ := iostreams.Test("")
		o := &reportOptions{IO: ios, Now: time.Now}
		o.Files, o.MaxLine = []string{replay.StdinName}, replay.DefaultMaxLine
		rd, err := replay.Open(o.Files, bytes.NewReader(capture), o.MaxLine)
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		got, err := collectReport(o, rd, true)
		if err != nil {
			t.Fatal(err)
		}
		return o, got
	}
	hostile.ManySessions(t, "report while reading", 832, func(capture []byte) any {
		_, got := collect(capture)
		return got
	})
	hostile.ManySessions(t, "report's page", 1<<10, func(capture []byte) any {
		o, got := collect(capture)
		return report.BuildPage(report.PageOptions{Generated: o.Now(), Version: version(), Redact: o.Redact, AllEvents: o.AllEvents}, nil, got.in.Finish(got.sum), got.lb.Finish(), got.col)
	})
}

// pipeReader is a standard input that can be read only once, as a pipe:
// it has no method but Read, and counts the bytes read.
type pipeReader struct {
	r io.Reader
	n int
}

func (p *pipeReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n += n
	return n, err
}

// TestReportHashesInOnePass checks that the header's sizes and SHA-256
// are those of the captures as stored, a plain file, a pipe on standard
// input and a gzip file, and that they come from the run's one read: the
// reader read every byte of the files once, and of the pipe once.
func TestReportHashesInOnePass(t *testing.T) {
	dir := t.TempDir()
	plain, err := os.ReadFile("../testdata/reconnect.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	piped, err := os.ReadFile("../testdata/lineage-operations.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(hostile.Sessions(3, 20, 3000))
	zw.Close()
	names := []string{filepath.Join(dir, "plain.jsonl"), replay.StdinName, filepath.Join(dir, "sessions.jsonl.gz")}
	stored := map[string][]byte{names[0]: plain, "standard input": piped, names[2]: gz.Bytes()}
	for _, name := range []string{names[0], names[2]} {
		if err := os.WriteFile(name, stored[name], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stdin := &pipeReader{r: bytes.NewReader(piped)}
	var opts *reportOptions
	page := runReport(t, names, func(o *reportOptions) { o.IO.In, opts = stdin, o })
	for name, data := range stored {
		sum := sha256.Sum256(data)
		row := regexp.MustCompile(`<td>` + regexp.QuoteMeta(name) + `</td><td class="n">[^<]*</td><td><code>` + hex.EncodeToString(sum[:]) + `</code>`)
		if !row.MatchString(page) {
			t.Errorf("the header has no row of %s with SHA-256 %x", name, sum)
		}
	}
	if stdin.n != len(piped) {
		t.Errorf("read %d bytes of the standard input's %d", stdin.n, len(piped))
	}
	if read, _ := opts.rd.(*replay.Reader).Progress(); read != int64(len(plain)+len(piped)+gz.Len()) {
		t.Errorf("read %d bytes of the captures' %d", read, len(plain)+len(piped)+gz.Len())
	}
}

package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/replay/internal/wire"
)

// TestAutoDetectPrefix: a line of another format's framing in front of
// an NDJSON capture does not decide its format. It is read as framing,
// said so with its line, and every event after it gets the verdict it
// gets without it.
func TestAutoDetectPrefix(t *testing.T) {
	body, err := os.ReadFile("../testdata/reconnect.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := runCapture(t, "c.jsonl", body, FormatNDJSON, 1)
	lines := bytes.Count(body, []byte{'\n'}) + 1
	for _, tc := range []struct {
		name, prefix string
		as           Format
		what         string
	}{
		{"sse keep-alive", ":", FormatSSE, "comment"},
		{"sse data", "data: x", FormatSSE, "data field"},
		{"har-shaped", `{"log":{"entries":[]}}`, FormatHAR, "document"},
		{"har-shaped, cut", `{"log":{"entries":[`, FormatHAR, "document"},
		{"kubectl", "2026-07-11T03:00:00.000Z connected", FormatKubectl, "timestamped line"},
		{"cri", "2026-07-11T03:00:00.000Z stdout F connected", FormatCRI, "log line"},
		{"docker", `{"log":"connected\n","stream":"stdout","time":"2026-07-11T03:00:00Z"}`, FormatDocker, "log entry"},
		{"bom and comment", "\ufeff: hi", FormatSSE, "comment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, sum := runCapture(t, "c.jsonl", append([]byte(tc.prefix+"\n"), body...), FormatAuto, 1)
			if fs := sum.Input.Formats; len(fs) != 1 || fs[0] != FormatNDJSON {
				t.Errorf("formats %v, want [ndjson]", fs)
			}
			if len(got) != len(want) {
				t.Fatalf("%d events, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i].verdict != want[i].verdict || got[i].Line != want[i].Line+1 {
					t.Errorf("event %d: %+v at line %d, want %+v at line %d", i, got[i].verdict, got[i].Line, want[i].verdict, want[i].Line+1)
				}
			}
			wantSpans := []Span{{First: 1, Last: 1, Lines: 1, As: tc.as, What: tc.what}, {First: 2, Last: lines, Lines: len(want), As: FormatNDJSON}}
			if len(sum.Input.Mixed) != 1 || fmt.Sprint(sum.Input.Mixed[0].Spans) != fmt.Sprint(wantSpans) {
				t.Fatalf("mixed %+v, want spans %v", sum.Input.Mixed, wantSpans)
			}
			msg := fmt.Sprintf("c.jsonl: line 1 read as %s framing (%s); lines 2-%d read as NDJSON events", formatTitle(tc.as), tc.what, lines)
			if m := sum.Input.Mixed[0].Error(); !strings.HasSuffix(m, msg) {
				t.Errorf("message %q, want one ending %q", m, msg)
			}
		})
	}
}

// TestAutoDetectBOM: an SSE stream that starts with a byte order mark is
// SSE, and its first field is read with the mark stripped, as a browser
// does.
func TestAutoDetectBOM(t *testing.T) {
	lines := sampleLines(t, "../testdata/reconnect.jsonl")
	want, _ := runCapture(t, "c.jsonl", []byte(strings.Join(lines, "\n")+"\n"), FormatNDJSON, 1)
	sample, err := os.ReadFile("../testdata/formats/reconnect.sse")
	if err != nil {
		t.Fatal(err)
	}
	dataFirst, _ := asSSE(lines)
	dataFirst = dataFirst[strings.Index(dataFirst, "data: "):]
	for name, stream := range map[string]string{"sample": string(sample), "data first": dataFirst} {
		t.Run(name, func(t *testing.T) {
			got, sum := runCapture(t, "c.sse", append(bytes.Clone(utf8BOM), stream...), FormatAuto, 1)
			if fs := sum.Input.Formats; len(fs) != 1 || fs[0] != FormatSSE || len(sum.Input.Mixed) > 0 {
				t.Errorf("formats %v, mixed %+v; want [sse] and nothing mixed", fs, sum.Input.Mixed)
			}
			sameVerdicts(t, got, want)
		})
	}
}

// sameVerdicts checks that got has the verdicts of want, event for event.
func sameVerdicts(t *testing.T, got, want []formatResult) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].verdict != want[i].verdict {
			t.Errorf("event %d: %+v, want %+v", i, got[i].verdict, want[i].verdict)
		}
	}
}

// TestAutoDetectPassesEvents: a capture in another format keeps its
// format, and a line in it that reads as an NDJSON event is read as one,
// not dropped or malformed: said so, with its lines.
func TestAutoDetectPassesEvents(t *testing.T) {
	ev1, ev2, ev3 := snapshotLine("s", 1), snapshotLine("s", 2), snapshotLine("s", 3)
	for _, tc := range []struct {
		name, in string
		format   Format
		lines    []int
		spans    string
	}{
		{"sse", "data: " + ev1 + "\n\n" + ev2 + "\n" + ev3 + "\n\nhello\ndata: {}\n\n", FormatSSE, []int{1, 3, 4, 7},
			"c (SSE): lines 3-4 read as NDJSON events; line 6 read as SSE framing (unknown field)"},
		{"cri", logTime + " stdout F " + ev1 + "\n" + ev2 + "\n" + logTime + " stdout F " + ev3 + "\n", FormatCRI, []int{1, 2, 3},
			"c (CRI): line 2 read as NDJSON events"},
		{"kubectl", logTime + " " + ev1 + "\n" + ev2 + "\n" + logTime + " " + ev3 + "\n", FormatKubectl, []int{1, 2, 3},
			"c (kubectl): line 2 read as NDJSON events"},
		{"docker", dockerLine(ev1) + ev2 + "\n" + dockerLine(ev3), FormatDocker, []int{1, 2, 3},
			"c (Docker): line 2 read as NDJSON events"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, sum := runCapture(t, "c", []byte(tc.in), FormatAuto, 1)
			if fs := sum.Input.Formats; len(fs) != 1 || fs[0] != tc.format {
				t.Errorf("formats %v, want [%s]", fs, tc.format)
			}
			var lines []int
			for _, g := range got {
				lines = append(lines, g.Line)
			}
			if fmt.Sprint(lines) != fmt.Sprint(tc.lines) || got[0].Reason != ReasonInitial || got[1].Reason != ReasonAdvanced || got[2].Reason != ReasonAdvanced {
				t.Errorf("results %+v, want events at lines %v, initial then advanced", got, tc.lines)
			}
			if len(sum.Input.Mixed) != 1 || !strings.HasSuffix(sum.Input.Mixed[0].Error(), "/"+tc.spans) {
				t.Errorf("mixed %v, want %q", sum.Input.Mixed, tc.spans)
			}
			// An explicit format reads exactly that format.
			exact, _ := runCapture(t, "c", []byte(tc.in), tc.format, 1)
			for _, e := range exact {
				if e.Line == 2 && e.Reason == ReasonAdvanced && tc.format != FormatSSE {
					t.Errorf("--format %s read line 2 as an NDJSON event", tc.format)
				}
			}
		})
	}
}

func dockerLine(log string) string {
	e, _ := json.Marshal(map[string]string{"log": log + "\n", "stream": "stdout", "time": logTime})
	return string(e) + "\n"
}

// TestAutoDetectWindow: the lines of the window vote, and a live NDJSON
// stream is recognised from its first line.
func TestAutoDetectWindow(t *testing.T) {
	ev := snapshotLine("s", 1)
	for _, tc := range []struct {
		name, in string
		eof      bool
		want     Format
		ready    bool
	}{
		{"one comment, then events", ":\n" + ev + "\n" + ev + "\n", true, FormatNDJSON, true},
		{"one comment, one event: a tie goes to sse", ":\n" + ev + "\n", true, FormatSSE, true},
		{"sse then a stray event", ": a\nid: 1\ndata: {}\n\n" + ev + "\n", true, FormatSSE, true},
		{"a comment alone may be a prefix", ": a\n", false, "", false},
		{"three sse lines may be a prefix", ": a\nretry: 1\n\nevent: x\n", false, "", false},
		{"four sse lines settle it", ": a\nretry: 1\n\nevent: x\nid: 1\n", false, FormatSSE, true},
		{"four log lines settle it", strings.Repeat(logTime+" x\n", 4), false, FormatKubectl, true},
		{"four lines of two formats do not", strings.Repeat(logTime+" x\n", 3) + ": a\n", false, "", false},
		{"an event first is ndjson at once", ev + "\n", false, FormatNDJSON, true},
		{"har document", `{"log":{"entries":[]}}` + "\n\n", true, FormatHAR, true},
		{"har document, more may come", `{"log":{"entries":[]}}` + "\n", false, "", false},
		{"har document past the window", `{"log":{"entries":[` + strings.Repeat(ev+",", detectBytes/len(ev)+1), false, FormatHAR, true},
		{"not json after a har opening", `{"log":{"entries":[` + "\n" + ev + "\n" + ev + "\n", true, FormatNDJSON, true},
		{"one event after a har opening: a cut document", `{"log":{"entries":[` + "\n" + ev + "\n", true, FormatHAR, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, ready := detect([]byte(tc.in), tc.eof)
			if ready != tc.ready || (ready && d.format != tc.want) {
				t.Errorf("detect = %q, %v; want %q, %v", d.format, ready, tc.want, tc.ready)
			}
		})
	}
	// A window full of lines that do not settle it is enough, at the line
	// count or the size.
	mixed := strings.Repeat(": keep-alive\n"+logTime+" x\n", detectLines/2)
	if d, ready := detect([]byte(mixed), false); !ready || d.format != FormatSSE {
		t.Errorf("%d lines: %q, %v", detectLines, d.format, ready)
	}
	if _, ready := detect([]byte(mixed[:len(mixed)-1]), false); ready {
		t.Errorf("%d lines and a cut one: ready", detectLines-1)
	}
	long := ": " + strings.Repeat("x", detectBytes)
	if d, ready := detect([]byte(long), false); !ready || d.format != FormatSSE {
		t.Errorf("a cut line filling the window: %q, %v", d.format, ready)
	}
}

// FuzzAutoDetect checks --format auto against what it may do with each
// line: every line is blank, read as an event, reported as malformed,
// or reported as framing, and a line that reads as an NDJSON event is
// never dropped; an NDJSON capture after any line gives all its events,
// each decoded as without it.
func FuzzAutoDetect(f *testing.F) {
	body, err := os.ReadFile("../testdata/reconnect.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	ev := snapshotLine("s", 1)
	f.Add([]byte(":"), []byte(":\n"+ev+"\n"+ev+"\n"))
	f.Add([]byte("data: x"), []byte("data: "+ev+"\n\n"+ev+"\n"+"hello\n"))
	f.Add([]byte(`{"log":{"entries":[]}}`), []byte(`{"log":{"entries":[]}}`+"\n"+ev+"\n"))
	f.Add([]byte(logTime+" stdout P x"), []byte(logTime+" stdout P "+ev[:9]+"\n"+ev+"\n"+logTime+" stdout F "+ev[9:]+"\n"))
	f.Add([]byte(`{"log":"x"}`), []byte(dockerLine(ev)+ev+"\n"))
	f.Add([]byte("\ufeffdata: {}"), []byte("\ufeff: a\r\rdata: {}\r"+ev+"\r\r"))
	want, _ := readResults(f, body, FormatNDJSON)
	f.Fuzz(func(t *testing.T, prefix, data []byte) {
		checkAccounted(t, data)
		prefix = bytes.Map(func(r rune) rune {
			if r == '\n' || r == '\r' {
				return ' '
			}
			return r
		}, prefix)
		in := append(append(prefix, '\n'), body...)
		if compressed(in) {
			return
		}
		got, sum := readResults(t, in, FormatAuto)
		checkSpans(t, in, sum)
		at := map[int]formatResult{}
		for _, g := range got {
			at[g.Line] = g
		}
		for _, w := range want {
			g, ok := at[w.Line+1]
			if !ok || g.EventID != w.EventID || g.Code != w.Code {
				t.Fatalf("line %d: %+v, want %+v (formats %v, mixed %v)", w.Line+1, g, w, sum.Input.Formats, sum.Input.Mixed)
			}
		}
	})
}

// compressed reports whether b opens as gzip or zstd does (a zstd
// skippable frame included): the reader would try to decode it.
func compressed(b []byte) bool {
	return bytes.HasPrefix(b, gzipMagic) || bytes.HasPrefix(b, zstdMagic) ||
		(len(b) >= 4 && b[0]&0xf0 == 0x50 && bytes.Equal(b[1:4], zstdSkippable))
}

// readResults reads data from standard input in format f, with its
// results and summary.
func readResults(t testing.TB, data []byte, f Format) ([]formatResult, Summary) {
	rd, err := Open([]string{StdinName}, bytes.NewReader(data), 0)
	if err != nil {
		t.Fatal(err)
	}
	rd.SetFormat(f)
	var out []formatResult
	sum, err := Run(rd, Options{Workers: 1}, func(res *Result) error {
		r := formatResult{Line: res.Line, verdict: verdict{Reason: res.Reason}}
		if res.Err != nil {
			r.Code = res.Err.Code
		}
		if res.Event != nil {
			r.EventID = res.Event.EventID
		}
		out = append(out, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, sum
}

// checkAccounted reads data under --format auto and checks each of its
// lines against what the format chosen may make of it.
func checkAccounted(t *testing.T, data []byte) {
	if compressed(data) {
		return
	}
	got, sum := readResults(t, data, FormatAuto)
	spans := checkSpans(t, data, sum)
	if len(sum.Input.Formats) != 1 {
		t.Fatalf("formats %v", sum.Input.Formats)
	}
	format := sum.Input.Formats[0]
	if format == FormatHAR {
		return // one document, whose lines are not events
	}
	result := map[int]bool{}
	for _, g := range got {
		result[g.Line] = true
	}
	for i, line := range physicalLines(data) {
		num := i + 1
		if num == 1 && format != FormatNDJSON {
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		if result[num] || spans[num] || wire.IsBlank(line) {
			continue
		}
		if format == FormatDocker && num == len(physicalLines(data)) && !bytes.HasSuffix(data, []byte{'\n'}) &&
			beginsAsEntry(line) && stopsShort(line) && endsCut(t, data) {
			continue // a last entry cut short, part of the cut event it ends
		}
		if ok, why := placed(format, line); !ok {
			t.Fatalf("line %d %q (%s) is neither an event nor reported (%s, mixed %v)", num, line, why, format, sum.Input.Mixed)
		}
	}
}

// placed tells whether format reads line as its own syntax, which needs
// no report: an SSE comment or field, a container log entry (joined with
// others into an event, or blank).
func placed(format Format, line []byte) (bool, string) {
	switch format {
	case FormatSSE:
		for _, seg := range bytes.Split(line, []byte{'\r'}) {
			if !wire.IsBlank(seg) && !isSSEField(seg) && seg[0] != ':' {
				return false, "not an SSE field"
			}
		}
		return true, ""
	case FormatDocker:
		var e struct {
			Log *string `json:"log"`
		}
		return json.Unmarshal(line, &e) == nil && e.Log != nil, "not a docker entry"
	case FormatCRI:
		return criPrefix(line) > 0, "not a CRI line"
	case FormatKubectl:
		// A blank message is a blank line of the log.
		n := timestampPrefix(line)
		return n > 0 && wire.IsBlank(line[n:]), "not a blank timestamped line"
	}
	return false, "not an event"
}

// endsCut says whether data, read under --format auto, ends in an event
// cut short (Result.Cut).
func endsCut(t *testing.T, data []byte) bool {
	rd, err := Open([]string{StdinName}, bytes.NewReader(data), 0)
	if err != nil {
		t.Fatal(err)
	}
	cut := false
	if _, err := Run(rd, Options{Workers: 1}, func(res *Result) error {
		cut = res.Cut
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return cut
}

// physicalLines splits data as the reader does, line endings dropped.
func physicalLines(data []byte) [][]byte {
	lines := bytes.Split(data, []byte{'\n'})
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = bytes.TrimSuffix(l, []byte{'\r'})
	}
	return lines
}

// checkSpans checks the reported spans (in order, within the
// capture, counting their non-blank lines) and returns the lines they
// report as framing.
func checkSpans(t *testing.T, data []byte, sum Summary) map[int]bool {
	lines := physicalLines(data)
	covered := map[int]bool{}
	for _, m := range sum.Input.Mixed {
		last := 0
		for _, s := range m.Spans {
			// Lone CRs cut an SSE line into several, read apart: spans may
			// share a line, never overlap further.
			if s.First < last || s.Last < s.First || s.Last > len(lines) {
				t.Fatalf("span %+v after line %d of %d", s, last, len(lines))
			}
			n := 0
			for i := s.First; i <= s.Last; i++ {
				if !wire.IsBlank(lines[i-1]) {
					n++
				}
				// Lines read as NDJSON events must each be an event: only
				// framing needs the span to be accounted.
				covered[i] = covered[i] || s.As != FormatNDJSON
			}
			if n != s.Lines {
				t.Fatalf("span %+v has %d non-blank lines", s, n)
			}
			last = s.Last
		}
	}
	return covered
}

package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// verdict is what must not depend on the transport: everything a result
// says but its position.
type verdict struct {
	Reason  Reason
	Code    Code
	EventID string
	Session string
}

// formatResult is one result with its position and origin.
type formatResult struct {
	verdict
	Line   int
	Origin Origin
}

// runCapture replays data, stored as name, in the given format (auto
// sniffs), with workers decoders.
func runCapture(t *testing.T, name string, data []byte, f Format, workers int) ([]formatResult, Summary) {
	t.Helper()
	path := writeFile(t, t.TempDir(), name, data)
	rd, err := Open([]string{path}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := rd.SetFormat(f); err != nil {
		t.Fatal(err)
	}
	var out []formatResult
	sum, err := Run(rd, Options{Workers: workers}, func(res *Result) error {
		r := formatResult{Line: res.Line, verdict: verdict{Reason: res.Reason}}
		if res.Err != nil {
			r.Code = res.Err.Code
		}
		if res.Event != nil {
			r.EventID, r.Session = res.Event.EventID, res.Event.SessionID
		}
		if res.Origin != nil {
			r.Origin = *res.Origin
		}
		out = append(out, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, sum
}

// sampleLines are the lines of a sample capture, without line endings.
func sampleLines(t *testing.T, path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

const logTime = "2026-07-11T03:00:00.123456789Z"

// chunks cuts s into pieces of at most n bytes, on character boundaries.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return append(out, s)
}

// The transport forms of a capture: each returns the capture's text in
// that format, and for each line of the NDJSON form, the line where its
// event starts (0 for a blank line, which carries no event).
type transportForm func(lines []string) (string, []int)

// asSSE sends each line as one event with an id, after a comment; an
// event line is cut into two data lines between its first two fields.
func asSSE(lines []string) (string, []int) {
	var b strings.Builder
	pos := make([]int, len(lines))
	n := 0
	put := func(s string) { b.WriteString(s + "\n"); n++ }
	put(": captured from the browser")
	put("retry: 3000")
	put("")
	for i, l := range lines {
		put(fmt.Sprintf("id: %d", i+1))
		put("event: turn")
		pos[i] = n + 1
		if k := strings.Index(l, `,"eventId"`); strings.HasPrefix(l, `{"protocol"`) && k > 0 {
			put("data: " + l[:k])
			put("data:" + l[k:])
		} else {
			put("data: " + l)
		}
		put("")
	}
	return b.String(), pos
}

// asDocker writes each line as Docker json-file entries of at most 700
// bytes of log, as Docker splits a long message.
func asDocker(lines []string) (string, []int) {
	var b strings.Builder
	pos := make([]int, len(lines))
	n := 0
	for i, l := range lines {
		pos[i] = n + 1
		parts := chunks(l, 700)
		for k, p := range parts {
			if k == len(parts)-1 {
				p += "\n"
			}
			e, _ := json.Marshal(map[string]string{"log": p, "stream": "stdout", "time": logTime})
			b.Write(e)
			b.WriteByte('\n')
			n++
		}
	}
	return b.String(), pos
}

// asCRI writes each line as CRI entries, P partials of at most 700 bytes
// and a final F, with a stderr line in between.
func asCRI(lines []string) (string, []int) {
	var b strings.Builder
	pos := make([]int, len(lines))
	n := 0
	for i, l := range lines {
		pos[i] = n + 1
		parts := chunks(l, 700)
		for k, p := range parts {
			tag := "P"
			if k == len(parts)-1 {
				tag = "F"
			}
			fmt.Fprintf(&b, "%s stdout %s %s\n", logTime, tag, p)
			n++
			if k == 0 && len(parts) > 1 {
				fmt.Fprintf(&b, "%s stderr F \n", logTime) // blank: no event
				n++
			}
		}
	}
	return b.String(), pos
}

// asKubectl prefixes each line with its timestamp.
func asKubectl(lines []string) (string, []int) {
	var b strings.Builder
	pos := make([]int, len(lines))
	for i, l := range lines {
		pos[i] = i + 1
		fmt.Fprintf(&b, "%s %s\n", logTime, l)
	}
	return b.String(), pos
}

var transportForms = []struct {
	format Format
	form   transportForm
	origin Origin
}{
	{FormatSSE, asSSE, Origin{}},
	{FormatDocker, asDocker, Origin{LoggedAt: logTime}},
	{FormatCRI, asCRI, Origin{LoggedAt: logTime}},
	{FormatKubectl, asKubectl, Origin{LoggedAt: logTime}},
}

// TestFormatsGiveNDJSONVerdicts builds every transport form of every
// sample capture and checks that each event gets the verdict, reason,
// code and ids it gets in NDJSON, at the line where the form put it;
// the format is recognised, and gzip underneath changes nothing.
func TestFormatsGiveNDJSONVerdicts(t *testing.T) {
	samples, err := filepath.Glob("../testdata/*.jsonl")
	if err != nil || len(samples) == 0 {
		t.Fatal("no sample captures", err)
	}
	for _, path := range samples {
		lines := sampleLines(t, path)
		want, _ := runCapture(t, "c.jsonl", []byte(strings.Join(lines, "\n")+"\n"), FormatNDJSON, 0)
		for _, tf := range transportForms {
			text, pos := tf.form(lines)
			for _, gz := range []bool{false, true} {
				name := fmt.Sprintf("%s/%s/gzip=%v", filepath.Base(path), tf.format, gz)
				t.Run(name, func(t *testing.T) {
					data := []byte(text)
					if gz {
						data = gzipBytes(t, text)
					}
					got, sum := runCapture(t, "c.log", data, FormatAuto, 0)
					if fs := sum.Input.Formats; len(fs) != 1 || fs[0] != tf.format {
						t.Errorf("formats %v, want [%s]", fs, tf.format)
					}
					compareForms(t, want, got, pos, tf.origin)
				})
			}
		}
	}
}

// compareForms checks got against the NDJSON results want; pos maps an
// NDJSON line to the line of the form's event.
func compareForms(t *testing.T, want, got []formatResult, pos []int, origin Origin) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d", len(got), len(want))
	}
	for i := range want {
		w, g := want[i], got[i]
		if g.verdict != w.verdict {
			t.Errorf("event %d (line %d): %+v, want %+v", i, w.Line, g.verdict, w.verdict)
		}
		if wl := pos[w.Line-1]; g.Line != wl {
			t.Errorf("event %d: line %d, want %d", i, g.Line, wl)
		}
		if origin.LoggedAt != "" && g.Origin.LoggedAt != origin.LoggedAt {
			t.Errorf("event %d: loggedAt %q, want %q", i, g.Origin.LoggedAt, origin.LoggedAt)
		}
	}
}

func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want Format
	}{
		{"ndjson", `{"protocol":"agentskit.chat.turn"}` + "\n", FormatNDJSON},
		{"ndjson garbage", "hello\n", FormatNDJSON},
		{"empty", "", FormatNDJSON},
		{"sse data", "data: {}\n\n", FormatSSE},
		{"sse comment", ": hi\n", FormatSSE},
		{"sse id", "id: 7\ndata: {}\n", FormatSSE},
		{"docker", `{"log":"{}\n","stream":"stdout","time":"2026-07-11T03:00:00Z"}` + "\n", FormatDocker},
		{"har", "{\n  \"log\": {\n    \"version\": \"1.2\"", FormatHAR},
		{"object with log key first", `{"log":1}` + "\n", FormatNDJSON},
		{"cri", "2026-07-11T03:00:00.123456789Z stdout F {}\n", FormatCRI},
		{"cri partial", "2026-07-11T03:00:00.123456789+02:00 stderr P {\n", FormatCRI},
		{"kubectl", "2026-07-11T03:00:00.123456789Z {}\n", FormatKubectl},
		{"date only", "2026-07-11 03:00:00 {}\n", FormatNDJSON},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, ready := detect([]byte(tc.in), true)
			if got := d.format; got != tc.want || !ready || len(d.prefix) > 0 {
				t.Errorf("sniff = %q, %v; want %q", got, ready, tc.want)
			}
		})
	}
}

// TestSniffWaitsForEnough: a live stream's first bytes may not tell yet.
func TestSniffWaitsForEnough(t *testing.T) {
	for _, in := range []string{"", "  ", "{", `{"lo`, `{"log"`, `{"log": `, "data"} {
		if f, ready := sniff([]byte(in), false); ready {
			t.Errorf("sniff(%q) = %q before it could tell", in, f)
		}
	}
	if f, ready := sniff([]byte(`{"protocol"`), false); !ready || f != FormatNDJSON {
		t.Errorf("an event's first key: %q, %v", f, ready)
	}
}

// TestFormatDamage: an event its format did not carry whole is malformed,
// with a detail naming the format's problem, at its first line; nothing
// is dropped and nothing after it is lost.
func TestFormatDamage(t *testing.T) {
	ev := snapshotLine("s", 1)
	ev2 := snapshotLine("s", 2)
	dockerEntry := func(log string) string {
		e, _ := json.Marshal(map[string]string{"log": log, "stream": "stdout", "time": logTime})
		return string(e) + "\n"
	}
	for _, tc := range []struct {
		name   string
		format Format
		in     string
		want   []string // reason and, for malformed, the detail's start, per event
		lines  []int
	}{
		{"sse cut mid-event", FormatSSE, "data: " + ev + "\n\ndata: " + ev2 + "\n",
			[]string{"initial", "malformed sse: the stream ended in the middle of an event"}, []int{1, 3}},
		{"sse id kept", FormatSSE, "id: a\ndata: " + ev + "\n\n", []string{"initial"}, []int{2}},
		{"docker not json", FormatDocker, "not json\n" + dockerEntry(ev+"\n"),
			[]string{"malformed docker: the line is not a json-file log entry", "initial"}, []int{1, 2}},
		// One entry is not a split: its wording says so, not "split
		// over 1 entries".
		{"docker message of one entry never ended", FormatDocker, dockerEntry(ev+"\n") + dockerEntry(ev2[:10]),
			[]string{"initial", "malformed docker: the log ended inside a message whose only entry's log does not end in a newline"}, []int{1, 2}},
		{"docker split never ended", FormatDocker, dockerEntry(ev+"\n") + dockerEntry(ev2[:10]) + dockerEntry(ev2[10:20]),
			[]string{"initial", "malformed docker: the log ended inside a message split over 2 entries (the last entry's log does not end in a newline)"}, []int{1, 2}},
		{"cri partial never finished", FormatCRI, logTime + " stdout P " + ev[:20] + "\n" + logTime + " stderr F " + ev + "\n",
			[]string{"initial", "malformed cri: the log ended inside a partial line: 1 P entry never finished by an F entry"}, []int{2, 1}},
		{"cri partials never finished", FormatCRI, logTime + " stdout P " + ev[:20] + "\n" + logTime + " stdout P " + ev[20:30] + "\n",
			[]string{"malformed cri: the log ended inside a partial line: 2 P entries never finished by an F entry"}, []int{1}},
		{"cri not cri", FormatCRI, "hello\n", []string{"malformed cri: the line is not a CRI log line"}, []int{1}},
		{"kubectl without timestamp", FormatKubectl, ev + "\n",
			[]string{"malformed kubectl: the line has no timestamp prefix"}, []int{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, workers := range []int{1, 2} {
				var got []string
				var lines []int
				path := writeFile(t, t.TempDir(), "c", []byte(tc.in))
				rd, err := Open([]string{path}, nil, 0)
				if err != nil {
					t.Fatal(err)
				}
				rd.SetFormat(tc.format)
				_, err = Run(rd, Options{Workers: workers}, func(res *Result) error {
					s := string(res.Reason)
					if res.Err != nil {
						s += " " + res.Err.Detail()
						if res.Err.RedactedDetail() != res.Err.Detail() {
							t.Errorf("redacted detail %q differs", res.Err.RedactedDetail())
						}
					}
					if tc.name == "sse id kept" && (res.Origin == nil || res.Origin.LastEventID != "a") {
						t.Errorf("origin %+v, want the SSE id a", res.Origin)
					}
					got, lines = append(got, s), append(lines, res.Line)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(tc.want) {
					t.Fatalf("workers %d: got %q, want %q", workers, got, tc.want)
				}
				for i := range got {
					if !strings.HasPrefix(got[i], tc.want[i]) || lines[i] != tc.lines[i] {
						t.Errorf("workers %d: event %d: %q at line %d, want %q at line %d", workers, i, got[i], lines[i], tc.want[i], tc.lines[i])
					}
				}
			}
		})
	}
}

// TestFormatTooLong: a line over --max-line is too long in every format.
func TestFormatTooLong(t *testing.T) {
	long := snapshotLine("s", 1)
	for _, tc := range []struct {
		format Format
		in     string
	}{
		{FormatSSE, "data: " + long + "\n\n"},
		{FormatSSE, "data: " + long[:60] + "\ndata: " + long[60:] + "\n\n"},
		{FormatCRI, criPieces(long, 50)},
		{FormatKubectl, logTime + " " + long + "\n"},
	} {
		path := writeFile(t, t.TempDir(), "c", []byte(tc.in))
		rd, err := Open([]string{path}, nil, 100)
		if err != nil {
			t.Fatal(err)
		}
		rd.SetFormat(tc.format)
		var codes []Code
		if _, err := Run(rd, Options{MaxLine: 100}, func(res *Result) error {
			if res.Err != nil {
				codes = append(codes, res.Err.Code)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(codes) != 1 || codes[0] != CodeLineTooLong {
			t.Errorf("%s: codes %v, want one %s", tc.format, codes, CodeLineTooLong)
		}
	}
}

// criPieces is s as CRI partials of n bytes and a final F.
func criPieces(s string, n int) string {
	var b strings.Builder
	parts := chunks(s, n)
	for k, p := range parts {
		tag := "P"
		if k == len(parts)-1 {
			tag = "F"
		}
		fmt.Fprintf(&b, "%s stdout %s %s\n", logTime, tag, p)
	}
	return b.String()
}

func TestParseFormat(t *testing.T) {
	if f, err := ParseFormat("sse"); f != FormatSSE || err != nil {
		t.Errorf("ParseFormat(sse) = %q, %v", f, err)
	}
	if _, err := ParseFormat("xml"); err == nil || !bytes.Contains([]byte(err.Error()), []byte("auto, ndjson")) {
		t.Errorf("ParseFormat(xml) error %v", err)
	}
}

// TestFormatSamples: the samples in testdata/formats are
// testdata/reconnect.jsonl in each format, and give its verdicts.
func TestFormatSamples(t *testing.T) {
	lines := sampleLines(t, "../testdata/reconnect.jsonl")
	want, _ := runCapture(t, "c.jsonl", []byte(strings.Join(lines, "\n")+"\n"), FormatNDJSON, 0)
	for _, tc := range []struct {
		file   string
		format Format
	}{
		{"reconnect.sse", FormatSSE},
		{"reconnect.docker.log", FormatDocker},
		{"reconnect.cri.log", FormatCRI},
		{"reconnect.kubectl.log", FormatKubectl},
		{"reconnect.har", FormatHAR},
		{"reconnect-websocket.har", FormatHAR},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("../testdata/formats", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			got, sum := runCapture(t, tc.file, data, FormatAuto, 1)
			if fs := sum.Input.Formats; len(fs) != 1 || fs[0] != tc.format {
				t.Errorf("formats %v, want [%s]", fs, tc.format)
			}
			sameVerdicts(t, got, want)
		})
	}
}

// FuzzFormats reads any bytes in every format: no panic, no hang, and
// every event either decodes or is malformed with a code.
func FuzzFormats(f *testing.F) {
	ev := snapshotLine("s", 1)
	f.Add([]byte("data: " + ev + "\n\n: c\nid: 1\ndata: {\n"))
	f.Add([]byte(logTime + " stdout P " + ev[:30] + "\n" + logTime + " stdout F " + ev[30:] + "\n"))
	f.Add([]byte(`{"log":"{\"a\"","stream":"stdout","time":"t"}` + "\n"))
	f.Add([]byte(harDoc(harEntryJSON("https://x/", "t", ev+"\n", ""))))
	f.Add([]byte(`{"log":{"entries":[{"response":{"content":{"text":"x","encoding":"base64"}}}]}}`))
	f.Add([]byte(`{"snapctl":"request","req":1,"url":"/"}` + "\n" + `{"snapctl":"received","req":1,"lines":2}` + "\n" + ev + "\n\n" + `{"snapctl":"cut","req":1,"bytes":9}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range Formats {
			rd, err := Open([]string{StdinName}, bytes.NewReader(data), 256)
			if err != nil {
				t.Fatal(err)
			}
			rd.SetFormat(format)
			if _, err := Run(rd, Options{Workers: 1, MaxLine: 256}, func(res *Result) error {
				if res.Event == nil && res.Err == nil {
					t.Fatalf("%s: an event neither decoded nor malformed", format)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestSSELoneCR: a lone CR ends an SSE line as LF and CRLF do, so one
// physical line may hold several events.
func TestSSELoneCR(t *testing.T) {
	ev1, ev2 := snapshotLine("s", 1), snapshotLine("s", 2)
	k := strings.Index(ev1, `,"eventId"`) // a newline there is white space
	for _, in := range []string{
		"data: " + ev1 + "\r\rdata: " + ev2 + "\r\r",
		"id: 1\r\ndata: " + ev1 + "\r\n\r\ndata: " + ev2 + "\r\r\n",
		": c\rdata: " + ev1[:k] + "\rdata:" + ev1[k:] + "\r\rdata: " + ev2 + "\n\n",
	} {
		got, _ := runCapture(t, "c.sse", []byte(in), FormatSSE, 1)
		if len(got) != 2 || got[0].Reason != ReasonInitial || got[1].Reason != ReasonAdvanced {
			t.Errorf("%q: %+v, want initial then advanced", in, got)
		}
	}
}

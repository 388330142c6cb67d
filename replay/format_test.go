package replay

import (
	"bytes"
	"encoding/base64"
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
			got, ready := sniff([]byte(tc.in), true)
			if got != tc.want || !ready {
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
		{"docker split never ended", FormatDocker, dockerEntry(ev+"\n") + dockerEntry(ev2[:10]),
			[]string{"initial", "malformed docker: the log ended inside a message split over 1 entries"}, []int{1, 2}},
		{"cri partial never finished", FormatCRI, logTime + " stdout P " + ev[:20] + "\n" + logTime + " stderr F " + ev + "\n",
			[]string{"initial", "malformed cri: the log ended inside a partial line: 1 P entries"}, []int{2, 1}},
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
			if len(got) != len(want) {
				t.Fatalf("%d events, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i].verdict != want[i].verdict {
					t.Errorf("event %d: %+v, want %+v", i, got[i].verdict, want[i].verdict)
				}
			}
		})
	}
}

// harDoc is a HAR 1.2 document of the given entries (already JSON).
func harDoc(entries ...string) string {
	return `{"log": {"version": "1.2", "creator": {"name": "test", "version": "1"},
  "pages": [{"id": "page_1", "title": "chat"}],
  "entries": [
` + strings.Join(entries, ",\n") + "\n]}}\n"
}

// harEntryJSON is an entry for url with a response body and WebSocket
// messages ([type, data] pairs).
func harEntryJSON(url, started, text, encoding string, ws ...[2]string) string {
	e := map[string]any{
		"startedDateTime": started,
		"request":         map[string]any{"method": "POST", "url": url, "headers": []any{}},
		"response": map[string]any{"status": 200, "content": map[string]any{
			"size": len(text), "mimeType": "application/x-ndjson", "text": text, "encoding": encoding}},
	}
	if encoding == "" {
		delete(e["response"].(map[string]any)["content"].(map[string]any), "encoding")
	}
	var msgs []any
	for _, m := range ws {
		msgs = append(msgs, map[string]any{"type": m[0], "time": 1.5, "opcode": 1, "data": m[1]})
	}
	if msgs != nil {
		e["_webSocketMessages"] = msgs
	}
	b, _ := json.MarshalIndent(e, "    ", "  ")
	return "    " + string(b)
}

// TestHARGivesNDJSONVerdicts builds the HAR forms of every sample
// capture (its lines as two response bodies, the second base64, after an
// entry without turn events; as an SSE body; as received WebSocket
// messages between sent ones) and checks every verdict, and that each
// event is at its entry and line.
func TestHARGivesNDJSONVerdicts(t *testing.T) {
	samples, _ := filepath.Glob("../testdata/*.jsonl")
	for _, path := range samples {
		lines := sampleLines(t, path)
		want, _ := runCapture(t, "c.jsonl", []byte(strings.Join(lines, "\n")+"\n"), FormatNDJSON, 0)
		half := len(lines) / 2
		first, second := strings.Join(lines[:half], "\n")+"\n", strings.Join(lines[half:], "\n")
		sse, ssePos := asSSE(lines)
		var ws [][2]string
		wsPos := make([]int, len(lines))
		for i, l := range lines {
			ws = append(ws, [2]string{"send", `{"type":"ping"}`}, [2]string{"receive", l})
			wsPos[i] = 2*i + 2
		}
		bodyPos := make([]int, len(lines))
		entry := make([]int, len(lines))
		for i := range lines {
			bodyPos[i], entry[i] = i+1, 2
			if i >= half {
				bodyPos[i], entry[i] = i-half+1, 3
			}
		}
		forms := []struct {
			name  string
			doc   string
			pos   []int
			entry []int
		}{
			{"bodies", harDoc(
				harEntryJSON("https://chat.example/index.html", "2026-07-11T03:00:00.000Z", "<html></html>", ""),
				harEntryJSON("https://chat.example/api/turns?session=a", "2026-07-11T03:00:01.000Z", first, ""),
				harEntryJSON("https://chat.example/api/turns?session=a", "2026-07-11T03:00:02.000Z",
					base64.StdEncoding.EncodeToString([]byte(second)), "base64")), bodyPos, entry},
			{"sse body", harDoc(harEntryJSON("https://chat.example/api/turns", "2026-07-11T03:00:01.000Z", sse, "")), ssePos, nil},
			{"websocket", harDoc(harEntryJSON("wss://chat.example/api/socket", "2026-07-11T03:00:01.000Z", "", "", ws...)), wsPos, nil},
		}
		for _, f := range forms {
			t.Run(filepath.Base(path)+"/"+f.name, func(t *testing.T) {
				got, sum := runCapture(t, "c.har", []byte(f.doc), FormatAuto, 0)
				if fs := sum.Input.Formats; len(fs) != 1 || fs[0] != FormatHAR {
					t.Errorf("formats %v, want [har]", fs)
				}
				compareForms(t, want, got, f.pos, Origin{})
				for i := range want {
					if i >= len(got) {
						break
					}
					we := 1
					if f.entry != nil {
						we = f.entry[want[i].Line-1]
					}
					if got[i].Origin.Entry != we || !strings.Contains(got[i].Origin.URL, "chat.example") {
						t.Errorf("event %d: entry %d %q, want entry %d", i, got[i].Origin.Entry, got[i].Origin.URL, we)
					}
				}
			})
		}
	}
}

// TestHARDamage: a document that is not JSON, not a HAR, or cut off is
// one malformed event after the events before the damage.
func TestHARDamage(t *testing.T) {
	ev := snapshotLine("s", 1)
	whole := harDoc(harEntryJSON("https://x/a", "2026-07-11T03:00:00Z", ev+"\n", ""), harEntryJSON("https://x/b", "2026-07-11T03:00:01Z", ev+"\n", ""))
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"not json", `{"log": {"entries": [}`, []string{"malformed har: the document is not JSON at byte"}},
		{"not a har", `{"log": {"version": "1.2"}}`, []string{`malformed har: not a HAR document: no "entries"`}},
		{"cut", whole[:len(whole)*3/4], []string{"initial", "malformed har: the document ends at byte"}},
		{"bad base64", harDoc(harEntryJSON("https://x/a", "t", "!!", "base64")), []string{"malformed har: entry 1: the response body is not base64"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), "c.har", []byte(tc.in))
			rd, _ := Open([]string{path}, nil, 0)
			rd.SetFormat(FormatHAR)
			var got []string
			Run(rd, Options{}, func(res *Result) error {
				s := string(res.Reason)
				if res.Err != nil {
					s += " " + res.Err.Detail()
				}
				got = append(got, s)
				return nil
			})
			if len(got) != len(tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("event %d: %q, want %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestHARURLFilter: --url keeps only the entries whose URL holds it.
func TestHARURLFilter(t *testing.T) {
	doc := harDoc(harEntryJSON("https://x/a", "t", snapshotLine("s", 1)+"\n", ""), harEntryJSON("https://x/b", "t", snapshotLine("s", 2)+"\n", ""))
	path := writeFile(t, t.TempDir(), "c.har", []byte(doc))
	rd, _ := Open([]string{path}, nil, 0)
	rd.SetURLFilter("/b")
	var urls []string
	Run(rd, Options{}, func(res *Result) error {
		urls = append(urls, fmt.Sprintf("%d %s", res.Origin.Entry, res.Origin.URL))
		return nil
	})
	if len(urls) != 1 || urls[0] != "2 https://x/b" {
		t.Errorf("events from %q, want only entry 2, https://x/b", urls)
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
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "c")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, format := range Formats {
			rd, err := Open([]string{path}, nil, 256)
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

// TestHAROrder: entries are read in startedDateTime order, whatever
// their order in the document, each still named by its place in it.
func TestHAROrder(t *testing.T) {
	doc := harDoc(
		harEntryJSON("https://x/third", "2026-07-11T05:00:03+02:00", snapshotLine("s", 3)+"\n", ""),
		harEntryJSON("https://x/page", "2026-07-11T03:00:00Z", "<html>", ""),
		harEntryJSON("https://x/first", "2026-07-11T03:00:01Z", snapshotLine("s", 1)+"\n", ""),
		harEntryJSON("https://x/second", "2026-07-11T03:00:02.5Z", snapshotLine("s", 2)+"\n", ""),
	)
	for _, gz := range []bool{false, true} {
		data := []byte(doc)
		if gz {
			data = gzipBytes(t, doc)
		}
		got, _ := runCapture(t, "c.har", data, FormatAuto, 1)
		var seen []string
		for _, r := range got {
			seen = append(seen, fmt.Sprintf("%s %d %s", r.Reason, r.Origin.Entry, r.Origin.URL))
		}
		want := []string{"initial 3 https://x/first", "advanced 4 https://x/second", "advanced 1 https://x/third"}
		if strings.Join(seen, "; ") != strings.Join(want, "; ") {
			t.Errorf("gzip=%v: %q, want %q", gz, seen, want)
		}
	}
}

// TestHARMemoryBoundedByEntry: HARs of 64 and 256 entries, each a
// 256 KB body of events (16 and 64 MB), are read in the same memory: it
// grows with the largest entry, not with the file; in document order,
// and reversed (read in startedDateTime order, each entry from its
// offset).
func TestHARMemoryBoundedByEntry(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 80 MB of captures")
	}
	var body strings.Builder
	for body.Len() < 256<<10 {
		body.WriteString(snapshotLine("s", 1) + "\n")
	}
	text, _ := json.Marshal(body.String())
	perEntry := strings.Count(body.String(), "\n")
	dir := t.TempDir()
	write := func(entries int, reversed bool) string {
		path := filepath.Join(dir, fmt.Sprintf("big-%d-%v.har", entries, reversed))
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(`{"log": {"version": "1.2", "entries": [`)
		for i := 0; i < entries; i++ {
			sec := i
			if reversed {
				sec = entries - i
			}
			if i > 0 {
				f.WriteString(",\n")
			}
			fmt.Fprintf(f, `{"startedDateTime": "2026-07-11T03:%02d:%02dZ", "request": {"url": "https://x/%d"}, "response": {"content": {"text": %s}}}`,
				sec/60, sec%60, i, text)
		}
		f.WriteString("]}}\n")
		f.Close()
		return path
	}
	measure := func(entries int, reversed bool) uint64 {
		path := write(entries, reversed)
		events := 0
		peak := peakHeap(func() {
			rd, err := Open([]string{path}, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Run(rd, Options{}, func(*Result) error { events++; return nil }); err != nil {
				t.Fatal(err)
			}
		})
		if want := entries * perEntry; events != want {
			t.Errorf("%d entries, reversed=%v: %d events, want %d", entries, reversed, events, want)
		}
		os.Remove(path)
		return peak
	}
	for _, reversed := range []bool{false, true} {
		small, big := measure(64, reversed), measure(256, reversed)
		t.Logf("reversed=%v: peak heap %.1f MB for 16 MB, %.1f MB for 64 MB", reversed, float64(small)/(1<<20), float64(big)/(1<<20))
		if big > small+small/2+8<<20 {
			t.Errorf("reversed=%v: peak heap grows with the file: %d MB for 16 MB, %d MB for 64 MB", reversed, small>>20, big>>20)
		}
	}
}

package replay

import (
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
		// Cut where there is no entry to be inside of.
		{"empty", "", []string{"malformed har: the document ends at byte 0, before its entries"}},
		{"cut before the entries", `{"log": {"version": "1.2", "creator": {"na`, []string{"malformed har: the document ends at byte 42, before its entries"}},
		{"cut after the entries", whole[:strings.LastIndex(whole, "]")+1] + `, "pages": [`, []string{"initial", "duplicate", "malformed har: the document ends at byte"}},
		// Cut after an entry's end, before the comma or bracket after it:
		// no entry 3 to be inside of.
		{"cut between entries", whole[:strings.LastIndex(whole, "}\n]")+1], []string{"initial", "duplicate", "malformed har: the document ends at byte"}},
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
			if last := got[len(got)-1]; tc.name == "cut between entries" && !strings.HasSuffix(last, ", after entry 2") {
				t.Errorf("%q: want the document to end after entry 2", last)
			}
			if last := got[len(got)-1]; strings.Contains(tc.name, "cut") && strings.HasSuffix(tc.name, "entries") && strings.Contains(last, "inside entry") {
				t.Errorf("%q: a document cut outside its entries said to end inside one", last)
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

// TestHARURLFilterNotesWhatItLeaves: the stats count the entries with
// turn events and those the filter kept, and hold a few of the URLs it
// left, never more than MaxURLsNoted, whatever the number of entries.
func TestHARURLFilterNotesWhatItLeaves(t *testing.T) {
	var entries []string
	for i := range 20 {
		entries = append(entries, harEntryJSON(fmt.Sprintf("https://x/%d", i%7), "t", snapshotLine("s", int64(i+1))+"\n", ""))
	}
	entries = append(entries, harEntryJSON("https://x/app.js", "t", "console.log(1)", ""))
	path := writeFile(t, t.TempDir(), "c.har", []byte(harDoc(entries...)))
	for _, c := range []struct {
		filter string
		kept   int
		urls   []string
	}{
		{"/nope", 0, []string{"https://x/0", "https://x/1", "https://x/2", "https://x/3", "https://x/4"}},
		{"/3", 3, []string{"https://x/0", "https://x/1", "https://x/2", "https://x/4", "https://x/5"}},
		{"", 20, nil},
	} {
		rd, _ := Open([]string{path}, nil, 0)
		rd.SetURLFilter(c.filter)
		sum, err := Run(rd, Options{}, func(*Result) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		in := sum.Input
		if in.HAREntries != 20 || in.HARKept != c.kept || fmt.Sprint(in.URLs) != fmt.Sprint(c.urls) {
			t.Errorf("--url %q: %d entries, %d kept, URLs %q; want 20, %d, %q", c.filter, in.HAREntries, in.HARKept, in.URLs, c.kept, c.urls)
		}
	}
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

// Bytes after a HAR document (a capture appended to it, say) are one
// malformed event after the document's events, whether or not the
// document fits auto-detection's window: nothing is dropped in silence.
func TestHARTrailingBytesReported(t *testing.T) {
	body := turnText("s", 1, 2)
	entry := `{"request": {"url": "https://x/a"}, "response": {"content": {"text": ` + body + `}}}`
	pad := `{"request": {"url": "https://x/pad", "headers": [{"name": "h", "value": "` + strings.Repeat("x", 40<<10) + `"}]}, "response": {"content": {"text": "none"}}}`
	tail := "{\"protocol\":\"agentskit.chat.turn\"}\nmore\n"
	// (A small HAR-shaped document in front of NDJSON lines is auto
	// -detection's prefix, TestAutoDetectPrefix's subject.)
	for _, tc := range []struct {
		name string
		doc  string
		f    Format
	}{
		{"small", harDoc(entry), FormatHAR},
		{"past the detection window", harDoc(pad, entry), FormatHAR},
		{"past the detection window", harDoc(pad, entry), FormatAuto},
	} {
		{
			f := tc.f
			t.Run(tc.name+"/"+string(f), func(t *testing.T) {
				got, _ := runCapture(t, "c.har", []byte(tc.doc+tail), f, 1)
				if len(got) != 3 {
					t.Fatalf("%d results, want the entry's 2 events and 1 for the bytes after: %+v", len(got), got)
				}
				last := got[2]
				if last.Reason != ReasonMalformed || last.Line != 0 {
					t.Fatalf("last result %+v, want the bytes after the document reported as malformed", last)
				}
			})
		}
	}
}

// TestHARByteOrderMark: a HAR saved with a UTF-8 byte order mark (as
// some editors and Windows tools write it) is read as the same HAR, as
// auto-detection, which skips the mark, has already said it is; also
// through a pipe (spooled) and when compressed.
func TestHARByteOrderMark(t *testing.T) {
	body := snapshotLine("s", 1) + "\n" + snapshotLine("s", 2) + "\n" + snapshotLine("s", 1) + "\n"
	doc := harDoc(harEntryJSON("https://x/a", "2026-07-11T03:00:00Z", body, ""))
	want, _ := runCapture(t, "c.har", []byte(doc), FormatHAR, 1)
	if len(want) != 3 {
		t.Fatalf("without the mark: %d results, want 3: %+v", len(want), want)
	}
	for _, f := range []Format{FormatAuto, FormatHAR} {
		got, _ := runCapture(t, "c.har", []byte("\xef\xbb\xbf"+doc), f, 1)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("--format %s, with a byte order mark:\n got %+v\nwant %+v", f, got, want)
		}
	}
	var gz strings.Builder
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("\xef\xbb\xbf" + doc))
	zw.Close()
	got, _ := runCapture(t, "c.har.gz", []byte(gz.String()), FormatAuto, 1)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("gzipped, with a byte order mark:\n got %+v\nwant %+v", got, want)
	}
}

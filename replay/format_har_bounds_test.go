package replay

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// writeHAR writes a HAR document to path, gzipped when the name ends in
// .gz, its entries written by entries (separated by commas by sep), so
// that a big capture is never in the test's memory.
func writeHAR(t testing.TB, path string, entries func(w *bufio.Writer, sep func())) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var out io.Writer = f
	var zw *gzip.Writer
	if strings.HasSuffix(path, ".gz") {
		zw = gzip.NewWriter(f)
		out = zw
	}
	w := bufio.NewWriterSize(out, 1<<20)
	w.WriteString(`{"log": {"version": "1.2", "creator": {"name": "test"}, "entries": [`)
	first := true
	entries(w, func() {
		if !first {
			w.WriteString(",\n")
		}
		first = false
	})
	w.WriteString("]}}\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if zw != nil {
		zw.Close()
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// harRun is what reading a HAR capture cost and gave.
type harRun struct {
	reasons    map[Reason]int
	details    []string // of the malformed events
	tooLong    []int64  // the lengths of the lines over the limit
	peak       uint64   // peak heap in use
	totalAlloc uint64   // bytes allocated
}

func readHAR(t testing.TB, path string, maxLine int) harRun {
	t.Helper()
	run := harRun{reasons: map[Reason]int{}}
	var before, after runtime.MemStats
	run.peak = peakHeap(func() {
		runtime.ReadMemStats(&before)
		rd, err := Open([]string{path}, nil, maxLine)
		if err != nil {
			t.Fatal(err)
		}
		rd.SetFormat(FormatHAR)
		_, err = Run(rd, Options{Workers: 1}, func(res *Result) error {
			run.reasons[res.Reason]++
			var n int64
			if res.Err == nil {
			} else if _, err := fmt.Sscanf(res.Err.Detail(), "line is %d bytes, longer", &n); err == nil {
				run.tooLong = append(run.tooLong, n)
			} else {
				run.details = append(run.details, res.Err.Detail())
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
	})
	run.totalAlloc = after.TotalAlloc - before.TotalAlloc
	return run
}

// turnText is the JSON string of a body of n snapshot lines of session s.
func turnText(s string, from, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(snapshotLine(s, int64(from+i)) + "\n")
	}
	text, _ := json.Marshal(b.String())
	return string(text)
}

// TestHAROutOfOrderLinear: a HAR whose entries are in reverse
// startedDateTime order is read in that order with work linear in its
// size, gzipped as well as plain (each entry was once read again from
// the start of the decompressed stream: 24 KB took 30 s). The bytes
// allocated, which grew with the square of the entries, grow with them.
func TestHAROutOfOrderLinear(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"c.har", "c.har.gz"} {
		var allocs []uint64
		for _, n := range []int{20, 40, 80, 320} { // 6, 12, 24 and 96 KB
			path := filepath.Join(dir, fmt.Sprint(n, name))
			writeHAR(t, path, func(w *bufio.Writer, sep func()) {
				for i := 0; i < n; i++ {
					sep()
					sec := n - i
					fmt.Fprintf(w, `{"startedDateTime": "2026-07-11T03:%02d:%02dZ", "request": {"url": "https://x/%d"}, "response": {"content": {"text": %s}}}`,
						sec/60, sec%60, i, turnText("s", sec, 1))
				}
			})
			run := readHAR(t, path, 0)
			// Read in time order, every sequence advances.
			if run.reasons[ReasonInitial] != 1 || run.reasons[ReasonAdvanced] != n-1 {
				t.Fatalf("%s of %d entries: %v, want 1 initial and %d advanced", name, n, run.reasons, n-1)
			}
			allocs = append(allocs, run.totalAlloc)
		}
		t.Logf("%s: bytes allocated for 20, 40, 80, 320 entries: %v", name, allocs)
		if last := allocs[len(allocs)-1]; last > 6*allocs[1]+(1<<20) {
			t.Errorf("%s: 8 times the entries allocated %d bytes against %d: more than linear", name, last, allocs[1])
		}
	}
}

// TestHARManyEmptyEntriesOneOutOfOrder: a million entries without events
// and one entry out of order take no memory per entry (each took 32
// bytes, and a gzipped one 10 s).
func TestHARManyEmptyEntriesOneOutOfOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 6 MB of captures")
	}
	dir := t.TempDir()
	write := func(n int, name string) string {
		path := filepath.Join(dir, fmt.Sprint(n, name))
		writeHAR(t, path, func(w *bufio.Writer, sep func()) {
			sep()
			fmt.Fprintf(w, `{"startedDateTime": "2026-07-11T03:00:02Z", "response": {"content": {"text": %s}}}`, turnText("s", 2, 1))
			for i := 0; i < n; i++ {
				sep()
				w.WriteString("{}")
			}
			sep()
			fmt.Fprintf(w, `{"startedDateTime": "2026-07-11T03:00:01Z", "response": {"content": {"text": %s}}}`, turnText("s", 1, 1))
		})
		return path
	}
	for _, name := range []string{"c.har", "c.har.gz"} {
		small, big := readHAR(t, write(250_000, name), 0), readHAR(t, write(1_000_000, name), 0)
		for _, run := range []harRun{small, big} {
			if run.reasons[ReasonInitial] != 1 || run.reasons[ReasonAdvanced] != 1 {
				t.Fatalf("%s: %v, want the entries in time order: 1 initial, 1 advanced", name, run.reasons)
			}
		}
		t.Logf("%s: peak heap %d KB for 250,000 empty entries, %d KB for 1,000,000", name, small.peak>>10, big.peak>>10)
		if big.peak > small.peak+2<<20 {
			t.Errorf("%s: peak heap grows with the entries: %d KB for 250,000, %d KB for 1,000,000", name, small.peak>>10, big.peak>>10)
		}
	}
}

// TestHARBigValuesStreamed: a big body without turn events, a big body of
// one line over --max-line, and a big base64 body of events are read in
// memory that does not grow with them: four times the body, not four
// times the heap.
func TestHARBigValuesStreamed(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100 MB of captures")
	}
	dir := t.TempDir()
	const maxLine = 1 << 20
	shapes := []struct {
		name  string
		entry func(w *bufio.Writer, size int)
		check func(t *testing.T, size int, run harRun)
		// events says the body's events grow with it, and so the bytes
		// allocated for them
		events bool
	}{
		{"html body", func(w *bufio.Writer, size int) {
			w.WriteString(`{"request": {"url": "https://x/page"}, "response": {"content": {"mimeType": "text/html", "text": "<html>`)
			for i := 0; i < size/64; i++ {
				w.WriteString(`<p class=\"x\">` + strings.Repeat("lorem ", 7) + "</p>\\n")
			}
			w.WriteString(`"}}}`)
		}, func(t *testing.T, size int, run harRun) {
			if len(run.details) != 0 || run.reasons[ReasonInitial] != 1 {
				t.Errorf("%v %q, want only the turn entry's event", run.reasons, run.details)
			}
		}, false},
		{"one long line with the marker", func(w *bufio.Writer, size int) {
			w.WriteString(`{"response": {"content": {"text": "{\"protocol\":\"agentskit.chat.turn\",\"pad\":\"`)
			for i := 0; i < size/64; i++ {
				w.WriteString(strings.Repeat("x", 64))
			}
			w.WriteString(`\"}"}}}`)
		}, func(t *testing.T, size int, run harRun) {
			if len(run.tooLong) != 1 || run.tooLong[0] < int64(size) {
				t.Errorf("too-long lines %v, want one of the body's whole length (over %d)", run.tooLong, size)
			}
		}, false},
		{"base64 body of events", func(w *bufio.Writer, size int) {
			w.WriteString(`{"response": {"content": {"text": "`)
			enc := base64.NewEncoder(base64.StdEncoding, w)
			for seq := 2; seq < 2+size/300; seq++ {
				enc.Write([]byte(snapshotLine("s", int64(seq)) + "\n"))
			}
			enc.Close()
			w.WriteString(`", "encoding": "base64"}}}`)
		}, func(t *testing.T, size int, run harRun) {
			if got, want := run.reasons[ReasonAdvanced], size/300; got < want {
				t.Errorf("%d advanced, want %d", got, want)
			}
		}, true},
	}
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			measure := func(size int) harRun {
				path := filepath.Join(dir, fmt.Sprint(size, ".har"))
				writeHAR(t, path, func(w *bufio.Writer, sep func()) {
					sep()
					fmt.Fprintf(w, `{"startedDateTime": "2026-07-11T03:00:00Z", "response": {"content": {"text": %s}}}`, turnText("s", 1, 1))
					sep()
					sh.entry(w, size)
				})
				run := readHAR(t, path, maxLine)
				os.Remove(path)
				sh.check(t, size, run)
				return run
			}
			small, big := measure(4<<20), measure(16<<20)
			t.Logf("peak heap %d KB for a 4 MB body, %d KB for 16 MB; allocated %d KB, %d KB", small.peak>>10, big.peak>>10, small.totalAlloc>>10, big.totalAlloc>>10)
			if big.peak > small.peak+4<<20 {
				t.Errorf("peak heap grows with the body: %d KB for 4 MB, %d KB for 16 MB", small.peak>>10, big.peak>>10)
			}
			if !sh.events && big.totalAlloc > small.totalAlloc+1<<20 {
				t.Errorf("bytes allocated grow with the body: %d KB for 4 MB, %d KB for 16 MB", small.totalAlloc>>10, big.totalAlloc>>10)
			}
		})
	}
}

// TestHARDeepNesting: 100,000 levels of nesting in fields the reader
// does not need (a header, a cookie, a custom field, before and after
// the body) cost the entry none of its events; past the depth whose
// brackets are matched, nesting is still skipped.
func TestHARDeepNesting(t *testing.T) {
	deep := func(n int, open, close string) string {
		return strings.Repeat(open, n) + "1" + strings.Repeat(close, n)
	}
	body := turnText("s", 1, 2)
	for _, tc := range []struct{ name, entry string }{
		{"header", `{"request": {"url": "https://x/a", "headers": [{"name": "h", "value": ` + deep(100_000, "[", "]") + `}]}, "response": {"content": {"text": ` + body + `}}}`},
		{"cookie", `{"request": {"url": "https://x/a", "cookies": [` + deep(100_000, `{"a":`, "}") + `]}, "response": {"content": {"text": ` + body + `}}}`},
		{"custom after the body", `{"response": {"content": {"text": ` + body + `}}, "_custom": ` + deep(100_000, `[{"k": [1, "v"], "a":`, "}]") + `}`},
		{"past the tracked depth", `{"_custom": ` + deep(maxTrackedDepth+100, `{"a":[0,`, "]}") + `, "response": {"content": {"text": ` + body + `}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := runCapture(t, "c.har", []byte(harDoc(tc.entry)), FormatAuto, 1)
			var seen []string
			for _, r := range got {
				seen = append(seen, string(r.Reason))
			}
			if strings.Join(seen, " ") != "initial advanced" {
				t.Errorf("events %q, want initial advanced", seen)
			}
		})
	}
}

// TestHARDocumentDamage: what stops the index pass is one malformed
// event, after the events of the entries before it, at its byte.
func TestHARDocumentDamage(t *testing.T) {
	ok := `{"response": {"content": {"text": ` + turnText("s", 1, 1) + `}}}`
	for _, tc := range []struct{ name, doc, want string }{
		{"bracket mismatch in a skipped field", harDoc(ok, `{"_x": [1}`), "har: the document is not JSON at byte"},
		{"control byte in a string", harDoc(ok, "{\"_x\": \"a\x01\"}"), "har: the document is not JSON at byte"},
		{"bad literal", harDoc(ok, `{"_x": nul}`), "har: the document is not JSON at byte"},
		{"cut in a string", harDoc(ok, `{"_x": "abc`)[:len(harDoc(ok))+8], "har: the document ends at byte"},
		{"entries not an array", `{"log": {"entries": {}}}`, "har: not a HAR document: { where [ was expected"},
		{"no log", `{"version": 1}`, `har: not a HAR document: no "log"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := readHAR(t, writeFile(t, t.TempDir(), "c.har", []byte(tc.doc)), 0)
			if len(run.details) != 1 || !strings.HasPrefix(run.details[0], tc.want) {
				t.Errorf("malformed %q, want one: %q", run.details, tc.want)
			}
		})
	}
}

// jsonScanCases are documents valid and not, for the scanner's test and
// fuzz seeds.
var jsonScanCases = []string{
	`{}`, `[]`, `[1,-2.5e3,true,false,null,"x"]`, `{"a":{"b":[{}, [], ""]}}`, ` { "a" : 1 , "b" : [ 1 , 2 ] } `,
	`{"a" 1}`, `[1,]`, `{"a":1,}`, `[1 2]`, `{1:2}`, `[}`, `{]`, `tru`, `"\x"`, `"\u12"`, `["a",{"b":]`,
}

// scanAccepts tells whether the scanner reads doc as one JSON value.
func scanAccepts(doc []byte) bool {
	s := newJSONScan(bytes.NewReader(doc), 0)
	if s.skip() != nil {
		return false
	}
	_, err := s.peek()
	return err != nil // nothing after the value
}

// TestJSONScanAgreesWithEncodingJSON: the scanner accepts the values
// encoding/json accepts, and decodes strings as it does.
func TestJSONScanAgreesWithEncodingJSON(t *testing.T) {
	for _, doc := range jsonScanCases {
		if got, want := scanAccepts([]byte(doc)), json.Valid([]byte(doc)); got != want {
			t.Errorf("%q: scanner accepts it: %v, json.Valid: %v", doc, got, want)
		}
	}
	for _, str := range []string{`"plain"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\u4e2d"`, `"\ud83d\ude00"`, `"\ud83d x"`, `"\ude00"`, `"é 中"`} {
		var want string
		if err := json.Unmarshal([]byte(str), &want); err != nil {
			t.Fatal(err)
		}
		for _, max := range []int{1 << 10, 3} {
			got, cut, err := newJSONScan(strings.NewReader(str), 0).stringValue(max)
			if w := want[:min(max, len(want))]; err != nil || got != w || cut != (len(want) > max) {
				t.Errorf("%s cut to %d: %q %v %v, want %q", str, max, got, cut, err, w)
			}
		}
	}
}

// FuzzJSONScan: the scanner accepts what encoding/json accepts, and
// reads a string as it does.
func FuzzJSONScan(f *testing.F) {
	for _, doc := range jsonScanCases {
		f.Add([]byte(doc))
	}
	f.Add([]byte(`"\ud83d\ude00\u00e9 \n"`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		valid := json.Valid(doc)
		if got := scanAccepts(doc); got != valid {
			t.Fatalf("%q: scanner accepts it: %v, json.Valid: %v", doc, got, valid)
		}
		var want string
		// Only a string is a string: encoding/json also takes null into
		// a string, leaving it empty, which stringValue rightly refuses.
		if trimmed := bytes.TrimLeft(doc, " \t\r\n"); !valid || trimmed[0] != '"' || json.Unmarshal(doc, &want) != nil {
			return
		}
		got, _, err := newJSONScan(bytes.NewReader(doc), 0).stringValue(len(doc) * 4)
		if err != nil || got != want {
			t.Fatalf("%q: read %q (%v), want %q", doc, got, err, want)
		}
	})
}

// BenchmarkHARHostile reads the HAR shapes that were once slow or large
// (scripts/genhostile writes them full size): empty entries, a body
// without events, a base64 body of events, entries in reverse time order
// gzipped, deep nesting in a header. MB/s are of the decompressed
// document.
func BenchmarkHARHostile(b *testing.B) {
	dir := b.TempDir()
	const size = 8 << 20
	shapes := []struct {
		name    string
		entries func(w *bufio.Writer, sep func())
	}{
		{"empty-entries", func(w *bufio.Writer, sep func()) {
			for i := 0; i < size/3; i++ {
				sep()
				w.WriteString("{}")
			}
		}},
		{"html-body", func(w *bufio.Writer, sep func()) {
			sep()
			w.WriteString(`{"response": {"content": {"text": "<html>` + strings.Repeat(`<p class=\"x\">lorem ipsum</p>\n`, size/32) + `"}}}`)
		}},
		{"base64-body", func(w *bufio.Writer, sep func()) {
			sep()
			w.WriteString(`{"response": {"content": {"encoding": "base64", "text": "`)
			enc := base64.NewEncoder(base64.StdEncoding, w)
			for seq := 1; seq < size*3/4/300; seq++ {
				enc.Write([]byte(snapshotLine("s", int64(seq)) + "\n"))
			}
			enc.Close()
			w.WriteString(`"}}}`)
		}},
		{"reversed-gzip.gz", func(w *bufio.Writer, sep func()) {
			n := size / 400
			for i := 0; i < n; i++ {
				sep()
				fmt.Fprintf(w, `{"startedDateTime": "2026-07-11T03:00:00.%06dZ", "request": {"url": "https://x/%d"}, "response": {"content": {"text": %s}}}`,
					n-i, i, turnText("s", n-i, 1))
			}
		}},
		{"deep-header", func(w *bufio.Writer, sep func()) {
			sep()
			fmt.Fprintf(w, `{"request": {"headers": [{"value": %s1%s}]}, "response": {"content": {"text": %s}}}`,
				strings.Repeat("[", size/2), strings.Repeat("]", size/2), turnText("s", 1, 1))
		}},
	}
	for _, sh := range shapes {
		path := filepath.Join(dir, sh.name+".har")
		if strings.HasSuffix(sh.name, ".gz") {
			path = filepath.Join(dir, "c.har.gz")
		}
		writeHAR(b, path, sh.entries)
		b.Run(strings.TrimSuffix(sh.name, ".gz"), func(b *testing.B) {
			var bytes int64
			for b.Loop() {
				rd, err := Open([]string{path}, nil, 0)
				if err != nil {
					b.Fatal(err)
				}
				sum, err := Run(rd, Options{Workers: 1}, func(*Result) error { return nil })
				if err != nil {
					b.Fatal(err)
				}
				bytes = sum.Input.Bytes
			}
			b.SetBytes(bytes)
		})
	}
}

// TestHARFromStandardInput: a HAR on standard input, spooled, is read in
// startedDateTime order as a file is, whether the spool stays in memory
// or passes memSpool and goes to a file.
func TestHARFromStandardInput(t *testing.T) {
	entries := []string{
		harEntryJSON("https://x/second", "2026-07-11T03:00:02Z", snapshotLine("s", 2)+"\n", ""),
		harEntryJSON("https://x/first", "2026-07-11T03:00:01Z", snapshotLine("s", 1)+"\n", ""),
	}
	doc := harDoc(entries...)
	big := harDoc(append(entries, harEntryJSON("https://x/pad", "2026-07-11T03:00:03Z", strings.Repeat("x", memSpool), ""))...)
	for _, data := range [][]byte{[]byte(doc), gzipBytes(t, doc), []byte(big), gzipBytes(t, big)} {
		rd, err := Open([]string{StdinName}, bytes.NewReader(data), 0)
		if err != nil {
			t.Fatal(err)
		}
		var seen []string
		if _, err := Run(rd, Options{Workers: 1}, func(res *Result) error {
			seen = append(seen, fmt.Sprintf("%s %d %s", res.Reason, res.Origin.Entry, res.Origin.URL))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if want := "initial 2 https://x/first; advanced 1 https://x/second"; strings.Join(seen, "; ") != want {
			t.Errorf("%q, want %q", seen, want)
		}
	}
}

// TestHARManySlots: past the slots kept in memory, the slots of entries
// in time order are read back from their file in order, and an entry out
// of order after them still comes first.
func TestHARManySlots(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 2 x 25 MB of captures")
	}
	n := maxMemSlots + 5000
	for _, late := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "c.har")
		writeHAR(t, path, func(w *bufio.Writer, sep func()) {
			for i := 1; i <= n; i++ {
				sep()
				sec, seq := i, i+1
				if late && i == n {
					sec, seq = 0, 1 // due first
				}
				fmt.Fprintf(w, `{"startedDateTime": "2026-07-11T%02d:%02d:%02dZ", "response": {"content": {"text": %s}}}`,
					sec/3600, sec/60%60, sec%60, turnText("s", seq, 1))
			}
		})
		run := readHAR(t, path, 0)
		if want := n - 1; run.reasons[ReasonInitial] != 1 || run.reasons[ReasonAdvanced] != want || len(run.details) != 0 {
			t.Errorf("late=%v: %v %q, want 1 initial and %d advanced", late, run.reasons, run.details, want)
		}
	}
}

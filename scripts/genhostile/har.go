package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// harCaptures are the HAR shapes that once made snapctl large or slow:
// the document is not made of lines, so each names its longest event (a
// line of a body) for the memory bound.
var harCaptures = []struct {
	name    string
	longest int
	write   func(w io.Writer)
}{
	// 10M entries without events: a time and an offset were kept for each.
	{"har-10m-empty-entries.har", len(snapshot(1, "")) - 1, func(w io.Writer) {
		harDoc(w, func(sep func()) {
			turnEntry(w, sep, "2026-07-11T03:00:00Z", 1)
			for i := 0; i < 10_000_000; i++ {
				sep()
				io.WriteString(w, "{}")
			}
		})
	}},
	// A 300 MB body that is not this protocol's: it was held whole.
	{"har-300mb-html-body.har", len(snapshot(1, "")) - 1, func(w io.Writer) {
		harDoc(w, func(sep func()) {
			turnEntry(w, sep, "2026-07-11T03:00:00Z", 1)
			sep()
			io.WriteString(w, `{"request": {"url": "https://chat.example/"}, "response": {"content": {"mimeType": "text/html", "text": "<html>`)
			p := `<p class=\"x\">` + strings.Repeat("lorem ipsum ", 5) + `</p>\n`
			for n := 0; n < 300<<20; n += len(p) {
				io.WriteString(w, p)
			}
			io.WriteString(w, `</html>"}}}`)
		})
	}},
	// A 150 MB base64 body of events: it was held, and decoded whole.
	{"har-150mb-base64-body.har", len(snapshot(1_000_000, "")) - 1, func(w io.Writer) {
		harDoc(w, func(sep func()) {
			sep()
			io.WriteString(w, `{"request": {"url": "https://chat.example/api/turns"}, "response": {"content": {"text": "`)
			enc := base64.NewEncoder(base64.StdEncoding, w)
			for seq, n := 1, 0; n < 150<<20*3/4; seq++ {
				n += len(snapshot(seq, ""))
				io.WriteString(enc, snapshot(seq, ""))
			}
			enc.Close()
			io.WriteString(w, `", "encoding": "base64"}}}`)
		})
	}},
	// 100,000 levels of nesting in a request header: the entry was lost.
	{"har-deep-header.har", len(snapshot(1, "")) - 1, func(w io.Writer) {
		harDoc(w, func(sep func()) {
			sep()
			fmt.Fprintf(w, `{"request": {"url": "https://chat.example/api/turns", "headers": [{"name": "x", "value": %s1%s}]}, "response": {"content": {"text": %s}}}`,
				strings.Repeat("[", 100_000), strings.Repeat("]", 100_000), jsonText(snapshot(1, "")))
		})
	}},
	// 100,000 entries of events in reverse time order, compressed: each
	// was read again from the start of the decompressed stream.
	{"har-100k-reversed.har.zst", len(snapshot(100_000, "")) - 1, func(w io.Writer) {
		harDoc(w, func(sep func()) {
			for i := 100_000; i > 0; i-- {
				turnEntry(w, sep, fmt.Sprintf("2026-07-11T03:00:00.%06dZ", i), i)
			}
		})
	}},
}

func harCapture(name string) (c struct {
	name    string
	longest int
	write   func(w io.Writer)
}, ok bool) {
	for _, c := range harCaptures {
		if c.name == name {
			return c, true
		}
	}
	return c, false
}

// harDoc writes a HAR document whose entries entries writes, each after
// a call of its sep.
func harDoc(w io.Writer, entries func(sep func())) {
	io.WriteString(w, `{"log": {"version": "1.2", "creator": {"name": "genhostile", "version": "1"}, "entries": [`+"\n")
	first := true
	entries(func() {
		if !first {
			io.WriteString(w, ",\n")
		}
		first = false
	})
	io.WriteString(w, "\n]}}\n")
}

// turnEntry writes an entry whose body is the snapshot of sequence seq.
func turnEntry(w io.Writer, sep func(), started string, seq int) {
	sep()
	fmt.Fprintf(w, `{"startedDateTime": %q, "request": {"url": "https://chat.example/api/turns"}, "response": {"content": {"text": %s}}}`,
		started, jsonText(snapshot(seq, "")))
}

func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

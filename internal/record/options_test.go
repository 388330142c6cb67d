package record

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// TestHeaderOptions: the secret headers are written only with
// KeepHeaders; Redact writes header names only, and no query string.
func TestHeaderOptions(t *testing.T) {
	cases := []struct {
		name      string
		opts      Options
		want, not []string
	}{
		{"default", Options{}, []string{`"headersNotKept":["Authorization","Cookie"]`, `/chat?token=q-secret`, `"Content-Type":["application/json"]`},
			[]string{"secret-token-4711", "secret-cookie-0815", "secret-set-cookie-99"}},
		{"keep-headers", Options{KeepHeaders: true}, []string{"secret-token-4711", "secret-cookie-0815", "secret-set-cookie-99"}, []string{"headersNotKept"}},
		{"redact", Options{Redact: true}, []string{`"url":"/chat"`, `"headerNames":["Accept-Encoding","Authorization","Content-Length","Content-Type","Cookie","User-Agent"]`},
			[]string{"secret-token-4711", "secret-cookie-0815", "secret-set-cookie-99", "q-secret", "application/json"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bodies, turns := realBodies(t, "real-fail.jsonl")
			r := startRig(t, newUpstream(t, bodies), c.opts, nil)
			k := turns[0]
			read(t, post(t, r.client, r.proxy+"/chat?token=q-secret", "application/json", submit(k[0], k[1], "submit-"+k[1])))
			r.stop()
			data, _ := os.ReadFile(r.file)
			var records []string
			for _, l := range strings.Split(string(data), "\n") {
				if strings.HasPrefix(l, `{"snapctl":`) {
					records = append(records, l)
				}
			}
			all := strings.Join(records, "\n")
			for _, w := range c.want {
				if !strings.Contains(all, w) {
					t.Errorf("the context records lack %s:\n%s", w, all)
				}
			}
			for _, n := range c.not {
				if strings.Contains(all, n) {
					t.Errorf("the context records hold %s", n)
				}
			}
		})
	}
}

// TestLongLineCut: a line over MaxLine reaches the client whole and is
// written as a cut record with its length, between whole lines.
func TestLongLineCut(t *testing.T) {
	long := strings.Repeat("y", 5000)
	body := "short-1\n" + long + "\nshort-2\n"
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < len(body); i += 700 {
			w.Write([]byte(body[i:min(i+700, len(body))]))
			w.(http.Flusher).Flush()
		}
	})
	r := startRig(t, h, Options{MaxLine: 1000}, nil)
	got := read(t, post(t, r.client, r.proxy+"/", "application/json", "{}"))
	r.stop()
	if string(got) != body {
		t.Fatalf("the client got %d bytes, want %d", len(got), len(body))
	}
	data, _ := os.ReadFile(r.file)
	if bytes.Contains(data, []byte(long)) || !bytes.Contains(data, []byte(`"bytes":5000}`+"\n")) {
		t.Errorf("the long line is not a cut record of 5000 bytes:\n%.2000s", data)
	}
	i, j, k := bytes.Index(data, []byte("short-1\n")), bytes.Index(data, []byte(`{"snapctl":"cut"`)), bytes.Index(data, []byte("short-2\n"))
	if i < 0 || j < i || k < j {
		t.Errorf("lines out of order around the cut: %d %d %d", i, j, k)
	}
}

// TestPipe: the live view's pipe holds at most its limit (a write past
// it waits for the reader), delivers every byte in order, and a reader
// that stops makes writes fail rather than wait.
func TestPipe(t *testing.T) {
	p := newPipe(10)
	if _, err := p.Write([]byte("0123456789")); err != nil {
		t.Fatal(err)
	}
	wrote := make(chan error, 1)
	go func() { _, err := p.Write([]byte("abc")); wrote <- err }()
	select {
	case <-wrote:
		t.Fatal("a write past the limit did not wait")
	case <-time.After(20 * time.Millisecond):
	}
	buf := make([]byte, 4)
	n, _ := p.Read(buf)
	if string(buf[:n]) != "0123" {
		t.Fatalf("read %q", buf[:n])
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	p.Close()
	rest, _ := io.ReadAll(p)
	if string(rest) != "456789abc" {
		t.Errorf("read %q after the first four bytes", rest)
	}
	q := newPipe(1)
	q.Write([]byte("x"))
	go func() { time.Sleep(10 * time.Millisecond); q.CloseRead() }()
	if _, err := q.Write([]byte("y")); err == nil {
		t.Error("a write to a pipe whose reader stopped did not fail")
	}
}

// TestHeldLimit: unfinished lines count against one limit for all
// streams: while one stream holds most of it, another's long line is
// recorded as a cut record (its client gets it whole), and when every
// stream has ended nothing is held.
func TestHeldLimit(t *testing.T) {
	a := strings.Repeat("a", 2500)
	b := strings.Repeat("b", 2000)
	go1 := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/a" {
			w.Write([]byte(a))
			w.(http.Flusher).Flush()
			<-go1
			w.Write([]byte("\n"))
			return
		}
		w.Write([]byte(b + "\n"))
	})
	var c *Capture
	r := startRig(t, h, Options{MaxLine: 10000}, func(w io.Writer) *Capture {
		c = NewCapture(w, nil, nil)
		c.heldLimit = 3000
		return c
	})
	resA := post(t, r.client, r.proxy+"/a", "application/json", "{}")
	for deadline := time.Now().Add(5 * time.Second); c.held.Load() < 2500; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("stream a never held its line")
		}
	}
	if got := read(t, post(t, r.client, r.proxy+"/b", "application/json", "{}")); string(got) != b+"\n" {
		t.Errorf("client b got %d bytes, want %d", len(got), len(b)+1)
	}
	close(go1)
	if got := read(t, resA); string(got) != a+"\n" {
		t.Errorf("client a got %d bytes, want %d", len(got), len(a)+1)
	}
	r.stop()
	data, _ := os.ReadFile(r.file)
	if !bytes.Contains(data, []byte(a+"\n")) || bytes.Contains(data, []byte(b)) || !bytes.Contains(data, []byte(`"bytes":2000}`)) {
		t.Errorf("want a's line whole and b's as a cut record of 2000 bytes:\n%.300s", data)
	}
	if n := c.held.Load(); n != 0 {
		t.Errorf("%d bytes still held after every stream ended", n)
	}
}

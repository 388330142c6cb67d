package record

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// records returns the context records of a capture of kind.
func records(data []byte, kind string) []string {
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, `{"snapctl":"`+kind+`"`) {
			out = append(out, l)
		}
	}
	return out
}

// TestUpstreamDiesMidStream: the upstream writes three lines and half a
// fourth, then its connection is cut. The client gets exactly those
// bytes and then an error, as it would from the upstream directly; the
// capture holds the half line on a line of its own, and the end record
// says the body was cut.
func TestUpstreamDiesMidStream(t *testing.T) {
	bodies, _ := realBodies(t, "real-alpha.jsonl")
	full := bodies[[2]string{"s-alpha", "turn-1"}]
	sent := full[:nthLineEnd(full, 3)+100]
	dying := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.Write(sent)
		w.(http.Flusher).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Close()
	})
	r := startRig(t, dying, Options{}, nil)
	res := post(t, r.client, r.proxy+"/chat", "application/json", submit("s-alpha", "turn-1", "x"))
	got, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err == nil {
		t.Error("the client read the cut body to its end without an error")
	}
	if !bytes.Equal(got, sent) {
		t.Errorf("the client got %d bytes, the upstream sent %d", len(got), len(sent))
	}
	r.stop()
	data, _ := os.ReadFile(r.file)
	ends := records(data, "end")
	if len(ends) != 1 || !strings.Contains(ends[0], `"newlineAdded":true`) || !strings.Contains(ends[0], `"error":`) {
		t.Fatalf("end records %q: want one, with newlineAdded and an error", ends)
	}
	half := string(sent[nthLineEnd(sent, 3):]) + "\n"
	if !strings.Contains(string(data), "\n"+half+ends[0]) {
		t.Error("the half line is not on a line of its own before the end record")
	}
}

// TestClientGoesAway: a client that goes away mid-stream cancels the
// upstream request, and the end record says so.
func TestClientGoesAway(t *testing.T) {
	bodies, turns := realBodies(t, "real-abort.jsonl")
	up := newUpstream(t, bodies)
	r := startRig(t, up, Options{}, nil)
	abortAfter(t, r, up, turns[0], "submit-turn-1", 3)
	r.stop()
	data, _ := os.ReadFile(r.file)
	ends := records(data, "end")
	if len(ends) != 1 || !strings.Contains(ends[0], `"error":"the client went away"`) {
		t.Fatalf("end records %q: want one saying the client went away", ends)
	}
}

// failingWriter fails every write after the first n bytes, as a full
// disk does.
type failingWriter struct {
	w   io.Writer
	n   int
	mu  sync.Mutex
	got int
}

func (f *failingWriter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.got+len(p) > f.n {
		return 0, &os.PathError{Op: "write", Path: "capture.jsonl", Err: syscall.ENOSPC}
	}
	f.got += len(p)
	return f.w.Write(p)
}

// TestDiskFull: when the capture cannot be written, the recording stops
// with one report of the error, and every client still gets its whole
// body.
func TestDiskFull(t *testing.T) {
	bodies, turns := realBodies(t, "real-alpha.jsonl")
	up := newUpstream(t, bodies)
	var fails []error
	var mu sync.Mutex
	r := startRig(t, up, Options{}, func(w io.Writer) *Capture {
		return NewCapture(&failingWriter{w: w, n: 20000}, nil, func(err error) {
			mu.Lock()
			fails = append(fails, err)
			mu.Unlock()
		})
	})
	c := r.c
	for _, k := range turns {
		id := "submit-" + k[1]
		got := read(t, post(t, r.client, r.proxy+"/chat", "application/json", submit(k[0], k[1], id)))
		if !bytes.Equal(got, bodies[k]) {
			t.Errorf("%s: the client got %d bytes, want the %d of the capture", id, len(got), len(bodies[k]))
		}
	}
	r.stop()
	if len(fails) != 1 || !errors.Is(fails[0], syscall.ENOSPC) || !errors.Is(c.Err(), syscall.ENOSPC) {
		t.Errorf("failures reported %v, Err %v: want ENOSPC once", fails, c.Err())
	}
	data, _ := os.ReadFile(r.file)
	if len(data) > 20000 || len(data) == 0 || data[len(data)-1] != '\n' {
		t.Errorf("the capture holds %d bytes: want what fit, ending on a line boundary", len(data))
	}
}

// TestUnreachableUpstream: the proxy answers 502 and the capture says
// why.
func TestUnreachableUpstream(t *testing.T) {
	r := startRig(t, http.NotFoundHandler(), Options{}, nil)
	r.upstreamDown(t)
	res := post(t, r.client, r.proxy+"/chat", "application/json", submit("s", "t", "x"))
	read(t, res)
	if res.StatusCode != http.StatusBadGateway {
		t.Errorf("status %d, want 502", res.StatusCode)
	}
	r.stop()
	data, _ := os.ReadFile(r.file)
	if ends := records(data, "end"); len(ends) != 1 || !strings.Contains(ends[0], `"error":`) {
		t.Errorf("end records %q: want one with the error", ends)
	}
}

// TestRequestBodyStreams: a request body over the read-ahead limit is
// forwarded whole and recorded line by line.
func TestRequestBodyStreams(t *testing.T) {
	var got []byte
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
	})
	r := startRig(t, echo, Options{}, nil)
	line := strings.Repeat("x", 1000) + "\n"
	body := strings.Repeat(line, 3*peekLimit/len(line))
	read(t, post(t, r.client, r.proxy+"/chat", "application/json", body))
	r.stop()
	if string(got) != body {
		t.Fatalf("the upstream got %d bytes, the client sent %d", len(got), len(body))
	}
	data, _ := os.ReadFile(r.file)
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0
	for sc.Scan() {
		if sc.Text()+"\n" == line {
			n++
		}
	}
	if want := strings.Count(body, "\n"); n != want {
		t.Errorf("the capture holds %d of the %d request lines", n, want)
	}
}

// TestEndAfterWholeBody: a client that leaves once it has read the whole
// body (curl closing its connection) lost nothing: the end record says no
// error, while one that leaves before the end went away.
func TestEndAfterWholeBody(t *testing.T) {
	for _, eof := range []bool{true, false} {
		var buf bytes.Buffer
		c := NewCapture(&buf, nil, nil)
		p := &Proxy{c: c}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		x := &exchange{p: p, req: 1, ctx: ctx, eof: eof}
		x.recv = body{c: c, req: 1, kind: "received", maxLine: 100}
		x.end()
		if gone := strings.Contains(buf.String(), "the client went away"); gone == eof {
			t.Errorf("read to its end %v: end record %s", eof, buf.String())
		}
	}
}

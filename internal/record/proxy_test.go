package record

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/replay"
)

// rig is an upstream, the proxy in front of it and the capture file.
type rig struct {
	srv    *httptest.Server // the upstream
	c      *Capture
	proxy  string // the proxy's base URL
	file   string
	stop   func()
	client *http.Client
}

// upstreamDown stops the upstream.
func (r *rig) upstreamDown(t testing.TB) { r.srv.Close() }

// startRig starts the proxy in front of handler, recording to a new file
// through the capture mk makes of it (nil: NewCapture).
func startRig(t testing.TB, handler http.Handler, opts Options, mk func(io.Writer) *Capture) *rig {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	file := filepath.Join(t.TempDir(), "capture.jsonl")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	c := NewCapture(f, nil, nil)
	if mk != nil {
		c = mk(f)
	}
	c.Start(srv.URL)
	opts.Upstream = u
	p := NewProxy(c, opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, p, time.Second) }()
	r := &rig{srv: srv, c: c, proxy: "http://" + ln.Addr().String(), file: file, client: &http.Client{Transport: &http.Transport{}}}
	stopped := false
	r.stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		f.Close()
	}
	t.Cleanup(r.stop)
	return r
}

// read reads a response body whole.
func read(t testing.TB, res *http.Response) []byte {
	t.Helper()
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// verdict is what a line's replay says, compared between captures.
type verdict struct {
	Reason  replay.Reason
	EventID string
	Code    replay.Code
}

// replayFile runs a capture through replay; keep picks the results.
func replayFile(t testing.TB, file string, keep func(*replay.Result) bool) ([]verdict, replay.Summary) {
	t.Helper()
	rd, err := replay.Open([]string{file}, nil, replay.DefaultMaxLine)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var out []verdict
	sum, err := replay.Run(rd, replay.Options{MaxLine: replay.DefaultMaxLine}, func(res *replay.Result) error {
		if keep(res) {
			v := verdict{Reason: res.Reason}
			if res.Event != nil {
				v.EventID = res.Event.EventID
			}
			if res.Err != nil {
				v.Code = res.Err.Code
			}
			out = append(out, v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, sum
}

// TestRecordRealCaptures sends every real capture's turns through the
// proxy from a real client: the client receives exactly the bytes the
// upstream wrote; the recorded capture gives the response lines the
// verdicts of the capture read directly; every line of it is JSON (no
// line glued); no secret header value is in it; inspect attributes every
// refusal to its session and turn.
func TestRecordRealCaptures(t *testing.T) {
	for _, name := range []string{"real-alpha.jsonl", "real-abort.jsonl", "real-timeout.jsonl", "real-busy.jsonl", "real-fail.jsonl"} {
		t.Run(name, func(t *testing.T) {
			bodies, turns := realBodies(t, name)
			up := newUpstream(t, bodies)
			r := startRig(t, up, Options{}, nil)
			got := map[string][]byte{}
			var refusedTurns []string
			for i, k := range turns {
				id := "submit-" + k[1]
				switch {
				case name == "real-abort.jsonl" && i == 0:
					got[id] = abortAfter(t, r, up, k, id, bytes.Count(bodies[k], []byte("\n")))
				case name == "real-busy.jsonl" && i == 0:
					// A second writer on the session while turn-1 streams is
					// refused, then retried once turn-1 is done.
					next := turns[1]
					got[id] = whileStreaming(t, r, k, id, func() {
						res := post(t, r.client, r.proxy+"/chat", "application/json", submit(next[0], next[1], "submit-"+next[1]))
						if b := read(t, res); res.StatusCode != http.StatusConflict || !bytes.Equal(b, up.errs["SESSION_BUSY"]) {
							t.Errorf("second writer: %d %q, want 409 and the real SESSION_BUSY body", res.StatusCode, b)
						}
						refusedTurns = append(refusedTurns, next[1])
					})
				default:
					if i == 1 && name == "real-busy.jsonl" {
						id += "-retry"
					}
					res := post(t, r.client, r.proxy+"/chat", "application/json", submit(k[0], k[1], id))
					got[id] = read(t, res)
				}
				if !bytes.Equal(got[id], up.sent(id)) {
					t.Errorf("%s: the client got %d bytes, the upstream wrote %d: not the same bytes", id, len(got[id]), len(up.sent(id)))
				}
				if !bytes.Equal(got[id], bodies[k]) {
					t.Errorf("%s: the client got %d bytes, not the %d of the real capture", id, len(got[id]), len(bodies[k]))
				}
			}
			r.stop()
			data, err := os.ReadFile(r.file)
			if err != nil {
				t.Fatal(err)
			}
			checkCapture(t, data)
			want, _ := replayFile(t, filepath.Join(realDir, name), func(*replay.Result) bool { return true })
			have, sum := replayFile(t, r.file, func(res *replay.Result) bool {
				return res.Origin != nil && !res.Origin.Sent && res.Origin.Status == http.StatusOK
			})
			if len(have) != len(want) {
				t.Fatalf("the recorded capture has %d response lines, the real capture %d", len(have), len(want))
			}
			for i := range want {
				if have[i] != want[i] {
					t.Errorf("response line %d: %+v, read directly %+v", i+1, have[i], want[i])
				}
			}
			if sum.Input.Context == 0 || len(sum.Input.Formats) != 1 || sum.Input.Formats[0] != replay.FormatRecord {
				t.Errorf("read as %v with %d context records, want record and some", sum.Input.Formats, sum.Input.Context)
			}
			checkRefusals(t, r.file, refusedTurns)
		})
	}
}

// whileStreaming posts a turn, reads its first line, calls during, then
// reads the rest.
func whileStreaming(t *testing.T, r *rig, k [2]string, id string, during func()) []byte {
	res := post(t, r.client, r.proxy+"/chat", "application/json", submit(k[0], k[1], id))
	defer res.Body.Close()
	br := bufio.NewReader(res.Body)
	first, err := br.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	during()
	rest, err := io.ReadAll(br)
	if err != nil {
		t.Fatal(err)
	}
	return append(first, rest...)
}

// abortAfter posts a turn whose response the upstream holds open after
// n lines; the client reads them and goes away, as the real client did.
func abortAfter(t *testing.T, r *rig, up *upstream, k [2]string, id string, n int) []byte {
	up.hold[k] = n
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, r.proxy+"/chat", strings.NewReader(submit(k[0], k[1], id)))
	req.Header.Set("Content-Type", "application/json")
	res, err := r.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(res.Body)
	var got []byte
	for range n {
		l, err := br.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, l...)
	}
	cancel()
	res.Body.Close()
	// The upstream sees the client go away through the proxy.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		up.mu.Lock()
		gone := up.gone
		up.mu.Unlock()
		if gone > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the upstream never saw the client go away")
		}
	}
	return got
}

// checkCapture checks that every line of a capture is one JSON value
// (none glued), and that no secret header value was written.
func checkCapture(t *testing.T, data []byte) {
	t.Helper()
	if len(data) == 0 || data[len(data)-1] != '\n' {
		t.Fatal("the capture does not end on a line boundary")
	}
	for i, l := range bytes.Split(data[:len(data)-1], []byte("\n")) {
		if !json.Valid(l) {
			t.Errorf("capture line %d is not one JSON value: %.120q", i+1, l)
		}
	}
	for _, secret := range []string{"secret-token-4711", "secret-cookie-0815", "secret-set-cookie-99"} {
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("the capture holds %s", secret)
		}
	}
}

// checkRefusals runs inspect on a recorded capture: each refused turn is
// attributed, and no line is glued.
func checkRefusals(t *testing.T, file string, turns []string) {
	t.Helper()
	rd, err := replay.Open([]string{file}, nil, replay.DefaultMaxLine)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	rep, err := inspect.Run(rd, inspect.Options{MaxLine: replay.DefaultMaxLine})
	if err != nil {
		t.Fatal(err)
	}
	var refused []string
	for _, f := range rep.Findings {
		switch f.ID {
		case inspect.GluedLines:
			t.Errorf("inspect finds glued lines: %s", f.Message)
		case inspect.RequestRefused:
			refused = append(refused, f.Message)
		}
	}
	if len(refused) != len(turns) {
		t.Fatalf("inspect finds %d refusals %q, want %d", len(refused), refused, len(turns))
	}
	for i, turn := range turns {
		if !strings.Contains(refused[i], "it answered the submit of turn "+turn+" of session") || !strings.Contains(refused[i], "in its HTTP exchange") {
			t.Errorf("refusal %d not attributed to turn %s by its exchange: %s", i+1, turn, refused[i])
		}
	}
}

package cmd

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/replay"
)

// TestRecordRun records one real turn through `snapctl record`'s run
// function: the client gets the body; the live verdicts of its lines are
// on standard error, with the summary once SIGINT (here its stand-in,
// Stop) closes the capture; the capture replays with the same verdicts.
func TestRecordRun(t *testing.T) {
	for _, redact := range []bool{false, true} {
		t.Run(fmt.Sprint("redact=", redact), func(t *testing.T) { recordOnce(t, redact) })
	}
}

// recordOnce records real-fail.jsonl through the proxy: the client gets
// the body unchanged; with redact, the capture holds none of its texts.
func recordOnce(t *testing.T, redact bool) {
	body, err := os.ReadFile(filepath.Join("..", "testdata", "real-server", "real-fail.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	orig := string(body)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-ndjson")
		for len(body) > 0 {
			n := min(len(body), 4096)
			w.Write(body[:n])
			w.(http.Flusher).Flush()
			body = body[n:]
		}
	}))
	defer up.Close()
	want := string(body)
	u, _ := url.Parse(up.URL)
	ios, _, stderr := iostreams.Test("")
	ios.Stoppable()
	file := filepath.Join(t.TempDir(), "session.jsonl")
	addr := make(chan string, 1)
	opts := &recordOptions{IO: ios, File: file, Upstream: u, Listen: "127.0.0.1:0", MaxLine: replay.DefaultMaxLine,
		Grace: time.Second, ready: func(a string) { addr <- a }, Redact: redact}
	done := make(chan error, 1)
	go func() { done <- recordRun(opts) }()
	res, err := http.Post("http://"+<-addr+"/chat", "application/json", strings.NewReader(`{"event":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(got) != want {
		t.Errorf("the client got %d bytes, the upstream sent %d", len(got), len(want))
	}
	ios.Stop(&iostreams.SignalError{Sig: syscall.SIGINT})
	if err := <-done; err != nil {
		t.Fatalf("recordRun: %v", err)
	}
	out := stderr.String()
	for _, w := range []string{"snapctl: recording to " + file, "from 55 · request 1 (200) at ", "52 events in", "(record, ", " context records)"} {
		if !strings.Contains(out, w) {
			t.Errorf("standard error lacks %q:\n%s", w, out)
		}
	}
	data, err := os.ReadFile(file)
	if err != nil || !strings.HasSuffix(string(data), "\n") || !strings.Contains(string(data), `{"snapctl":"close"`) {
		t.Errorf("the capture is not closed: %v\n%.300s", err, data)
	}
	// A text of the reply: in the capture exactly when not redacted.
	const text = `"content":"`
	i := strings.Index(orig, text)
	reply := orig[i : i+len(text)+12]
	if got := strings.Contains(string(data), reply); got == redact {
		t.Errorf("redact=%v: the capture holds %q: %v", redact, reply, got)
	}
}

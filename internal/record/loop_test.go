package record

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRecordUpstreamIsItself points --upstream at the proxy's own
// address: the request that comes back is answered 508 Loop Detected,
// not forwarded round again. Before, one request made thousands, each
// recorded, until the client gave up.
func TestRecordUpstreamIsItself(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	up, _ := url.Parse("http://" + addr)
	file := filepath.Join(t.TempDir(), "capture.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{File: file, Listen: addr, Grace: time.Second, Options: Options{Upstream: up},
			Ready: func(string) { close(ready) }})
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Skip("cannot listen again on a free port:", err)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	res, err := client.Post("http://"+addr+"/v1/turns", "application/json", strings.NewReader(`{"a":1}`))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusLoopDetected || !strings.Contains(string(body), "the upstream is this proxy itself") {
		t.Errorf("status %d, body %q: want 508 saying the upstream is the proxy", res.StatusCode, body)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, []byte(`"snapctl":"request"`)); n != 1 {
		t.Errorf("%d requests recorded, want the client's one:\n%s", n, data)
	}
	if !bytes.Contains(data, []byte(`"status":508`)) {
		t.Errorf("the 508 is not recorded as the response:\n%s", data)
	}
}

// TestRecordRefusesCompressed: appending plain lines to a compressed
// capture would damage it, the recording lost behind the damage; the
// file is left as it is.
func TestRecordRefusesCompressed(t *testing.T) {
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	fmt.Fprintln(w, `{"protocol":"agentskit.chat.turn"}`)
	w.Close()
	file := filepath.Join(t.TempDir(), "capture.jsonl.gz")
	if err := os.WriteFile(file, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	up, _ := url.Parse("http://127.0.0.1:1")
	err := Run(context.Background(), Config{File: file, Listen: "127.0.0.1:0", Options: Options{Upstream: up}})
	if err == nil || !strings.Contains(err.Error(), "is gzip-compressed: record appends plain lines") {
		t.Fatalf("Run = %v, want a refusal of the gzip capture", err)
	}
	if got, _ := os.ReadFile(file); !bytes.Equal(got, gz.Bytes()) {
		t.Error("the compressed capture was changed")
	}
}

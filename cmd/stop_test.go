//go:build unix

package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
)

// quietFeed is a standard input that stays open: it gives its data, says
// so on drained, then blocks until the test ends, as a live stream does.
type quietFeed struct {
	data    []byte
	drained chan struct{}
	end     chan struct{}
	once    sync.Once
}

func newQuietFeed(t *testing.T, data string) *quietFeed {
	f := &quietFeed{data: []byte(data), drained: make(chan struct{}), end: make(chan struct{})}
	t.Cleanup(func() { close(f.end) })
	return f
}

func (f *quietFeed) Read(p []byte) (int, error) {
	if len(f.data) > 0 {
		n := copy(p, f.data)
		f.data = f.data[n:]
		return n, nil
	}
	f.once.Do(func() { close(f.drained) })
	select {
	case <-f.end:
	case <-time.After(time.Minute): // a run that does not stop: fail, not hang
	}
	return 0, io.EOF
}

// sampleCapture is testdata/reconnect.jsonl.
func sampleCapture(t *testing.T) string {
	data, err := os.ReadFile("../testdata/reconnect.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestStopClosesEveryDocument: a run stopped by a signal while its
// standard input is quiet stops reading, writes what it read as a valid
// document (every JSON Lines record whole; a summary that says
// complete: false), says on stderr where it stopped, and exits 128 plus
// the signal.
func TestStopClosesEveryDocument(t *testing.T) {
	capture := sampleCapture(t)
	cases := []struct {
		args     []string
		complete func(v map[string]any) any // where the document says complete, if it does
		each     bool                       // stderr ends with the signal
	}{
		{[]string{"replay", "-o", "json", "-"}, func(v map[string]any) any { return dig(v, "summary", "complete") }, false},
		{[]string{"replay", "-o", "jsonl", "-"}, nil, false},
		{[]string{"inspect", "-o", "json", "-"}, func(v map[string]any) any { return dig(v, "overview", "complete") }, false},
		{[]string{"inspect", "--each", "-o", "jsonl", "-"}, func(v map[string]any) any { return v["complete"] }, true},
		{[]string{"lineage", "-o", "json", "-"}, nil, false},
		{[]string{"diff", "-o", "json", "-"}, nil, false},
		{[]string{"diff", "-o", "jsonl", "-"}, nil, false},
		{[]string{"replay", "-o", "json", "--jq", ".summary", "-"}, func(v map[string]any) any { return v["complete"] }, false},
	}
	for _, tc := range cases {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			name := strings.Join(tc.args, " ") + " " + sig.String()
			t.Run(name, func(t *testing.T) {
				ios, out, errOut := iostreams.Test("")
				feed := newQuietFeed(t, capture)
				ios.In = feed
				ios.Stoppable()
				go func() {
					<-feed.drained
					ios.Stop(&iostreams.SignalError{Sig: sig})
				}()
				if got, want := run(ios, tc.args), 128+int(sig); got != want {
					t.Errorf("exit %d, want %d", got, want)
				}
				want := fmt.Sprintf("snapctl: -: stopped at byte %d: %s\n", len(capture), (&iostreams.SignalError{Sig: sig}).Error())
				if tc.each {
					want += "snapctl: " + (&iostreams.SignalError{Sig: sig}).Error() + "\n"
				}
				if errOut.String() != want {
					t.Errorf("stderr %q, want %q", errOut, want)
				}
				dec := json.NewDecoder(bytes.NewReader(out.Bytes()))
				docs := 0
				for {
					var v map[string]any
					err := dec.Decode(&v)
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						t.Fatalf("output is not JSON: %v\n%s", err, out)
					}
					docs++
					if tc.complete != nil && tc.complete(v) != false {
						t.Errorf("complete is %v, want false", tc.complete(v))
					}
				}
				if docs == 0 || !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
					t.Errorf("%d documents, output %q", docs, out)
				}
			})
		}
	}
}

// dig is v's value at the path of object keys.
func dig(v map[string]any, keys ...string) any {
	var cur any = v
	for _, k := range keys {
		m, _ := cur.(map[string]any)
		cur = m[k]
	}
	return cur
}

// snapctlCommand is the snapctl that testscript put on PATH: this test
// binary, run as the command, which goes through Execute.
func snapctlCommand(t *testing.T, args ...string) *exec.Cmd {
	path, err := exec.LookPath("snapctl")
	if err != nil {
		t.Skip("no snapctl on PATH:", err)
	}
	c := exec.Command(path, args...)
	c.Env = append(os.Environ(), "NO_COLOR=")
	return c
}

// waitOrKill waits for c, which should be ending; one that does not end
// within a minute is killed, so that a broken test fails instead of
// hanging.
func waitOrKill(t *testing.T, c *exec.Cmd) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		c.Process.Kill()
		<-done
		t.Fatalf("%v did not end", c.Args)
		return nil
	}
}

// TestSignalStopsProcess sends a real SIGINT and SIGTERM to snapctl
// replay while it waits on a pipe that stays open, once it has written
// every event read: -o json ends as a whole document with
// "complete": false, and the exit status is 130 or 143.
func TestSignalStopsProcess(t *testing.T) {
	capture := sampleCapture(t)
	events := 0
	for _, l := range strings.Split(capture, "\n") {
		if strings.TrimSpace(l) != "" {
			events++
		}
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			c := snapctlCommand(t, "replay", "-o", "json", "-")
			stdin, err := c.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			stdout, err := c.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			c.Stderr = &stderr
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			io.WriteString(stdin, capture)
			// The events are written as they come: once the last is out,
			// the whole capture was read and the reader waits for more.
			var out bytes.Buffer
			br := bufio.NewReader(stdout)
			for lines := 0; lines < events; {
				l, err := br.ReadString('\n')
				out.WriteString(l)
				if err != nil {
					t.Fatalf("output ended early: %v\n%s", err, out.String())
				}
				if strings.HasPrefix(l, `      "file": `) {
					lines++
				}
			}
			c.Process.Signal(sig)
			rest, _ := io.ReadAll(br)
			out.Write(rest)
			waitOrKill(t, c)
			if got := c.ProcessState.ExitCode(); got != 128+int(sig) {
				t.Errorf("exit %d, want %d (%v)", got, 128+int(sig), c.ProcessState)
			}
			var doc struct {
				Events  []json.RawMessage
				Summary struct{ Complete *bool }
			}
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
				t.Fatalf("output is not one JSON document: %v\n%s", err, out.String())
			}
			if len(doc.Events) != events || doc.Summary.Complete == nil || *doc.Summary.Complete {
				t.Errorf("%d events (want %d), complete %v", len(doc.Events), events, doc.Summary.Complete)
			}
			if !strings.HasPrefix(stderr.String(), "snapctl: -: stopped at byte ") || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("stderr %q", stderr.String())
			}
		})
	}
}

// TestBrokenPipeProcess: once the reader of snapctl's standard output
// closes it (| head), every command ends at once, quietly, with exit
// status 141: a streaming command whose input stays open without the
// input ending, and the commands that write without reading.
func TestBrokenPipeProcess(t *testing.T) {
	t.Run("streaming", func(t *testing.T) {
		for _, args := range [][]string{{"replay", "-"}, {"replay", "-o", "jsonl", "-"}, {"replay", "-o", "json", "-"},
			{"diff", "-o", "jsonl", "-"}, {"replay", "-o", "jsonl", "--jq", ".line", "-"}} {
			c := snapctlCommand(t, args...)
			stdin, err := c.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			c.Stdout, c.Stderr = w, &stderr
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			w.Close()
			io.WriteString(stdin, snapshotLines(0, 100))
			// head -1: read a line, then close the pipe.
			if _, err := bufio.NewReader(r).ReadString('\n'); err != nil {
				t.Fatalf("%v: no output: %v", args, err)
			}
			r.Close()
			// More input makes more output, which finds the pipe closed;
			// standard input stays open.
			go func() {
				for i := 1; i < 1000; i++ {
					if _, err := io.WriteString(stdin, snapshotLines(100*i, 100)); err != nil {
						return
					}
				}
			}()
			waitOrKill(t, c)
			stdin.Close()
			if got := c.ProcessState.ExitCode(); got != exitPipe || stderr.Len() > 0 {
				t.Errorf("%v: exit %d (%v), stderr %q; want %d and nothing", args, got, c.ProcessState, stderr.String(), exitPipe)
			}
		}
	})
	t.Run("no input", func(t *testing.T) {
		for _, args := range [][]string{{"--help"}, {"--version"}, {"explain"}, {"completion", "bash"}, {"inspect", "reconnect.jsonl"}} {
			c := snapctlCommand(t, args...)
			c.Dir = "../testdata"
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			r.Close() // closed before the first write
			var stderr bytes.Buffer
			c.Stdout, c.Stderr = w, &stderr
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			w.Close()
			waitOrKill(t, c)
			if got := c.ProcessState.ExitCode(); got != exitPipe || stderr.Len() > 0 {
				t.Errorf("%v: exit %d (%v), stderr %q; want %d and nothing", args, got, c.ProcessState, stderr.String(), exitPipe)
			}
		}
	})
}

// snapshotLines is n snapshots of one streaming turn from sequence
// from+1, each accepted and each changing the reply.
func snapshotLines(from, n int) string {
	var b strings.Builder
	for seq := from + 1; seq <= from+n; seq++ {
		fmt.Fprintf(&b, `{"protocol":"agentskit.chat.turn","version":1,"eventId":"e%d","sessionId":"s","turnId":"t",`+
			`"sequence":%d,"emittedAt":"2026-07-11T03:00:01.000Z","event":"server.turn.snapshot","payload":{"status":"streaming",`+
			`"usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"messages":[{"id":"m","role":"assistant",`+
			`"content":"x%d","status":"streaming","createdAt":"2026-07-11T03:00:01.000Z"}],"lineage":{"operation":"submit"}}}`+"\n",
			seq, seq, seq)
	}
	return b.String()
}

// endlessCapture is a standard input of snapshots that counts the bytes
// read from it and ends after limit.
type endlessCapture struct {
	pending []byte
	next    int
	read    atomic.Int64
	limit   int64
}

func (e *endlessCapture) Read(p []byte) (int, error) {
	if e.read.Load() >= e.limit {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) {
		if len(e.pending) == 0 {
			e.pending = []byte(snapshotLines(e.next, 1000))
			e.next += 1000
		}
		c := copy(p[n:], e.pending)
		e.pending = e.pending[c:]
		n += c
	}
	e.read.Add(int64(n))
	return n, nil
}

// pipeWriter takes room bytes, then fails as a pipe nobody reads.
type pipeWriter struct{ room int }

func (w *pipeWriter) Write(p []byte) (int, error) {
	if len(p) <= w.room {
		w.room -= len(p)
		return len(p), nil
	}
	n := w.room
	w.room = 0
	return n, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}
}

// TestBrokenPipeStopsReading: a closed pipe stops the reading of a
// streaming command's input at once, not at its end, which here is 256
// MiB away; the exit status is 141, with nothing on stderr.
func TestBrokenPipeStopsReading(t *testing.T) {
	const limit = 256 << 20
	for _, args := range [][]string{{"replay", "-o", "jsonl", "-"}, {"replay", "-"}, {"diff", "-o", "jsonl", "-"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			in := &endlessCapture{limit: limit}
			ios, _, errOut := iostreams.Test("")
			ios.In, ios.Out = in, &pipeWriter{room: 4096}
			if got := run(ios, args); got != exitPipe || errOut.Len() > 0 {
				t.Errorf("exit %d, stderr %q; want %d and nothing", got, errOut, exitPipe)
			}
			// The reader is ahead of the output by the batches in flight
			// (8 MiB) and a buffer or two; far from the end.
			if n := in.read.Load(); n > 32<<20 {
				t.Errorf("read %d MiB of input after the pipe closed", n>>20)
			}
		})
	}
}

// TestEachStopsAtBrokenPipe: under --each, once the pipe is closed, the
// captures not begun are not read.
func TestEachStopsAtBrokenPipe(t *testing.T) {
	files := make([]string, 100)
	for i := range files {
		files[i] = fmt.Sprint("c", i)
	}
	ios, _, errOut := iostreams.Test("")
	ios.Stoppable()
	ios.Out = &errWriter{w: &pipeWriter{}, failed: ios.Stop}
	var began atomic.Int32
	err := runEach(ios, files, false, func(sub *iostreams.IOStreams, file string) error {
		began.Add(1)
		fmt.Fprintln(sub.Out, file)
		return nil
	})
	if !brokenPipe(err) || errOut.Len() > 0 {
		t.Errorf("err %v, stderr %q", err, errOut)
	}
	// Those begun before the first write failed: at most one per core
	// ahead of it, and the one that failed.
	if n := int(began.Load()); n > runtimeProcs()+1 {
		t.Errorf("%d of %d captures began after the pipe closed", n, len(files))
	}
}

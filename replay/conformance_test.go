package replay

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The conformance corpus pins the reference implementation's decode
// outcome for each case; see testdata/conformance/cursor/README.md for how
// it was produced.
func TestDecodeConformance(t *testing.T) {
	f, err := os.Open("../testdata/conformance/decode.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	var d Decoder
	n := 0
	for sc.Scan() {
		var c struct {
			Name  string  `json:"name"`
			Line  string  `json:"line"`
			Code  *string `json:"code"`
			Event *string `json:"event"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("corpus line %d: %v", n+1, err)
		}
		n++
		var ev Event
		derr := d.Decode([]byte(c.Line), &ev)
		switch {
		case c.Code == nil && c.Event == nil:
			t.Errorf("%s: corpus case names neither a code nor an event", c.Name)
		case c.Code == nil && derr != nil:
			t.Errorf("%s: want %s, got %s", c.Name, *c.Event, derr)
		case c.Code != nil && derr == nil:
			t.Errorf("%s: want %s, got valid %s", c.Name, *c.Code, ev.Kind)
		case c.Code != nil && string(derr.Code) != *c.Code:
			t.Errorf("%s: want %s, got %s", c.Name, *c.Code, derr)
		case c.Code == nil && string(ev.Kind) != *c.Event:
			t.Errorf("%s: want event %s, got %s", c.Name, *c.Event, ev.Kind)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("only %d conformance cases read", n)
	}
}

// Each cursor capture is replayed as the CLI would, sequentially and with
// parallel decoders, and compared line by line with what the reference
// printed.
func TestCursorConformance(t *testing.T) {
	files, err := filepath.Glob("../testdata/conformance/cursor/*.expected.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cursor captures: %v", err)
	}
	for _, exp := range files {
		capture := strings.TrimSuffix(exp, ".expected.jsonl") + ".jsonl"
		name := filepath.Base(strings.TrimSuffix(capture, ".jsonl"))
		for _, workers := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/workers=%d", name, workers), func(t *testing.T) {
				session, _ := strings.CutPrefix(name, "pinned-session-")
				if session == name {
					session = ""
				}
				compareCursor(t, capture, session, workers, readExpected(t, exp))
			})
		}
	}
}

func compareCursor(t *testing.T, capture, session string, workers int, want []expected) {
	rd, err := Open([]string{capture}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var got []expected
	_, err = Run(rd, Options{Session: session, Workers: workers}, func(r *Result) error {
		e := expected{Line: r.Line, OK: r.Event != nil, Reason: string(r.Reason), Verdict: string(r.Verdict())}
		if r.Err != nil {
			code := string(r.Err.Code)
			e.Code = &code
		}
		if r.Event != nil {
			seq := r.Event.Sequence
			e.Sequence = &seq
		}
		got = append(got, e)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d events, want %d", len(got), len(want))
	}
	for i := range want {
		w, g := want[i], got[i]
		if g.Line != w.Line || g.OK != w.OK || g.Reason != w.Reason || g.Verdict != w.Verdict ||
			!eqPtr(g.Code, w.Code) || !eqPtr(g.Sequence, w.Sequence) {
			t.Errorf("event %d: got %+v, want %+v", i, show(g), show(w))
		}
	}
}

type expected struct {
	Line     int     `json:"line"`
	OK       bool    `json:"ok"`
	Code     *string `json:"code"`
	Sequence *int64  `json:"sequence"`
	Verdict  string  `json:"verdict"`
	Reason   string  `json:"reason"`
}

func show(e expected) string {
	b, _ := json.Marshal(e)
	return string(b)
}

func eqPtr[T comparable](a, b *T) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

func readExpected(t *testing.T, path string) []expected {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []expected
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e expected
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, e)
	}
	return out
}

package replay

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/internal/poison"
)

// pipelineResult is what a consumer sees of one result, strings copied.
type pipelineResult struct {
	File, Raw          string
	Line               int
	Reason             Reason
	Code               Code
	Session, Turn, IDs string
	Seq                int64
}

// TestPipelineAgreesOnShapes reads captures of random shapes on the
// reader's goroutine (Workers 1) and through the pipeline (Workers 4),
// with every line overwritten once its results are delivered, and
// compares what each delivers: lines of the samples in random order,
// blank and CRLF lines, lines longer than the reader's buffer under a
// --max-line they pass or not, one to three captures in a run. A buffer
// reused while a batch still points into it, or a line copied wrong,
// shows as another result.
func TestPipelineAgreesOnShapes(t *testing.T) {
	poison.Released = true
	defer func() { poison.Released = false }()
	var pool []string
	for _, name := range []string{"reconnect.jsonl", "interleaved.jsonl", "lineage-operations.jsonl", "diff-changes.jsonl", "explore-malformed.jsonl"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			pool = append(pool, l)
		}
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	for iter := 0; iter < 60; iter++ {
		var files []string
		for f := 0; f < 1+rnd.IntN(3); f++ {
			var b bytes.Buffer
			for n := rnd.IntN(3000); n > 0; n-- {
				switch k := rnd.IntN(100); {
				case k == 0:
					// Longer than the buffer: a snapshot's message text.
					fmt.Fprintf(&b, `{"padding":"%s"}`, strings.Repeat("y", 100<<10+rnd.IntN(300<<10)))
				case k < 3:
				case k < 5:
					b.WriteString(pool[rnd.IntN(len(pool))] + "\r")
				default:
					b.WriteString(pool[rnd.IntN(len(pool))])
				}
				b.WriteByte('\n')
			}
			name := filepath.Join(dir, fmt.Sprintf("c%d-%d.jsonl", iter, f))
			if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, name)
		}
		maxLine := []int{0, 64 << 10, 200 << 10}[rnd.IntN(3)]
		one, many := readShapes(t, files, maxLine, 1), readShapes(t, files, maxLine, 4)
		if !reflect.DeepEqual(one, many) {
			for i := range min(len(one), len(many)) {
				if one[i] != many[i] {
					t.Fatalf("%v, max line %d: result %d differs:\none:  %+v\nmany: %+v", files, maxLine, i, one[i], many[i])
				}
			}
			t.Fatalf("%v, max line %d: %d results on one core, %d on four", files, maxLine, len(one), len(many))
		}
	}
}

func readShapes(t *testing.T, files []string, maxLine, workers int) []pipelineResult {
	t.Helper()
	rd, err := Open(files, nil, maxLine)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var out []pipelineResult
	opts := Options{Workers: workers, Messages: true, BorrowMessages: true, RawMalformed: true, MaxLine: maxLine}
	if _, err := Run(rd, opts, func(res *Result) error {
		out = append(out, resultOf(res))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// resultOf is what a consumer sees of res, strings copied.
func resultOf(res *Result) pipelineResult {
	r := pipelineResult{File: res.File, Line: res.Line, Reason: res.Reason, Raw: string(res.Raw)}
	if res.Err != nil {
		r.Code = res.Err.Code
	}
	if ev := res.Event; ev != nil {
		r.Session, r.Turn, r.Seq = ev.SessionID, ev.TurnID, ev.Sequence
		for _, m := range ev.Snapshot.Messages {
			r.IDs += m.ID + "\x00" + m.Content + "\x00"
		}
	}
	return r
}

package replay

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/internal/poison"
)

// TestPipelineKeepsLongMalformedLines checks that a malformed line longer
// than a batch (decoded alone on the reader's goroutine) is delivered
// with its text under RawMalformed, as on one core: inspect reads a
// server error body and the event glued to it from that text, and found
// glued-lines and request-refused on one core only when the glued event
// was over 1 MiB.
func TestPipelineKeepsLongMalformedLines(t *testing.T) {
	poison.Released = true
	defer func() { poison.Released = false }()
	long := `{"error":{"code":"SESSION_BUSY"}}{"padding":"` + strings.Repeat("z", batchBytes) + `"}`
	var b strings.Builder
	for i := 0; i < 3; i++ {
		b.WriteString(`{"x":1}` + "\n" + long + "\n")
	}
	name := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	one, many := readShapes(t, []string{name}, 0, 1), readShapes(t, []string{name}, 0, 4)
	if len(one) != 6 || one[1].Raw != long {
		t.Fatalf("one core: %d results, the long line's text %d bytes", len(one), len(one[1].Raw))
	}
	if !reflect.DeepEqual(one, many) {
		for i := range min(len(one), len(many)) {
			if one[i] != many[i] {
				t.Fatalf("result %d: one core gives %d bytes of text, four %d", i, len(one[i].Raw), len(many[i].Raw))
			}
		}
		t.Fatalf("%d results on one core, %d on four", len(one), len(many))
	}
}

// TestPipelineKeepsEmptyText checks that a malformed event with no text
// (an SSE event of one empty data line, left unfinished at the end)
// reaches fn as on one core, with Raw empty but set: the sniffer samples
// it, and the pipeline, which gave it a nil Raw, made replay and inspect
// hint otherwise on four cores than on one.
func TestPipelineKeepsEmptyText(t *testing.T) {
	dir := t.TempDir()
	captures := map[string]struct {
		data    string
		format  Format
		maxLine int
	}{
		"empty.sse": {"data:\n", FormatSSE, 0},
		"both.sse":  {"data: {\"x\":1}\n\ndata:\n", FormatSSE, 0},
	}
	for name, c := range captures {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		raws := func(workers int) []string {
			rd, err := Open([]string{path}, nil, c.maxLine)
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			if err := rd.SetFormat(c.format); err != nil {
				t.Fatal(err)
			}
			var out []string
			opts := Options{Workers: workers, RawMalformed: true, MaxLine: c.maxLine}
			if _, err := Run(rd, opts, func(res *Result) error {
				s := "nil"
				if res.Raw != nil {
					s = strconvQuote(res.Raw)
				}
				out = append(out, s)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			return out
		}
		if one, many := raws(1), raws(4); !reflect.DeepEqual(one, many) {
			t.Errorf("%s: Raw on one core %v, on four %v", name, one, many)
		}
	}
}

func strconvQuote(b []byte) string { return "\"" + string(b) + "\"" }

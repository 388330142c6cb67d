package reduce

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/replay"
	"github.com/rogpeppe/go-internal/txtar"
)

func readLines(t *testing.T, name string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	for l := range bytes.Lines(data) {
		if l = bytes.TrimRight(l, "\n"); len(bytes.TrimSpace(l)) > 0 {
			lines = append(lines, l)
		}
	}
	return lines
}

func opts() Options { return Options{MaxLine: replay.DefaultMaxLine} }

// TestReduceEveryFinding reduces every finding of every sample capture and
// checks, apart from the reducer, that the result produces the finding and
// that removing any one of its lines loses it (1-minimal), and that every
// line kept is a line of the capture, in order.
func TestReduceEveryFinding(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/inspect/*.jsonl")
	more, _ := filepath.Glob("../../testdata/*.jsonl")
	files = append(files, more...)
	reduced, cut := 0, 0
	for _, file := range files {
		lines := readLines(t, file)
		o := opts()
		// A capture cut inside its last line (capture-cut) keeps it so.
		if data, _ := os.ReadFile(file); len(data) > 0 && data[len(data)-1] != '\n' {
			o.Unterminated = true
		}
		opts := func() Options { return o }
		r := New(lines, opts())
		rep, err := r.Whole()
		if err != nil {
			t.Fatal(err)
		}
		seen := map[Target]bool{}
		for _, f := range rep.Findings {
			target := Target{f.ID, f.SessionID, f.Severity}
			if seen[target] {
				continue
			}
			seen[target] = true
			t.Run(filepath.Base(file)+"/"+target.String(), func(t *testing.T) {
				r := New(lines, opts())
				keep, err := r.Reduce([]Target{target})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.IsSorted(keep) || len(keep) == 0 || len(keep) > len(lines) {
					t.Fatalf("kept %v of %d lines", keep, len(lines))
				}
				check := New(lines, opts())
				if ok, _ := check.shows(keep, []Target{target}); !ok {
					t.Fatalf("lines %v do not produce %s", keep, target)
				}
				for i := range keep {
					less := slices.Delete(slices.Clone(keep), i, i+1)
					if ok, _ := check.shows(less, []Target{target}); ok && len(less) > 0 {
						t.Errorf("not 1-minimal: without line %d of %v the finding remains", keep[i]+1, keep)
					}
				}
				if len(keep) < len(lines) {
					reduced++
				}
				if target.ID == inspect.CaptureCut {
					cut++
					if keep[len(keep)-1] != len(lines)-1 {
						t.Errorf("capture-cut kept %v, not the cut line %d", keep, len(lines))
					}
				}
			})
		}
	}
	if reduced == 0 {
		t.Error("no capture was reduced at all: the test proves nothing")
	}
	if cut == 0 {
		t.Error("no capture-cut was reduced: the cut sample lost its finding")
	}
}

// TestReduceCostOnDoubling: a finding in one session among many others is
// found with a number of tests that grows with the log of the capture,
// not with its length, thanks to the session step and ddmin's halving.
func TestReduceCostOnDoubling(t *testing.T) {
	base := readLines(t, "../../testdata/inspect/sequence-collision.jsonl")
	filler := readLines(t, "../../testdata/clean.jsonl")
	tests := func(copies int) int {
		var lines [][]byte
		for range copies {
			lines = append(lines, filler...)
		}
		lines = append(lines, base...)
		for range copies {
			lines = append(lines, filler...)
		}
		r := New(lines, opts())
		rep, err := r.Whole()
		if err != nil {
			t.Fatal(err)
		}
		targets, err := Targets(rep, "sequence-collision", "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Reduce(targets); err != nil {
			t.Fatal(err)
		}
		return r.Tests()
	}
	small, large := tests(8), tests(64)
	if large > small+40 {
		t.Errorf("%d tests for 8 copies of filler, %d for 64: more than logarithmic growth", small, large)
	}
}

func TestTargets(t *testing.T) {
	rep := inspect.Report{Findings: []inspect.Finding{
		{ID: "a", SessionID: "s1", Severity: inspect.SeverityInfo},
		{ID: "b", SessionID: "s2", Severity: inspect.SeverityError},
		{ID: "c", SessionID: "s1", Severity: inspect.SeverityWarning},
	}}
	for _, tt := range []struct {
		finding, session string
		want             []string
	}{
		{"", "", []string{"b"}},
		{"a", "", []string{"a"}},
		{"", "s1", []string{"a", "c"}},
		{"c", "s1", []string{"c"}},
		{"c", "s2", nil},
		{"zz", "", nil},
	} {
		got, err := Targets(rep, tt.finding, tt.session)
		var ids []string
		for _, g := range got {
			ids = append(ids, g.ID)
		}
		if !slices.Equal(ids, tt.want) || (tt.want == nil) != (err != nil) {
			t.Errorf("Targets(%q, %q) = %v, %v; want %v", tt.finding, tt.session, ids, err, tt.want)
		}
	}
}

// TestArchiveQuotesFileMarkers: a kept line that reads as a txtar file
// marker ("-- /tmp/x --", which a garbage line can be) must not split the
// archive: testscript would write a file of that name, at an absolute
// path too, and run the case on a cut capture. The capture is quoted and
// the script unquotes it, so it comes back byte for byte; a capture that
// cannot be quoted (not UTF-8) is refused.
func TestArchiveQuotesFileMarkers(t *testing.T) {
	capture := []byte("-- /tmp/snapctl-archive-marker --\n{\"not\":\"json\"\n-- expected.json --\n")
	want := []byte("{}\n")
	data, err := Archive(capture, want, nil, "", false)
	if err != nil {
		t.Fatal(err)
	}
	a := txtar.Parse(data)
	if len(a.Files) != 2 || a.Files[0].Name != "capture.jsonl" || a.Files[1].Name != "expected.json" {
		var names []string
		for _, f := range a.Files {
			names = append(names, f.Name)
		}
		t.Fatalf("archive files %q, want capture.jsonl and expected.json:\n%s", names, data)
	}
	got, err := txtar.Unquote(a.Files[0].Data)
	if err != nil || !bytes.Equal(got, capture) {
		t.Errorf("unquoted capture %q (%v), want %q", got, err, capture)
	}
	if !bytes.Contains(a.Comment, []byte("\nunquote capture.jsonl\n")) {
		t.Errorf("the script does not unquote the capture:\n%s", a.Comment)
	}
	// A capture without such a line is stored as it is.
	plain := []byte("{\"a\":1}\n")
	data, err = Archive(plain, want, nil, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if a := txtar.Parse(data); !bytes.Equal(a.Files[0].Data, plain) || bytes.Contains(a.Comment, []byte("unquote")) {
		t.Errorf("a plain capture was changed:\n%s", data)
	}
	if _, err := Archive([]byte("-- x --\n\xff\n"), want, nil, "", false); err == nil {
		t.Error("a capture with a marker line and bytes that are not UTF-8 was archived")
	}
	// A last line with no newline is stored with one, a marker then.
	for _, last := range []string{"-- /tmp/snapctl-archive-marker --", "-- x --\r"} {
		data, err := Archive([]byte("{\"a\":1}\n"+last), want, nil, "", false)
		if err == nil {
			if a := txtar.Parse(data); len(a.Files) != 2 {
				t.Errorf("a capture ending %q splits the archive:\n%s", last, data)
			}
		}
	}
}

// gzipLines is data gzip-compressed, cut at its newline bytes as a
// reader cuts a capture into lines: joined again with newlines, as a
// subset is read, they are the gzip stream.
func gzipLines(t *testing.T, data []byte) [][]byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	zw.Close()
	return bytes.Split(b.Bytes(), []byte("\n"))
}

// TestJoinKeepsTheCut: the capture Join writes ends without a newline
// only when its last line had none, and Archive refuses such a capture
// (an archive's file always ends with one).
func TestJoinKeepsTheCut(t *testing.T) {
	lines := [][]byte{[]byte(`{"a":1}`), []byte(`{"b":`)}
	if got := string(Join(lines, true)); got != "{\"a\":1}\n{\"b\":" {
		t.Errorf("Join(cut) = %q", got)
	}
	if got := string(Join(lines, false)); got != "{\"a\":1}\n{\"b\":\n" {
		t.Errorf("Join = %q", got)
	}
	if _, err := Archive(Join(lines, true), nil, nil, "", true); err == nil {
		t.Error("Archive kept a capture without its last newline")
	}
}

// TestReduceCompressedLine: a capture whose lines, after decompression,
// open another gzip stream (a capture compressed twice) would be read
// back decompressed once more, so that the lines of a subset are not the
// lines the model sees. Whole refuses it with an error (it indexed the
// lines by the results' positions and panicked), and a subset that
// starts with such a line in the middle of a capture does not count as
// showing the finding: written out, it would not be read as its lines.
func TestReduceCompressedLine(t *testing.T) {
	capture, err := os.ReadFile("../../testdata/reconnect.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(gzipLines(t, capture), opts()).Whole()
	if err == nil || !strings.Contains(err.Error(), "compressed") {
		t.Fatalf("Whole of a capture compressed twice: %v, want an error saying its first line is compressed", err)
	}

	base := readLines(t, "../../testdata/inspect/sequence-collision.jsonl")
	lines := append(slices.Clone(base), gzipLines(t, capture)...)
	r := New(lines, opts())
	rep, err := r.Whole()
	if err != nil {
		t.Fatal(err)
	}
	targets, err := Targets(rep, "sequence-collision", "")
	if err != nil {
		t.Fatal(err)
	}
	keep, err := r.Reduce(targets)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keep {
		if k >= len(base) {
			t.Errorf("kept line %d, of the compressed part", k+1)
		}
	}
}

package inspect

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCaptureCutCountsCaptures: capture-cut counts the captures cut, not
// the events cut. A container log whose stdout and stderr both end
// inside a partial line is one capture with two positions, which the
// message must not call two captures; two files cut are two.
func TestCaptureCutCountsCaptures(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "formats", "reconnect.cri.log"))
	if err != nil {
		t.Fatal(err)
	}
	head := strings.Join(strings.SplitAfter(string(data), "\n")[:3], "")
	twoStreams := head +
		"2026-07-11T03:00:01.000000123Z stdout P {\"protocol\":\"agentskit\n" +
		"2026-07-11T03:00:01.100000123Z stderr P {\"protocol\":\"agentskit\n"
	dir := t.TempDir()
	one := filepath.Join(dir, "a.log")
	other := filepath.Join(dir, "b.log")
	for _, f := range []string{one, other} {
		if err := os.WriteFile(f, []byte(twoStreams), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name   string
		files  []string
		prefix string
	}{
		{"one capture, two streams cut", []string{one}, "the capture ends inside 2 events (cri:"},
		{"two captures", []string{one, other}, "2 captures end inside an event, first " + one + " (cri:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := findingsOf(run(t, Options{}, tc.files...), CaptureCut)
			if len(fs) != 1 || !strings.HasPrefix(fs[0].Message, tc.prefix) {
				t.Errorf("capture-cut %+v; want one whose message starts %q", fs, tc.prefix)
			}
		})
	}
}

// TestCaptureCutLogLine: a CRI or kubectl log whose last line has no
// newline and whose event stops at its end says so, as an NDJSON line
// cut short does, not with the bare JSON error; a framer's own word for
// a cut (Docker's) is kept.
func TestCaptureCutLogLine(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"reconnect.cri.log", "the capture ends inside an event (its last log line has no newline and the event in it, of "},
		{"reconnect.kubectl.log", "the capture ends inside an event (its last log line has no newline and the event in it, of "},
		{"reconnect.docker.log", "the capture ends inside an event (docker: the log ends inside its last json-file entry)"},
	} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "formats", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		cut := filepath.Join(t.TempDir(), tc.file)
		if err := os.WriteFile(cut, data[:len(data)-40], 0o644); err != nil {
			t.Fatal(err)
		}
		fs := findingsOf(run(t, Options{}, cut), CaptureCut)
		if len(fs) != 1 || !strings.HasPrefix(fs[0].Message, tc.want) {
			t.Errorf("%s cut: capture-cut %+v; want one whose message starts %q", tc.file, fs, tc.want)
		}
	}
}

// TestCaptureCutGlued: a capture that ends in a server error body with
// the next response's first event glued after it, cut short, ends inside
// that event: capture-cut, and glued-lines says the event is the cut one.
// Whole, the glued event is no cut, unterminated or not.
func TestCaptureCutGlued(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "reconnect.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	body := `{"error":{"version":1,"code":"SESSION_BUSY","message":"busy","retryable":true}}`
	event := strings.TrimSuffix(lines[3], "\n")
	for _, tc := range []struct {
		name, last string
		cut        bool
	}{
		{"cut glued event", body + event[:200], true},
		{"whole glued event, no newline", body + event, false},
		{"body alone, no newline", body, false},
	} {
		file := filepath.Join(t.TempDir(), "capture.jsonl")
		if err := os.WriteFile(file, []byte(strings.Join(lines[:3], "")+tc.last), 0o644); err != nil {
			t.Fatal(err)
		}
		rep := run(t, Options{}, file)
		if got := len(findingsOf(rep, CaptureCut)) == 1; got != tc.cut {
			t.Errorf("%s: capture-cut %v, want %v (%+v)", tc.name, got, tc.cut, rep.Findings)
		}
		if g := findingsOf(rep, GluedLines); tc.cut && (len(g) != 1 || !strings.Contains(g[0].Message, "200 bytes of an event the capture ends inside (capture-cut)")) {
			t.Errorf("%s: glued-lines %+v, want it to name the cut event", tc.name, g)
		}
	}
}

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

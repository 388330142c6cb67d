package cmd

import (
	"os"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
)

// TestReadmeTranscripts runs every "$ snapctl …" session README.md shows,
// from the repository's root, and checks that the output is the one shown:
// line for line, where a line "…" stands for any number of lines. A
// session whose capture is not in the repository (an incident's) is
// skipped; one that names no file (explain stale) is run.
func TestReadmeTranscripts(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir("..")
	sessions := readmeSessions(string(data))
	if len(sessions) == 0 {
		t.Fatal("README.md shows no $ snapctl session")
	}
	for _, s := range sessions {
		args := strings.Fields(strings.TrimPrefix(s.command, "$ snapctl "))
		// A last word with no dot is no file (explain stale): run it.
		if last := args[len(args)-1]; strings.Contains(last, ".") {
			if _, err := os.Stat(last); err != nil {
				continue
			}
		}
		t.Run(s.command, func(t *testing.T) {
			ios, out, errOut := iostreams.Test("")
			if code := run(ios, args); code != exitOK {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if i, ok := transcriptMatch(s.output, got); !ok {
				t.Errorf("README.md shows %q (line %d of the output), which the command does not print there; it prints:\n%s",
					s.output[i], i+1, out)
			}
		})
	}
}

// readmeSession is a command README.md shows with its output.
type readmeSession struct {
	command string
	output  []string
}

// readmeSessions finds every code block of text whose first line is a
// "$ snapctl" command.
func readmeSessions(text string) []readmeSession {
	var sessions []readmeSession
	blocks := strings.Split(text, "```\n")
	for i := 1; i < len(blocks); i += 2 {
		lines := strings.Split(strings.TrimSuffix(blocks[i], "\n"), "\n")
		if strings.HasPrefix(lines[0], "$ snapctl ") {
			sessions = append(sessions, readmeSession{command: lines[0], output: lines[1:]})
		}
	}
	return sessions
}

// transcriptMatch says whether got is want, a line "…" of want matching
// any run of lines; when not, it returns the first line of want that
// could not be matched.
func transcriptMatch(want, got []string) (int, bool) {
	var match func(w, g int) (int, bool)
	match = func(w, g int) (int, bool) {
		for w < len(want) && want[w] != "…" {
			if g >= len(got) || got[g] != want[w] {
				return w, false
			}
			w, g = w+1, g+1
		}
		if w == len(want) {
			return w, g == len(got)
		}
		worst := w
		for skip := g; skip <= len(got); skip++ {
			at, ok := match(w+1, skip)
			if ok {
				return at, true
			}
			worst = max(worst, at)
		}
		return worst, false
	}
	at, ok := match(0, 0)
	return min(at, len(want)-1), ok
}

// TestTranscriptMatch pins what "…" stands for: any run of lines, none
// included, and nothing else.
func TestTranscriptMatch(t *testing.T) {
	cases := []struct {
		name      string
		want, got string
		ok        bool
	}{
		{name: "equal", want: "a|b", got: "a|b", ok: true},
		{name: "a line differs", want: "a|b", got: "a|c"},
		{name: "output longer", want: "a", got: "a|b"},
		{name: "… at the end", want: "a|…", got: "a|b|c", ok: true},
		{name: "… of no line", want: "a|…|b", got: "a|b", ok: true},
		{name: "… in the middle", want: "a|…|d", got: "a|b|c|d", ok: true},
		{name: "… then a line missing", want: "a|…|e", got: "a|b|c|d"},
	}
	for _, tc := range cases {
		if _, ok := transcriptMatch(strings.Split(tc.want, "|"), strings.Split(tc.got, "|")); ok != tc.ok {
			t.Errorf("%s: match %v, want %v", tc.name, ok, tc.ok)
		}
	}
}

package cmd

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/help"
	"github.com/agentskit/snapctl/cmd/internal/iostreams"
)

// TestHelpTopics checks that every topic is listed by --help and printed
// by `snapctl help TOPIC` (and as `snapctl TOPIC`), as it is written, and
// that an unknown topic is bad usage naming the topics.
func TestHelpTopics(t *testing.T) {
	ios, out, _ := iostreams.Test("")
	if got := run(ios, []string{"--help"}); got != exitOK {
		t.Fatalf("--help: exit %d", got)
	}
	_, listed, ok := strings.Cut(out.String(), "Additional help topics:\n")
	if !ok {
		t.Fatalf("--help lists no help topics:\n%s", out)
	}
	for _, tp := range help.Topics() {
		if !regexp.MustCompile(`(?m)^  snapctl ` + tp.Name + ` +` + regexp.QuoteMeta(tp.Short) + `$`).MatchString(listed) {
			t.Errorf("--help does not list %s with its summary", tp.Name)
		}
		for _, args := range [][]string{{"help", tp.Name}, {tp.Name}} {
			ios, out, errOut := iostreams.Test("")
			if got := run(ios, args); got != exitOK || out.String() != tp.Text || errOut.Len() != 0 {
				t.Errorf("%v: exit %d, stderr %q, stdout is the topic: %v", args, got, errOut, out.String() == tp.Text)
			}
		}
	}

	ios, out, errOut := iostreams.Test("")
	if got := run(ios, []string{"help", "formatz"}); got != exitUsage {
		t.Errorf("help formatz: exit %d, want %d", got, exitUsage)
	}
	msg := errOut.String()
	if out.Len() != 0 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, `unknown help topic "formatz"`) ||
		!strings.Contains(msg, "formats, ") || !strings.Contains(msg, "replay") {
		t.Errorf("help formatz: stdout %q, stderr %q: want one line naming the topics and commands", out, msg)
	}

	ios, _, errOut = iostreams.Test("")
	ios.Out = &failingWriter{n: 10}
	if got := run(ios, []string{"help", "formats"}); got != exitUsage || !strings.HasPrefix(errOut.String(), "snapctl: writing output: ") {
		t.Errorf("help formats on a full disk: exit %d, stderr %q", got, errOut)
	}

	ios, out, _ = iostreams.Test("")
	if got := run(ios, []string{"help", "replay"}); got != exitOK || !strings.Contains(out.String(), "Usage:\n  snapctl replay") {
		t.Errorf("help replay: exit %d, not replay's help:\n%s", got, out)
	}
}

// envRead finds the environment variables Go code reads by name.
var envRead = regexp.MustCompile(`os\.(?:Getenv|LookupEnv)\("([A-Z_][A-Z0-9_]*)"\)`)

// TestEnvironmentTopicNamesEveryVariable fails when snapctl's code reads
// an environment variable that `snapctl help environment` does not
// describe.
func TestEnvironmentTopicNamesEveryVariable(t *testing.T) {
	var text string
	for _, tp := range help.Topics() {
		if tp.Name == "environment" {
			text = tp.Text
		}
	}
	names := map[string]bool{"SNAPCTL_PAGER": true, "PAGER": true, "SOURCE_DATE_EPOCH": true, "TMPDIR": true}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			strings.HasPrefix(filepath.ToSlash(path), "../scripts/") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range envRead.FindAllStringSubmatch(string(src), -1) {
			names[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 8 {
		t.Fatalf("found only %v: the search is broken", names)
	}
	for name := range names {
		// Each variable is the heading of its paragraph, alone or with others.
		if !regexp.MustCompile(`(?m)^[A-Z0-9_, ]*\b` + name + `\b[A-Z0-9_, ]*$`).MatchString(text) {
			t.Errorf("snapctl help environment does not describe %s", name)
		}
	}
}

// TestFlagsTopicNamesEveryOutput fails when `snapctl help flags` leaves
// out of its -o entry a command that has -o, or a value some command's
// -o takes (lineage -o svg).
func TestFlagsTopicNamesEveryOutput(t *testing.T) {
	var text string
	for _, tp := range help.Topics() {
		if tp.Name == "flags" {
			text = tp.Text
		}
	}
	_, entry, ok := strings.Cut(text, "\n  `-o`\n")
	if !ok {
		t.Fatal("help flags has no -o entry")
	}
	if i := strings.Index(entry, "\n  `"); i >= 0 {
		entry = entry[:i]
	}
	entry = strings.Join(strings.Fields(entry), " ")
	for _, c := range newRootCmd(iostreams.System()).Commands() {
		if c.Flags().Lookup("output") == nil {
			continue
		}
		if !strings.Contains(entry, "`"+c.Name()+"`") {
			t.Errorf("help flags: the -o entry does not name %s", c.Name())
		}
		complete, ok := c.GetFlagCompletionFunc("output")
		if !ok {
			t.Errorf("%s -o completes no values", c.Name())
			continue
		}
		values, _ := complete(c, nil, "")
		for _, v := range values {
			if !strings.Contains(entry, "`"+v+"`") {
				t.Errorf("help flags: the -o entry does not name %s -o %s", c.Name(), v)
			}
		}
	}
}

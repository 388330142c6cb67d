package help

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTopicsArePlainText checks the layout every topic keeps: a summary,
// lines of at most 80 columns, no tabs or trailing spaces (the terminal
// and the man page show the text as it is), and no code fence (the man
// page puts the text in one).
func TestTopicsArePlainText(t *testing.T) {
	topics := Topics()
	if len(topics) == 0 {
		t.Fatal("no topics")
	}
	for _, tp := range topics {
		if tp.Short == "" || strings.HasSuffix(tp.Short, ".") {
			t.Errorf("%s: summary %q: want a few words, without a full stop", tp.Name, tp.Short)
		}
		if !strings.HasSuffix(tp.Text, "\n") || strings.HasSuffix(tp.Text, "\n\n") || strings.TrimSpace(tp.Text) == "" {
			t.Errorf("%s: the text must end in one newline", tp.Name)
		}
		if strings.Contains(tp.Text, "```") {
			t.Errorf("%s: the text holds a code fence", tp.Name)
		}
		for i, line := range strings.Split(strings.TrimSuffix(tp.Text, "\n"), "\n") {
			if n := utf8.RuneCountInString(line); n > 80 {
				t.Errorf("%s:%d: %d columns, over 80: %q", tp.Name, i+3, n, line)
			}
			if strings.ContainsRune(line, '\t') || strings.TrimRight(line, " ") != line {
				t.Errorf("%s:%d: a tab or trailing space: %q", tp.Name, i+3, line)
			}
		}
	}
}

// TestTopicsCoverTheReference checks that the topics the README and the
// commands' help point to exist.
func TestTopicsCoverTheReference(t *testing.T) {
	have := map[string]bool{}
	for _, tp := range Topics() {
		have[tp.Name] = true
	}
	for _, name := range []string{"formats", "json-contract", "reasons", "findings", "exit-status",
		"hostile-input", "environment", "each", "partial-captures", "jq", "output", "flags"} {
		if !have[name] {
			t.Errorf("no topic %q", name)
		}
	}
}

// TestCommandTextsFit: the long help of every command fits 80 columns,
// as the topics do.
func TestCommandTextsFit(t *testing.T) {
	entries, err := commandFiles.ReadDir("commands")
	if err != nil || len(entries) == 0 {
		t.Fatalf("no command texts: %v", err)
	}
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".txt")
		for i, line := range strings.Split(Command(name), "\n") {
			if utf8.RuneCountInString(line) > 80 {
				t.Errorf("commands/%s line %d is %d columns", e.Name(), i+1, utf8.RuneCountInString(line))
			}
		}
	}
}

package cmd

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/inspect"
	"github.com/spf13/cobra"
)

// readmeMaxLines is how long README.md may grow: what a newcomer reads in
// five minutes. The reference lives in --help and the help topics.
const readmeMaxLines = 350

var (
	helpTopicRef = regexp.MustCompile("snapctl help ([a-z][a-z-]*)")
	codeSpan     = regexp.MustCompile("`([^`]+)`")
	flagToken    = regexp.MustCompile(`(?:^|[\s(\[=])(--[a-z][a-z0-9-]*)`)
	kebabSpan    = regexp.MustCompile("`([a-z]+(?:-[a-z]+)+)`")
)

// TestReadmeNamesWhatExists fails when README.md names a help topic, a
// flag or a finding that snapctl does not have, or grows too long.
func TestReadmeNamesWhatExists(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if n := strings.Count(text, "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, over %d: move reference material to a help topic or a command's --help", n, readmeMaxLines)
	}
	root := readmeRoot()
	for _, p := range readmeProblems(text, root) {
		t.Error("README.md: " + p)
	}
	for _, name := range helpNames(root, true) {
		if !strings.Contains(text, "snapctl help "+name) {
			t.Errorf("README.md does not list the help topic %q (snapctl help %s)", name, name)
		}
	}
}

// TestReadmeProblemsFindsMistakes checks that the check above can fail:
// an unknown topic, flag or finding is reported, a known one is not.
func TestReadmeProblemsFindsMistakes(t *testing.T) {
	root := readmeRoot()
	cases := []struct {
		name, text string
		want       int
	}{
		{"known names", "See `snapctl help formats`, `snapctl replay --only problems`, `--each`.\nFindings: `message-vanished`, `stale`.", 0},
		{"unknown topic", "See `snapctl help nonsense`.", 1},
		{"unknown flag", "Use `--no-such-flag`.", 1},
		{"flag of another command", "```\nsnapctl replay --stat capture.jsonl\n```", 1},
		{"flag after a pipe", "```\nsnapctl diff --stat c.jsonl | snapctl replay --only inert -\n```", 0},
		{"unknown finding", "One finding: `message-vanishd`.", 1},
		{"unknown finding later in the paragraph", "The findings:\n`sequence-gapp`.\n\nNot about them: `session-a`.", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := readmeProblems(tc.text, root); len(got) != tc.want {
				t.Errorf("got %d problems %q, want %d", len(got), got, tc.want)
			}
		})
	}
}

// readmeRoot is the real command tree, with the help and version flags
// cobra adds only when it runs.
func readmeRoot() *cobra.Command {
	ios, _, _ := iostreams.Test("")
	root := newRootCmd(ios)
	root.InitDefaultVersionFlag()
	for _, c := range commands(root) {
		c.InitDefaultHelpFlag()
	}
	return root
}

// readmeProblems lists the names in a README text that do not exist in
// root: help topics, flags (checked against the command the code names,
// else against every command) and findings (in a paragraph that speaks of
// findings, a hyphenated name in backquotes must be a finding, a reason
// or a help topic).
func readmeProblems(text string, root *cobra.Command) []string {
	var problems []string
	for _, m := range helpTopicRef.FindAllStringSubmatch(text, -1) {
		if c, rest, err := root.Find([]string{m[1]}); err != nil || len(rest) > 0 || c == root {
			problems = append(problems, fmt.Sprintf("%q: no such help topic or command", m[0]))
		}
	}
	for _, snippet := range codeSnippets(text) {
		for _, part := range strings.FieldsFunc(snippet, func(r rune) bool { return r == '|' || r == ';' }) {
			problems = append(problems, flagProblems(part, root)...)
		}
	}
	findings := map[string]bool{}
	for _, c := range inspect.Checks {
		findings[c.ID] = true
	}
	words := append(reasonWords(), helpNames(root, true)...)
	for _, para := range strings.Split(text, "\n\n") {
		if !strings.Contains(strings.ToLower(para), "finding") {
			continue
		}
		for _, m := range kebabSpan.FindAllStringSubmatch(para, -1) {
			if !findings[m[1]] && !slices.Contains(words, m[1]) {
				problems = append(problems, fmt.Sprintf("%q: no such finding (inspect.Checks) or reason", m[1]))
			}
		}
	}
	return problems
}

// codeSnippets returns the code spans of a Markdown text and the lines of
// its fenced code blocks.
func codeSnippets(text string) []string {
	var out []string
	inBlock := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			inBlock = !inBlock
			continue
		}
		if inBlock {
			out = append(out, line)
			continue
		}
		for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// flagProblems checks the flags of one command line: against the
// snapctl command it runs, if it names one, else against every command.
// A code block line that runs another program (go, curl) is not checked.
func flagProblems(part string, root *cobra.Command) []string {
	fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(part), "$ "))
	var target *cobra.Command
	switch {
	case len(fields) > 1 && fields[0] == "snapctl":
		target = root
		if c, _, err := root.Find(fields[1:2]); err == nil {
			target = c
		}
	case len(fields) > 0 && !strings.HasPrefix(fields[0], "-"):
		return nil // another program, or prose
	}
	var problems []string
	for _, m := range flagToken.FindAllStringSubmatch(part, -1) {
		name := strings.TrimPrefix(m[1], "--")
		if target != nil {
			if target.Flag(name) == nil {
				problems = append(problems, fmt.Sprintf("%q: %s has no flag %s", strings.TrimSpace(part), target.CommandPath(), m[1]))
			}
			continue
		}
		if !slices.ContainsFunc(commands(root), func(c *cobra.Command) bool { return c.Flag(name) != nil }) {
			problems = append(problems, fmt.Sprintf("%q: no command has the flag %s", strings.TrimSpace(part), m[1]))
		}
	}
	return problems
}

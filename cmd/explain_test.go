package cmd

import (
	"os"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/render"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/replay"
)

// A query that matches nothing is echoed terminal-safe, on one line.
func TestExplainUnknownIsTerminalSafe(t *testing.T) {
	ios, out, errOut := iostreams.Test("")
	if st := run(ios, []string{"explain", "zz\x1b[31m\u202e"}); st != exitUsage {
		t.Fatalf("exit %d, want %d", st, exitUsage)
	}
	if out.Len() != 0 {
		t.Errorf("stdout: %q", out)
	}
	msg := errOut.String()
	if strings.ContainsAny(msg, "\x1b\u202e") || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, `\x1b`) {
		t.Errorf("stderr not one terminal-safe line: %q", msg)
	}
}

// TestFindingsTopic: the findings help topic documents every check from
// the one source, inspect.Checks, between its introduction and its notes
// on positions. UPDATE_FINDINGS=1 rewrites that part of the topic.
func TestFindingsTopic(t *testing.T) {
	const path = "internal/help/topics/findings.txt"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start := strings.Index(text, "\n  "+inspect.Checks[0].ID+" (")
	end := strings.Index(text, "\nFinding positions are written")
	if start < 0 || end < start {
		t.Fatalf("%s: the list of checks is not where it should be", path)
	}
	got, want := text[start+1:end], render.FindingsReference()+"\n"
	if got == want {
		return
	}
	if os.Getenv("UPDATE_FINDINGS") != "" {
		if err := os.WriteFile(path, []byte(text[:start+1]+want+text[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s differs from inspect.Checks (UPDATE_FINDINGS=1 rewrites it):\n got %s\nwant %s", path, got, want)
}

// TestExplainFindings: snapctl explain answers for every finding id, with
// what it means, how it arises and what to do.
func TestExplainFindings(t *testing.T) {
	for _, c := range inspect.Checks {
		if c.Means == "" || c.Arises == "" || c.Do == "" {
			t.Errorf("%s lacks its documentation", c.ID)
		}
		ios, out, _ := iostreams.Test("")
		if err := explainRun(&explainOptions{IO: ios, Query: c.ID, Rules: replay.ProtocolRules()}); err != nil {
			t.Errorf("explain %s: %v", c.ID, err)
			continue
		}
		for _, want := range []string{c.ID + " (" + string(c.Severity) + "): " + c.Summary + "\n", "\nHow it arises: ", "\nWhat to do: "} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("explain %s lacks %q:\n%s", c.ID, want, out)
			}
		}
	}
}

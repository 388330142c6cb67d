package cmd

import (
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
)

// TestBadUsageOneLine checks the usage errors cobra would otherwise word
// or handle itself: each is exit 2, nothing on standard output, and one
// line on standard error in snapctl's words, naming what to give.
func TestBadUsageOneLine(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string // the message, without "snapctl: " and the newline
	}{
		{name: "an unknown flag before the command", args: []string{"--no-color", "replay", "a.jsonl"},
			want: "unknown flag: --no-color"},
		{name: "an unknown shorthand before the command", args: []string{"-x", "replay", "a.jsonl"},
			want: "unknown shorthand flag: 'x' in -x"},
		{name: "an unknown command after a global flag", args: []string{"--color", "never", "replya", "a.jsonl"},
			want: `unknown command "replya"; did you mean replay?`},
		{name: "completion of an unknown shell", args: []string{"completion", "tcsh"},
			want: "completion takes a shell: bash, fish, powershell or zsh"},
		{name: "reduce of two captures", args: []string{"reduce", "--out", "-", "a.jsonl", "b.jsonl"},
			want: "reduce cuts one CAPTURE: name one file, or - for standard input"},
		{name: "record without a FILE", args: []string{"record", "--upstream", "http://127.0.0.1:1"},
			want: "record writes to the one FILE it appends the capture to, for example: snapctl record --upstream http://127.0.0.1:3000 session.jsonl"},
		{name: "record to two files", args: []string{"record", "--upstream", "http://127.0.0.1:1", "a.jsonl", "b.jsonl"},
			want: "record writes to the one FILE it appends the capture to, for example: snapctl record --upstream http://127.0.0.1:3000 session.jsonl"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ios, out, errOut := iostreams.Test("")
			if got := run(ios, tc.args); got != exitUsage {
				t.Errorf("exit %d, want %d", got, exitUsage)
			}
			if out.Len() != 0 {
				t.Errorf("stdout %q, want nothing", out.String())
			}
			if got, want := errOut.String(), "snapctl: "+tc.want+"\n"; got != want {
				t.Errorf("stderr %q, want %q", got, want)
			}
		})
	}
}

// TestCompletionWithoutShell checks that completion alone is its help,
// as snapctl alone is: exit 0, the shells listed, nothing on stderr.
func TestCompletionWithoutShell(t *testing.T) {
	ios, out, errOut := iostreams.Test("")
	if got := run(ios, []string{"completion"}); got != exitOK {
		t.Errorf("exit %d, want %d", got, exitOK)
	}
	if !strings.Contains(out.String(), "zsh") || errOut.Len() != 0 {
		t.Errorf("stdout %q, stderr %q: want the help and nothing on stderr", out.String(), errOut.String())
	}
}

package cmd

import (
	"os"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
)

func TestNewCmdDiffFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
		check   func(*diffOptions) bool
	}{
		{"defaults", []string{"c.jsonl"}, "", func(o *diffOptions) bool {
			return o.Output == "text" && !o.Stat && !o.Range && !o.Redact && o.Files[0] == "c.jsonl"
		}},
		{"range", []string{"--from", "2", "--to", "9", "c.jsonl"}, "", func(o *diffOptions) bool {
			return o.Range && o.From.seq == 2 && o.To.seq == 9
		}},
		{"range from zero", []string{"--from", "0", "--to", "1", "c.jsonl"}, "", func(o *diffOptions) bool { return o.Range && o.From.seq == 0 }},
		{"range by line", []string{"--from", "line:3", "--to", "12", "c.jsonl"}, "", func(o *diffOptions) bool {
			return o.Range && o.From.line == 3 && o.To.seq == 12
		}},
		{"range by HAR entry", []string{"--from", "entry 1:line 3", "--to", "entry:3:line:1", "c.har"}, "", func(o *diffOptions) bool {
			return o.Range && o.From.entry == 1 && o.From.line == 3 && o.To.entry == 3 && o.To.line == 1
		}},
		{"entry lines backwards", []string{"--from", "entry 2:line 9", "--to", "entry 2:line 2", "c.har"}, "--from entry 2:line 9 must come before --to entry 2:line 2", nil},
		{"entries in either order", []string{"--from", "entry 2:line 9", "--to", "entry 1:line 2", "c.har"}, "", func(o *diffOptions) bool {
			return o.Range && o.From.entry == 2 && o.To.entry == 1
		}},
		{"entry without line", []string{"--from", "entry 2", "--to", "3", "c.har"}, `--from "entry 2": give "entry E:line N"`, nil},
		{"entry zero", []string{"--from", "entry 0:line 1", "--to", "3", "c.har"}, `--from "entry 0:line 1": give "entry E:line N"`, nil},
		{"not a sequence", []string{"--from", "abc", "--to", "2", "c.jsonl"}, `--from "abc" is not a sequence: give a non-negative integer, line:N for the snapshot at line N, or "entry E:line N" for line N of HAR entry E`, nil},
		{"bad line", []string{"--from", "line:x", "--to", "2", "c.jsonl"}, `--from "line:x": line:N needs a line number from 1`, nil},
		{"lines backwards", []string{"--from", "line:9", "--to", "line:2", "c.jsonl"}, "must come before", nil},
		{"stat and redact", []string{"--stat", "--redact", "c.jsonl"}, "", func(o *diffOptions) bool { return o.Stat && o.Redact }},
		{"turn and session", []string{"--turn", "t-1", "--session", "s", "c.jsonl"}, "", func(o *diffOptions) bool {
			return o.Turn == "t-1" && o.Session == "s"
		}},
		{"no file reads stdin", nil, "", func(o *diffOptions) bool { return len(o.Files) == 1 && o.Files[0] == "-" }},
		{"from alone", []string{"--from", "2", "c.jsonl"}, "--from and --to go together", nil},
		{"to alone", []string{"--to", "2", "c.jsonl"}, "--from and --to go together", nil},
		{"backwards", []string{"--from", "9", "--to", "2", "c.jsonl"}, "must be less than", nil},
		{"negative", []string{"--from", "-1", "--to", "2", "c.jsonl"}, "non-negative", nil},
		{"bad output", []string{"-o", "yaml", "c.jsonl"}, "-o must be text, json or jsonl", nil},
		{"stat with json", []string{"--stat", "-o", "jsonl", "c.jsonl"}, "--stat is a text format", nil},
		{"bad session", []string{"--session", "a b", "c.jsonl"}, "--session", nil},
		{"bad max-line", []string{"--max-line", "0", "c.jsonl"}, "--max-line", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _ := iostreams.Test("")
			var got *diffOptions
			c := newCmdDiff(ios, func(o *diffOptions) error { got = o; return nil })
			c.SetArgs(tt.args)
			c.SetOut(&strings.Builder{})
			c.SetErr(&strings.Builder{})
			err := c.Execute()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if exitStatus(err) != exitUsage {
					t.Fatalf("exit status %d, want %d", exitStatus(err), exitUsage)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(got) {
				t.Fatalf("unexpected options %+v", got)
			}
		})
	}
}

func TestDiffRun(t *testing.T) {
	capture, err := os.ReadFile("../testdata/diff-vanished.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		status  int
		want    []string
		notWant []string
	}{
		{"text", []string{"diff"}, exitOK,
			[]string{"- msg-u1 (user, complete)", "[no lineage explains this removal]", "inert   malformed 1, duplicate 1, stale 1"}, []string{"\x1b["}},
		{"colour", []string{"--color", "always", "diff"}, exitOK,
			[]string{"\x1b[31m- msg-u1", "\x1b[32m{+ order 4417 now+}"}, nil},
		{"redact", []string{"diff", "--redact", "-o", "json"}, exitOK,
			[]string{`"appendedLength": 15`}, []string{"4417"}},
		{"unknown sequence", []string{"diff", "--from", "3", "--to", "4"}, exitUsage, nil, []string{"@@"}},
		{"unknown turn", []string{"diff", "--turn", "nope"}, exitUsage, nil, []string{"pairs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, out, errOut := iostreams.Test(string(capture))
			if got := run(ios, tt.args); got != tt.status {
				t.Fatalf("status %d, want %d (stderr %q)", got, tt.status, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(out.String(), w) {
					t.Errorf("output has %q:\n%s", w, out)
				}
			}
		})
	}
}

package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/inspect"
)

// TestNewCmdInspect checks that flags land in inspectOptions and bad
// combinations are usage errors, without running anything.
func TestNewCmdInspect(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    inspectOptions
		wantErr string
	}{
		{name: "defaults read stdin", args: nil,
			want: inspectOptions{captureFlags: captureFlags{Files: []string{"-"}, MaxLine: 64 << 20}, Output: "table"}},
		{name: "every flag", args: []string{"--session", "s", "-o", "json", "--fail-on", "warning", "--line", "3", "a.jsonl"},
			want: inspectOptions{captureFlags: captureFlags{Files: []string{"a.jsonl"}, Session: "s", MaxLine: 64 << 20}, Output: "json", FailOn: inspect.SeverityWarning, Line: 3}},
		{name: "event id over several files", args: []string{"--event-id", "e1", "a", "b"},
			want: inspectOptions{captureFlags: captureFlags{Files: []string{"a", "b"}, MaxLine: 64 << 20}, Output: "table", EventID: "e1"}},
		{name: "line on stdin", args: []string{"--line", "2"},
			want: inspectOptions{captureFlags: captureFlags{Files: []string{"-"}, MaxLine: 64 << 20}, Output: "table", Line: 2}},
		{name: "line needs one file", args: []string{"--line", "2", "a", "b"}, wantErr: "--line needs exactly one FILE, not 2"},
		{name: "bad output", args: []string{"-o", "yaml", "a"}, wantErr: `-o must be table, wide, json or jsonl, not "yaml"`},
		{name: "bad severity", args: []string{"--fail-on", "errors", "a"}, wantErr: `--fail-on: "errors" is not a severity, finding id or reason (want error, warning or info; a finding id such as message-vanished; unfinished; or a reason such as stale, malformed or problems)`},
		{name: "bad session", args: []string{"--session", "a b", "a"}, wantErr: `--session "a b" is not a safe identifier`},
		{name: "bad event id", args: []string{"--event-id", "-x", "a"}, wantErr: `--event-id "-x" is not a safe identifier`},
		{name: "line and event id", args: []string{"--line", "1", "--event-id", "e", "a"}, wantErr: "--line and --event-id cannot be used together"},
		{name: "line zero", args: []string{"--line", "0", "a"}, wantErr: "--line must be a line number from 1"},
		{name: "line negative", args: []string{"--line", "-1", "a"}, wantErr: "--line must be a line number from 1"},
		{name: "line one", args: []string{"--line", "1", "a"},
			want: inspectOptions{captureFlags: captureFlags{Files: []string{"a"}, MaxLine: 64 << 20}, Output: "table", Line: 1}},
		{name: "empty event id", args: []string{"--event-id", "", "a"}, wantErr: `--event-id "" is not a safe identifier`},
		{name: "empty event id with a line", args: []string{"--event-id=", "--line", "2", "a"}, wantErr: "--line and --event-id cannot be used together"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _ := iostreams.Test("")
			var got *inspectOptions
			c := newCmdInspect(ios, func(o *inspectOptions) error { got = o; return nil })
			c.SetArgs(tt.args)
			c.SetOut(&bytes.Buffer{})
			c.SetErr(&bytes.Buffer{})
			err := c.Execute()
			if tt.wantErr != "" {
				var ue *usageError
				if err == nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want usage error %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got.IO = nil
			if got.Session != tt.want.Session || got.Output != tt.want.Output || got.FailOn != tt.want.FailOn ||
				got.Line != tt.want.Line || got.EventID != tt.want.EventID || got.MaxLine != tt.want.MaxLine ||
				strings.Join(got.Files, ",") != strings.Join(tt.want.Files, ",") {
				t.Errorf("options:\n got %+v\nwant %+v", *got, tt.want)
			}
		})
	}
}

// TestInspectRunStdin: the report and --line both work on standard input,
// and the JSON report parses with the documented keys.
func TestInspectRunStdin(t *testing.T) {
	capture := `{"protocol":"agentskit.chat.turn","version":1,"eventId":"e1","sessionId":"s","turnId":"t","sequence":1,"emittedAt":"2026-07-11T03:00:00Z","event":"server.turn.snapshot","payload":{"status":"complete","usage":{"promptTokens":1,"completionTokens":0,"totalTokens":1},"messages":[]}}
{"protocol":"agentskit.chat.turn","version":1,"eventId":"e2","sessionId":"s","turnId":"t","sequence":1,"emittedAt":"2026-07-11T03:00:01Z","event":"server.turn.snapshot","payload":{"status":"streaming","usage":{"promptTokens":1,"completionTokens":0,"totalTokens":1},"messages":[]}}
`
	tests := []struct {
		name    string
		opts    inspectOptions
		wantErr error
		check   func(t *testing.T, out string)
	}{
		{name: "json report", opts: inspectOptions{Output: "json", FailOn: inspect.SeverityError}, wantErr: errMatched,
			check: func(t *testing.T, out string) {
				var v struct {
					Overview map[string]any
					Findings []struct {
						ID, Severity, SessionID, Message string
						Positions                        []struct {
							File string
							Line int
						}
						PositionCount int
					}
				}
				if err := json.Unmarshal([]byte(out), &v); err != nil {
					t.Fatal(err)
				}
				if len(v.Findings) != 1 || v.Findings[0].ID != inspect.SequenceCollision || v.Findings[0].Severity != "error" ||
					len(v.Findings[0].Positions) != 2 || v.Findings[0].Positions[1].Line != 2 || v.Findings[0].Positions[1].File != "-" {
					t.Errorf("findings: %+v", v.Findings)
				}
				if v.Overview["events"] != float64(2) {
					t.Errorf("overview events: %v", v.Overview["events"])
				}
			}},
		{name: "line on stdin", opts: inspectOptions{Output: "table", Line: 2, FailOn: inspect.SeverityWarning}, wantErr: errMatched,
			check: func(t *testing.T, out string) {
				for _, want := range []string{"-:2  server.turn.snapshot  event e2", "verdict: inert (duplicate)", "sequence-collision"} {
					if !strings.Contains(out, want) {
						t.Errorf("missing %q in:\n%s", want, out)
					}
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, out, _ := iostreams.Test(capture)
			o := tt.opts
			o.IO, o.Files, o.MaxLine = ios, []string{"-"}, 1<<20
			if err := inspectRun(&o); !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			tt.check(t, out.String())
		})
	}
}

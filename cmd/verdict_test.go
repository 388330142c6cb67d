package cmd

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/internal/samples"
)

// runFile runs snapctl with args and the capture file, and returns its
// standard output.
func runFile(t *testing.T, file string, args ...string) string {
	t.Helper()
	ios, out, errOut := iostreams.Test("")
	if code := run(ios, append(args, file)); code != 0 {
		t.Fatalf("%s %s: exit %d: %s", strings.Join(args, " "), file, code, errOut)
	}
	return out.String()
}

// sessionVerdict is the verdict key of inspect's and lineage's sessions.
type sessionVerdict struct {
	SessionID string `json:"sessionId"`
	Verdict   *struct {
		Clean                                        bool
		Problems, Errors, Warnings, Info, Unfinished int
		Worst                                        *string
	} `json:"verdict"`
}

// TestVerdictsAgree: on every capture in testdata, lineage gives each
// session the verdict inspect gives it, in JSON and in text, and no
// session with a problem reads "no problems" in either.
func TestVerdictsAgree(t *testing.T) {
	for _, file := range samples.All(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			var ins struct {
				Overview struct{ Sessions []sessionVerdict }
			}
			if err := json.Unmarshal([]byte(runFile(t, file, "inspect", "-o", "json")), &ins); err != nil {
				t.Fatal(err)
			}
			var lin struct{ Sessions []sessionVerdict }
			if err := json.Unmarshal([]byte(runFile(t, file, "lineage", "-o", "json")), &lin); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{}
			clean := map[string]bool{}
			for _, s := range ins.Overview.Sessions {
				b, _ := json.Marshal(s.Verdict)
				want[s.SessionID] = string(b)
				clean[s.SessionID] = s.Verdict.Clean
			}
			for _, s := range lin.Sessions {
				if got, _ := json.Marshal(s.Verdict); string(got) != want[s.SessionID] {
					t.Errorf("session %s: lineage verdict %s, inspect %s", s.SessionID, got, want[s.SessionID])
				}
			}
			// Text: inspect's block states the verdict on the line after
			// the session's; lineage's headline on the session's line.
			inspectText := runFile(t, file, "inspect", "-o", "wide")
			for id, ok := range clean {
				block := regexp.MustCompile(`(?m)^session ` + regexp.QuoteMeta(id) + "\n  verdict: (.*)$").FindStringSubmatch(inspectText)
				if block == nil {
					t.Errorf("inspect states no verdict for session %s:\n%s", id, inspectText)
					continue
				}
				if says := strings.Contains(block[1], "no problems"); says != ok {
					t.Errorf("inspect session %s (clean %v): verdict %q", id, ok, block[1])
				}
			}
			for _, line := range strings.Split(runFile(t, file, "lineage", "-o", "wide"), "\n") {
				id, rest, found := strings.Cut(strings.TrimPrefix(line, "session "), ": ")
				if !strings.HasPrefix(line, "session ") || !found {
					continue
				}
				if says := strings.Contains(rest, "no problems"); says != clean[id] {
					t.Errorf("lineage session %s (clean %v): %q", id, clean[id], line)
				}
			}
		})
	}
}

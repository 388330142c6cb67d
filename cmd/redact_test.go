package cmd

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/render/redacttest"
)

// everyOutput is every command in every format, with the close-ups of
// every line and of every event id but the cut line's.
func everyOutput(lines int) [][]string {
	out := [][]string{
		{"replay"}, {"replay", "-o", "json"}, {"replay", "-o", "jsonl"}, {"replay", "--only", "inert"},
		{"inspect"}, {"inspect", "-o", "json"},
		{"lineage"}, {"lineage", "--ascii"}, {"lineage", "-o", "mermaid"}, {"lineage", "-o", "dot"}, {"lineage", "-o", "json"},
		{"diff"}, {"diff", "--stat"}, {"diff", "-o", "json"}, {"diff", "-o", "jsonl"}, {"diff", "--from", "1", "--to", "7"},
	}
	for n := 1; n <= lines; n++ {
		for _, o := range []string{"table", "json"} {
			out = append(out, []string{"inspect", "-o", o, "--line", fmt.Sprint(n)})
			if n != 7 {
				out = append(out, []string{"inspect", "-o", o, "--event-id", fmt.Sprintf("e%d", n-1)})
			}
		}
	}
	return out
}

// TestRedactHidesEverySecret runs every command and format over a capture
// with a marker in every secret place: with --redact no output names one;
// without it, every marker shows somewhere, so the search can fail.
func TestRedactHidesEverySecret(t *testing.T) {
	const tag = "SeCrEt"
	capture := redacttest.Capture(tag)
	lines := strings.Count(capture, "\n")
	c := redacttest.NewCanary(t, tag)
	for _, args := range everyOutput(lines) {
		name := strings.Join(args, " ")
		for _, redact := range []bool{false, true} {
			a := append([]string{}, args...)
			if redact {
				a = append(a, "--redact")
			}
			ios, out, errOut := iostreams.Test(capture)
			code := run(ios, append(a, "-"))
			if code != exitOK {
				t.Fatalf("%s: exit %d: %s", strings.Join(a, " "), code, errOut.String())
			}
			c.Check(name, out.String()+errOut.String(), redact)
		}
	}
	c.Done()
}

// secretMarkers follow the tag in every secret place of secretCapture.

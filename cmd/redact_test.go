package cmd

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/render/redacttest"
)

// everyOutput is every command in every format, with the close-ups of
// every line and of every event id but the cut line's (7) and the error
// body's (11), which have none.
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
			if n != 7 && n != 11 {
				out = append(out, []string{"inspect", "-o", o, "--event-id", fmt.Sprintf("e%d", n-1)})
			}
		}
	}
	return out
}

// TestRedactHidesEverySecret runs every command and format over a capture
// with a marker in every secret place, as NDJSON and as the body of a HAR
// entry whose request URL has markers too: with --redact no output names
// one; without it, every marker shows somewhere, so the search can fail.
func TestRedactHidesEverySecret(t *testing.T) {
	const tag = "SeCrEt"
	capture := redacttest.Capture(tag)
	lines := strings.Count(capture, "\n")
	c := redacttest.NewCanary(t, tag, slices.Concat(redacttest.EventMarkers, redacttest.URLMarkers)...)
	for _, in := range []struct{ format, capture string }{{"ndjson", capture}, {"har", redacttest.HAR(tag)}} {
		for _, args := range append(everyOutput(lines), []string{"report", "--out", "-"}) {
			name := in.format + ": " + strings.Join(args, " ")
			for _, redact := range []bool{false, true} {
				a := append([]string{}, args...)
				if redact {
					a = append(a, "--redact")
				}
				ios, out, errOut := iostreams.Test(in.capture)
				code := run(ios, append(a, "-"))
				if code != exitOK {
					t.Fatalf("%s: exit %d: %s", strings.Join(a, " "), code, errOut.String())
				}
				c.Check(name, out.String()+errOut.String(), redact)
			}
		}
		// reduce reads NDJSON only: of a HAR, it says so, naming no URL.
		ios, out, errOut := iostreams.Test(in.capture)
		code := run(ios, []string{"reduce", "--out", "-", "--redact", "-"})
		if in.format == "har" && code != exitUsage {
			t.Errorf("reduce of a HAR: exit %d, want %d", code, exitUsage)
		}
		c.Check(in.format+": reduce", out.String()+errOut.String(), true)
		// A --url that keeps nothing lists the URLs there are: as --redact
		// shows them.
		if in.format != "har" {
			continue
		}
		for _, args := range [][]string{{"replay"}, {"inspect"}, {"lineage"}, {"diff"}, {"report", "--out", "-"}} {
			ios, out, errOut := iostreams.Test(in.capture)
			a := slices.Concat(args, []string{"--url", "/no-such-url/", "--redact", "-"})
			if code := run(ios, a); code != exitUsage {
				t.Errorf("%s: exit %d, want %d: %s", strings.Join(a, " "), code, exitUsage, errOut.String())
			}
			c.Check("har: "+strings.Join(args, " ")+" --url /no-such-url/", out.String()+errOut.String(), true)
		}
	}
	c.Done()
}

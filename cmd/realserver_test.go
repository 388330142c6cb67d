package cmd

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/replay"
)

// realCapture is the path of a capture of the real AgentsKit Chat server
// (testdata/real-server/README.md says what happened in each).
func realCapture(name string) string { return filepath.Join("..", "testdata", "real-server", name) }

// turnOutcome is the outcome keys that inspect's turnOutcomes and
// lineage's turns share.
type turnOutcome struct {
	TurnID         string  `json:"turnId"`
	Outcome        string  `json:"outcome"`
	OutcomeCode    *string `json:"outcomeCode"`
	OutcomeLine    *int    `json:"outcomeLine"`
	CompletedLater *struct {
		Line       int  `json:"line"`
		Characters int  `json:"characters"`
		Prefix     bool `json:"prefix"`
	} `json:"completedLater"`
}

func (o turnOutcome) String() string {
	s := o.TurnID + " " + o.Outcome
	if o.OutcomeCode != nil {
		s += " " + *o.OutcomeCode
	}
	if o.OutcomeLine != nil {
		s += fmt.Sprintf(" @%d", *o.OutcomeLine)
	}
	if l := o.CompletedLater; l != nil {
		s += fmt.Sprintf(" completed later @%d %+d", l.Line, l.Characters)
	}
	return s
}

// TestRealServerOutcomeJSON: inspect's and lineage's JSON say how each
// turn of the real captures ended, with the same keys and values.
func TestRealServerOutcomeJSON(t *testing.T) {
	for _, tc := range []struct {
		file string
		want string
	}{
		{"real-timeout.jsonl", "turn-1 timed-out SERVER_TIMEOUT @22 completed later @23 +0, turn-2 complete @35"},
		{"real-abort.jsonl", "turn-1 cut-off @9 completed later @10 +0, turn-2 complete @32"},
		{"real-fail.jsonl", "turn-1 complete @18, turn-2 error CHAT_TURN_FAILED @33, turn-3 complete @51"},
		{"real-alpha.jsonl", "turn-1 complete @43, turn-2 complete @86, turn-3 complete @129"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			ios, out, _ := iostreams.Test("")
			o := inspectOptions{IO: ios, Output: "json"}
			o.Files, o.MaxLine = []string{realCapture(tc.file)}, replay.DefaultMaxLine
			if err := inspectRun(&o); err != nil {
				t.Fatal(err)
			}
			var rep struct {
				Overview struct {
					Sessions []struct {
						TurnOutcomes []turnOutcome `json:"turnOutcomes"`
					}
				}
			}
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil || len(rep.Overview.Sessions) != 1 {
				t.Fatalf("inspect JSON: %v, %d sessions", err, len(rep.Overview.Sessions))
			}
			if got := join(rep.Overview.Sessions[0].TurnOutcomes); got != tc.want {
				t.Errorf("inspect turnOutcomes:\n got %s\nwant %s", got, tc.want)
			}
			lo := lineageOptions{Output: "json"}
			lo.Files = []string{realCapture(tc.file)}
			js, err := runLineage(t, "", lo)
			if err != nil {
				t.Fatal(err)
			}
			var lin struct {
				Sessions []struct{ Turns []turnOutcome }
			}
			if err := json.Unmarshal([]byte(js), &lin); err != nil || len(lin.Sessions) != 1 {
				t.Fatalf("lineage JSON: %v", err)
			}
			if got := join(lin.Sessions[0].Turns); got != tc.want {
				t.Errorf("lineage turns:\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

func join(outs []turnOutcome) string {
	parts := make([]string, len(outs))
	for i, o := range outs {
		parts[i] = o.String()
	}
	return strings.Join(parts, ", ")
}

// TestRealServerText: the overview and the lineage tree say how turn-1 of
// real-timeout.jsonl and real-abort.jsonl ended, where they said
// "streaming" and "no problems".
func TestRealServerText(t *testing.T) {
	for _, tc := range []struct{ file, overview, tree string }{
		{"real-timeout.jsonl", "  outcomes: 1 complete; turn-1 timed-out SERVER_TIMEOUT at " + realCapture("real-timeout.jsonl") + ":22 (completed later at " + realCapture("real-timeout.jsonl") + ":23, +0 characters)\n",
			"turn-1  submit  timed-out SERVER_TIMEOUT (completed later)  seq 2-22"},
		{"real-abort.jsonl", "  outcomes: 1 complete; turn-1 cut-off at " + realCapture("real-abort.jsonl") + ":9 (completed later at " + realCapture("real-abort.jsonl") + ":10, +0 characters)\n",
			"turn-1  submit  cut-off (completed later)  seq 2-10"},
	} {
		ios, out, _ := iostreams.Test("")
		o := inspectOptions{IO: ios, Output: "wide"}
		o.Files, o.MaxLine = []string{realCapture(tc.file)}, replay.DefaultMaxLine
		if err := inspectRun(&o); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), tc.overview) {
			t.Errorf("%s: inspect lacks %q:\n%s", tc.file, tc.overview, out)
		}
		// Its gaps are the turn boundaries' 2, the server's numbering.
		if strings.Contains(out.String(), "sequence-gap") {
			t.Errorf("%s: inspect cites sequence-gap:\n%s", tc.file, out)
		}
		lo := lineageOptions{}
		lo.Files = []string{realCapture(tc.file)}
		tree, err := runLineage(t, "", lo)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(tree, tc.tree) {
			t.Errorf("%s: lineage lacks %q:\n%s", tc.file, tc.tree, tree)
		}
	}
}

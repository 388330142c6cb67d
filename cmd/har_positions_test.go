package cmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/replay"
)

// TestHARPositionsInText: inspect's findings name the entry of every line
// of proxied.har (mitmproxy's HAR of the real server), where they said
// "at proxied.har:1,1".
func TestHARPositionsInText(t *testing.T) {
	ios, out, _ := iostreams.Test("")
	o := inspectOptions{IO: ios, Output: "wide"}
	o.Files, o.MaxLine = []string{realCapture("proxied.har")}, replay.DefaultMaxLine
	if err := inspectRun(&o); err != nil {
		t.Fatal(err)
	}
	file := realCapture("proxied.har")
	want := "  at " + file + ":entry 3:line 1 " + file + ":entry 5:line 1\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("inspect lacks %q:\n%s", want, out)
	}
	if strings.Contains(out.String(), "  at "+file+":1") {
		t.Errorf("a finding names a line without its entry:\n%s", out)
	}
}

// TestHARDiffRange: --from and --to take a line within a HAR entry, as
// positions print it: line 3 of entry 1 and line 1 of entry 3 are
// p-s-alpha's sequences 4 and 47.
func TestHARDiffRange(t *testing.T) {
	ios, out, _ := iostreams.Test("")
	var got *diffOptions
	c := newCmdDiff(ios, func(o *diffOptions) error { got = o; return nil })
	c.SetArgs([]string{"-o", "json", "--from", "entry 1:line 3", "--to", "entry:3:line:1", realCapture("proxied.har")})
	c.SetOut(&strings.Builder{})
	c.SetErr(&strings.Builder{})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	got.MaxLine = replay.DefaultMaxLine
	if err := diffRun(got); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Pairs []struct {
			SessionID    string `json:"sessionId"`
			FromSequence int64  `json:"fromSequence"`
			ToSequence   int64  `json:"toSequence"`
		}
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(res.Pairs) != 1 || res.Pairs[0].SessionID != "p-s-alpha" || res.Pairs[0].FromSequence != 4 || res.Pairs[0].ToSequence != 47 {
		t.Errorf("pairs %+v, want p-s-alpha 4 → 47", res.Pairs)
	}
}

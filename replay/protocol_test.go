package replay

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var ruleID = regexp.MustCompile(`^[a-z]+(\.[a-z0-9]+(-[a-z0-9]+)*)+$`)

// TestProtocolDrift keeps PROTOCOL.md and the conformance corpus in step:
// every rule has a case, every case names a rule, and every case a rule's
// "Cases:" line names exists and pins that rule.
func TestProtocolDrift(t *testing.T) {
	rules := ProtocolRules()
	if len(rules) < 40 {
		t.Fatalf("only %d rules read from PROTOCOL.md", len(rules))
	}
	known := map[string]bool{}
	for _, r := range rules {
		if !ruleID.MatchString(r.ID) || r.Title == "" {
			t.Errorf("rule %q: want an id like part.name and a title", r.ID)
		}
		if known[r.ID] {
			t.Errorf("rule %s: defined twice", r.ID)
		}
		known[r.ID] = true
	}

	// pins maps each case (decode case name, cursor/NAME, script/NAME) to
	// the rules it pins.
	pins := map[string][]string{}
	for name, rule := range decodeCaseRules(t) {
		pins[name] = []string{rule}
	}
	for name, rs := range cursorCaseRules(t) {
		pins["cursor/"+name] = rs
	}
	for name, list := range pins {
		for _, r := range list {
			if !known[r] {
				t.Errorf("case %s names rule %q, which PROTOCOL.md does not have", name, r)
			}
		}
	}

	pinned := map[string]bool{}
	for _, rs := range pins {
		for _, r := range rs {
			pinned[r] = true
		}
	}
	for _, r := range rules {
		if len(r.Cases) == 0 {
			t.Errorf("rule %s: no Cases: line", r.ID)
		}
		for _, c := range r.Cases {
			if script, ok := strings.CutPrefix(c, "script/"); ok {
				checkScriptPin(t, r, script)
				continue
			}
			if !slices.Contains(pins[c], r.ID) {
				t.Errorf("rule %s names case %s, which does not pin it (pins %v)", r.ID, c, pins[c])
			}
		}
		if !pinned[r.ID] && !strings.HasPrefix(r.ID, "snapctl.") {
			t.Errorf("rule %s: no case in testdata/conformance pins it", r.ID)
		}
	}
}

// checkScriptPin accepts a CLI script as the pin of one of snapctl's own
// rules, which the reference has no verdict for: the script must exist and
// mention the code the rule's heading names.
func checkScriptPin(t *testing.T, r Rule, script string) {
	t.Helper()
	if !strings.HasPrefix(r.ID, "snapctl.") {
		t.Errorf("rule %s: only snapctl's own rules may be pinned by a script, not the reference's", r.ID)
	}
	data, err := os.ReadFile(filepath.Join("..", "testdata", "script", script))
	if err != nil {
		t.Errorf("rule %s: %v", r.ID, err)
		return
	}
	code := strings.Trim(strings.Fields(r.Title)[0], "`:,")
	if !strings.Contains(string(data), code) {
		t.Errorf("rule %s: script %s does not mention %s", r.ID, script, code)
	}
}

// decodeCaseRules reads the rule of every case of decode.jsonl.
func decodeCaseRules(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("../testdata/conformance/decode.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	out := map[string]string{}
	for n := 1; sc.Scan(); n++ {
		var c struct{ Name, Rule string }
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("decode.jsonl line %d: %v", n, err)
		}
		if c.Rule == "" {
			t.Errorf("decode.jsonl line %d (%s): no rule", n, c.Name)
		}
		if _, dup := out[c.Name]; dup {
			t.Errorf("decode.jsonl line %d: case name %s used twice", n, c.Name)
		}
		out[c.Name] = c.Rule
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// cursorCaseRules reads cursor/rules.txt, checking that it covers every
// capture, and that a cursor.REASON rule is claimed only by a capture
// whose expected verdicts have that reason.
func cursorCaseRules(t *testing.T) map[string][]string {
	t.Helper()
	dir := "../testdata/conformance/cursor"
	data, err := os.ReadFile(filepath.Join(dir, "rules.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, list, ok := strings.Cut(line, ":")
		if !ok {
			t.Errorf("rules.txt: %q is not NAME: rule ...", line)
			continue
		}
		out[name] = strings.Fields(list)
	}
	captures, _ := filepath.Glob(filepath.Join(dir, "*.expected.jsonl"))
	for _, exp := range captures {
		name := strings.TrimSuffix(filepath.Base(exp), ".expected.jsonl")
		rs, ok := out[name]
		if !ok {
			t.Errorf("cursor capture %s: not in rules.txt", name)
			continue
		}
		reasons := map[string]bool{}
		for _, e := range readExpected(t, exp) {
			reasons["cursor."+e.Reason] = true
		}
		for _, r := range rs {
			if slices.Contains(Reasons, Reason(strings.TrimPrefix(r, "cursor."))) && !reasons[r] {
				t.Errorf("cursor capture %s claims %s, but has no event with that reason", name, r)
			}
		}
	}
	for name := range out {
		if _, err := os.Stat(filepath.Join(dir, name+".jsonl")); err != nil {
			t.Errorf("rules.txt names capture %s: %v", name, err)
		}
	}
	return out
}

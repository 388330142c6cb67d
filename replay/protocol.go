package replay

import (
	_ "embed"
	"strings"
)

//go:embed PROTOCOL.md
var protocolText string

// Protocol returns the protocol reference, replay/PROTOCOL.md: the wire
// contract rule by rule, as the decoder and the cursor enforce it.
func Protocol() string { return protocolText }

// Rule is one rule of the protocol reference: a section whose heading is
// the rule's id in backquotes, a colon and its title.
type Rule struct {
	// ID is the rule's stable id, such as "envelope.sequence".
	ID    string
	Title string
	// Part is the title of the part of the reference the rule is in.
	Part string
	// Text is the section in Markdown, its heading first.
	Text string
	// Cases are the conformance cases named on the section's "Cases:"
	// line: a case of decode.jsonl by name, a cursor capture as
	// "cursor/NAME", a CLI script as "script/NAME.txtar".
	Cases []string
}

// ProtocolRules returns the rules of the protocol reference in order.
func ProtocolRules() []Rule {
	var rules []Rule
	var part string
	var text []string
	flush := func() {
		if len(rules) > 0 && text != nil {
			rules[len(rules)-1].Text = strings.TrimSpace(strings.Join(text, "\n"))
		}
		text = nil
	}
	for line := range strings.Lines(protocolText) {
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "## "):
			flush()
			part = strings.TrimPrefix(line, "## ")
			continue
		case strings.HasPrefix(line, "### `"):
			flush()
			id, title, _ := strings.Cut(strings.TrimPrefix(line, "### `"), "`")
			rules = append(rules, Rule{ID: id, Title: strings.TrimPrefix(title, ": "), Part: part})
			text = []string{}
		}
		if text == nil {
			continue
		}
		text = append(text, line)
		if rest, ok := strings.CutPrefix(line, "Cases: "); ok {
			r := &rules[len(rules)-1]
			for _, c := range strings.Split(rest, ",") {
				r.Cases = append(r.Cases, strings.Trim(strings.TrimSpace(c), "`"))
			}
		}
	}
	flush()
	return rules
}

package render

import (
	"bytes"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/jsonout"
)

func TestMermaidText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "turn-1 retry: ok, fine.", "turn-1 retry: ok, fine."},
		{"quote and hash", `say "hi" #1;`, "say #34;hi#34; #35;1#59;"},
		{"html", "<b>x</b> & y", "#60;b#62;x#60;/b#62; #38; y"},
		{"mermaid syntax", "a --> b |c| `d`", "a --#62; b #124;c#124; #96;d#96;"},
		{"visible escapes stay visible", `line\nnext`, "line#92;nnext"},
		{"unicode kept, separators escaped", "Störung…\u2028x", "Störung…#8232;x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mermaidText(tt.in); got != tt.want {
				t.Errorf("mermaidText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestDotString(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "turn-1", `"turn-1"`},
		{"quote", `say "hi"`, `"say \"hi\""`},
		{"backslash escapes nothing", `a\nb\l`, `"a\\nb\\l"`},
		{"newline is a line break", "a\nb", `"a\nb"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := dotString(tt.in); got != tt.want {
				t.Errorf("dotString(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

// TestLineageTurnWrite holds the turn written field by field to the bytes
// Value writes of the contract type, in both layouts, with every optional
// field absent and present and strings that need escapes.
func TestLineageTurnWrite(t *testing.T) {
	str := func(s string) *string { return &s }
	line := 7
	odd := "a\"b\\c\x1b[31m\u202e\b\f\xff\u2028<&>"
	turns := []lineageTurnJSON{
		{},
		{Children: []string{}, Problems: []lineageProblemJSON{}},
		{TurnID: "t1", Operation: "retry", ParentTurnID: str("t0"), SourceMessageID: str(odd), FirstSequence: -3, LastSequence: 1 << 40,
			Status: "error", ErrorCode: str("MODEL_FAILED"), Outcome: "cut-off", OutcomeCode: str("TIMEOUT"), OutcomeFile: str("a b.jsonl"),
			OutcomeLine: &line, OutcomeEntry: 12, CompletedLater: &completedLaterJSON{File: "f", Entry: 3, Line: 9, Characters: -2, Prefix: true},
			FirstEmittedAt: "2026-07-11T03:00:00.000Z", LastEmittedAt: odd, Usage: lineageUsageJSON{1, 2, 3},
			Preview: str(odd), Input: str(""), Children: []string{"t2", odd}, Problems: []lineageProblemJSON{{"cycle", odd}, {"orphan", ""}}},
		{TurnID: odd, CompletedLater: &completedLaterJSON{}, Preview: str("p"), Children: []string{}, Problems: []lineageProblemJSON{}},
	}
	for _, style := range []jsonout.Style{jsonout.Document, jsonout.Lines} {
		for i, jt := range turns {
			var byHand, marshalled bytes.Buffer
			e := jsonout.NewEncoder(&byHand, style)
			e.BeginArray()
			jt.write(e)
			e.EndArray()
			v := jsonout.NewEncoder(&marshalled, style)
			v.BeginArray()
			if err := v.Value(jt); err != nil {
				t.Fatal(err)
			}
			v.EndArray()
			if e.End() != nil || v.End() != nil || byHand.String() != marshalled.String() {
				t.Errorf("turn %d, indent %v:\n%s\nwant\n%s", i, style.Indent, byHand.Bytes(), marshalled.Bytes())
			}
		}
	}
}

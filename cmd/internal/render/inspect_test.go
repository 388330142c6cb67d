package render

import (
	"bufio"
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/jsonout"
	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/inspect"
)

func TestPositionList(t *testing.T) {
	pos := func(file string, line int) inspect.Position { return inspect.Position{File: file, Line: line} }
	tests := []struct {
		name string
		f    inspect.Finding
		want string
	}{
		{"one file", inspect.Finding{Positions: []inspect.Position{pos("a", 1), pos("a", 5)}, PositionCount: 2}, "a:1,5"},
		{"two files", inspect.Finding{Positions: []inspect.Position{pos("a", 1), pos("b", 2), pos("b", 3)}, PositionCount: 3}, "a:1 b:2-3"},
		{"capped", inspect.Finding{Positions: []inspect.Position{pos("a", 1)}, PositionCount: 4}, "a:1 (+3)"},
		{"file name made safe", inspect.Finding{Positions: []inspect.Position{pos("a\x1bb", 1)}, PositionCount: 1}, `a\x1bb:1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := positionList(tt.f, 0); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestFindingsHead: the report's first lines count the findings by
// severity and name the worst with its positions, within the width.
func TestFindingsHead(t *testing.T) {
	ps := make([]inspect.Position, 50)
	for i := range ps {
		ps[i] = inspect.Position{File: "capture.jsonl", Line: 2 * (i + 1)}
	}
	fs := []inspect.Finding{
		{ID: inspect.MessageVanished, Severity: inspect.SeverityError, SessionID: strings.Repeat("s", 30), Positions: ps, PositionCount: 120},
		{ID: inspect.SequenceCollision, Severity: inspect.SeverityError, SessionID: "s2", Positions: ps[:1], PositionCount: 1},
		{ID: inspect.SequenceGap, Severity: inspect.SeverityInfo, SessionID: "s2", Positions: ps[:1], PositionCount: 1},
	}
	tests := []struct {
		width int
		want  []string
	}{
		{0, []string{"3 findings: 2 errors, 1 info",
			"worst of 2 errors: message-vanished in session " + strings.Repeat("s", 30) + ", at capture.jsonl:" + CompactPositions(ps, 120, 0)[len("capture.jsonl:"):]}},
		{80, []string{"3 findings: 2 errors, 1 info",
			"worst of 2 errors: message-vanished in session " + strings.Repeat("s", 30),
			"  at " + CompactPositions(ps, 120, 75)}},
		{40, []string{"3 findings: 2 errors, 1 info", "worst of 2 errors: message-vanished in …",
			"  at capture.jsonl:2,4,6,8,10,12 (+114)"}},
		{120, []string{"3 findings: 2 errors, 1 info",
			"worst of 2 errors: message-vanished in session " + strings.Repeat("s", 30) + ", at capture.jsonl:2,4,6,8,10,12,14 (+113)"}},
	}
	for _, tc := range tests {
		var b strings.Builder
		w := bufio.NewWriter(&b)
		ios, _, _ := iostreams.Test("")
		writeFindingsHead(w, ios.Palette(), fs, tc.width)
		w.Flush()
		got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if !slices.Equal(got, tc.want) {
			t.Errorf("width %d:\n%s\nwant:\n%s", tc.width, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
		for _, l := range got {
			if tc.width > 0 && text.Width(l) > tc.width {
				t.Errorf("width %d: %q is %d cells", tc.width, l, text.Width(l))
			}
		}
	}
}

// TestFindingWrite holds the finding written field by field to the bytes
// Value writes, in both layouts.
func TestFindingWrite(t *testing.T) {
	odd := "a\"b\\c\x1b[31m\u202e\b\f\xff\u2028<&>"
	for _, f := range []findingJSON{
		{},
		{Positions: []positionJSON{}},
		{ID: "sequence-collision", Severity: "error", SessionID: odd, Message: odd,
			Positions: []positionJSON{{File: odd, Line: 3}, {File: "f.har", Entry: 12, Line: 1}}, PositionCount: 1 << 30},
	} {
		for _, style := range []jsonout.Style{jsonout.Document, jsonout.Lines} {
			var byHand, marshalled bytes.Buffer
			e, v := jsonout.NewEncoder(&byHand, style), jsonout.NewEncoder(&marshalled, style)
			e.BeginArray()
			f.write(e)
			e.EndArray()
			v.BeginArray()
			if err := v.Value(f); err != nil {
				t.Fatal(err)
			}
			v.EndArray()
			if e.End() != nil || v.End() != nil || byHand.String() != marshalled.String() {
				t.Errorf("%+v, indent %v:\n%s\nwant\n%s", f, style.Indent, byHand.Bytes(), marshalled.Bytes())
			}
		}
	}
}

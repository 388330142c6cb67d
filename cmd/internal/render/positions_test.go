package render

import (
	"testing"

	"github.com/agentskit/snapctl/inspect"
)

func TestCompactPositions(t *testing.T) {
	at := func(file string, lines ...int) []inspect.Position {
		ps := make([]inspect.Position, len(lines))
		for i, l := range lines {
			ps[i] = inspect.Position{File: file, Line: l}
		}
		return ps
	}
	tests := []struct {
		name  string
		ps    []inspect.Position
		total int
		width int
		want  string
	}{
		{"none", nil, 0, 0, ""},
		{"one", at("a", 3), 1, 0, "a:3"},
		{"ranges", at("a", 2, 4, 5, 6, 7, 8, 10, 11), 8, 0, "a:2,4-8,10-11"},
		{"more than listed", at("a", 2, 3), 165, 0, "a:2-3 (+163)"},
		{"two files", append(at("a", 1, 2), at("b", 3)...), 3, 0, "a:1-2 b:3"},
		{"cut to width", at("a", 1, 3, 5, 7, 9), 5, 12, "a:1,3,5 (+2)"},
		{"first always shown", at("long-name", 1, 3), 2, 4, "long-name:1 (+1)"},
		{"HAR entries", []inspect.Position{{File: "x.har", Entry: 3, Line: 1}, {File: "x.har", Entry: 3, Line: 2},
			{File: "x.har", Entry: 3, Line: 5}, {File: "x.har", Entry: 5, Line: 1}}, 4, 0, "x.har:entry 3:line 1-2,5 x.har:entry 5:line 1"},
		{"HAR entry after a file", []inspect.Position{{File: "a", Line: 2}, {File: "x.har", Entry: 1, Line: 2}, {File: "x.har", Entry: 2, Line: 3}},
			3, 0, "a:2 x.har:entry 1:line 2 x.har:entry 2:line 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CompactPositions(tt.ps, tt.total, tt.width); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

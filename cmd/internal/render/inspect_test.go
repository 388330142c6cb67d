package render

import (
	"testing"

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

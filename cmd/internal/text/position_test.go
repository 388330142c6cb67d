package text

import "testing"

func TestPosition(t *testing.T) {
	tests := []struct {
		name        string
		file        string
		entry, line int
		want        string
	}{
		{"a line", "a.jsonl", 0, 12, "a.jsonl:12"},
		{"a line of a HAR entry", "proxied.har", 13, 1, "proxied.har:entry 13:line 1"},
		{"no file", "", 0, 7, "7"},
		{"no file, an entry", "", 4, 7, "entry 4:line 7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Position(tt.file, tt.entry, tt.line); got != tt.want {
				t.Errorf("Position(%q, %d, %d) = %q, want %q", tt.file, tt.entry, tt.line, got, tt.want)
			}
		})
	}
}

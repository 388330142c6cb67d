package render

import "testing"

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

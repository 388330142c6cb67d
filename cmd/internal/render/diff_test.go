package render

import (
	"strings"
	"testing"
)

func TestElide(t *testing.T) {
	long := strings.Repeat("x", contextRunes)
	tests := []struct {
		name          string
		in            string
		before, after bool
		want          string
	}{
		{"short text is kept whole", "a\xffb", true, true, `a\xffb`},
		{"one character over the context is kept whole", long + "y", true, false, long + "y"},
		{"context before the cut", long + "\xff\xfe", true, false, long + "…"},
		{"invalid byte in the head", "\xff" + long + "zz", true, false, `\xff` + long[1:] + "…"},
		{"invalid byte in the tail", "zz" + long + "\xff", false, true, "…" + long[1:] + `\xff`},
		{"zero-width space shows", "\u200b" + long + "zz" + long, true, true, `\u200b` + long[1:] + "…" + long},
		{"multibyte characters count once", strings.Repeat("é", contextRunes+2), true, false, strings.Repeat("é", contextRunes) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := elide(tt.in, tt.before, tt.after); got != tt.want {
				t.Fatalf("elide(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestRedactJSONPath(t *testing.T) {
	parts := func(k string) bool { return k == "text" || k == "type" }
	tests := []struct {
		name, path string
		keep       func(string) bool
		want       string
	}{
		{"root", "$", nil, "$"},
		{"plain key", "$.SECRETkey", nil, "$.*"},
		{"quoted key", `$["SECRET key"]`, nil, "$.*"},
		{"quoted key with escapes", `$["SECRET \"]\\ key"].x`, nil, "$.*.*"},
		{"indices stay", "$.SECRETa[3].SECRETb[10]", nil, "$.*[3].*[10]"},
		{"named keys stay", "$[0].text", parts, "$[0].text"},
		{"named quoted key stays", `$[0]["text"]`, parts, `$[0]["text"]`},
		{"other keys of a part", "$[0].SECRETx.text", parts, "$[0].*.text"},
		{"unterminated quote", `$["SECRET`, nil, "$*"},
		{"not an index", "$[SECRET]", nil, "$*"},
		{"unexpected text", "SECRET", nil, "*"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := redactJSONPath(tt.path, tt.keep); got != tt.want {
				t.Fatalf("redactJSONPath(%q) = %q, want %q", tt.path, got, tt.want)
			}
		})
	}
}

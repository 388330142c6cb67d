package wire

import "testing"

// TestUnescapeCutShort unescapes strings whose escapes end early, as the
// bytes of a mapped capture written over after the scanner checked them
// may: the escape is kept as it is, and nothing is read past the string.
func TestUnescapeCutShort(t *testing.T) {
	for in, want := range map[string]string{
		`a\`:           `a\`,
		`a\u12`:        `a\u12`,
		`\u`:           `\u`,
		`x\n\`:         "x\n\\",
		`\u0041\u00`:   `A\u00`,
		`\ud83d\ude00`: "\U0001F600",
	} {
		if got := string(appendUnescaped(nil, []byte(in))); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

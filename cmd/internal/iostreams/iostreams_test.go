package iostreams

import "testing"

func TestColorEnabled(t *testing.T) {
	cases := []struct {
		mode           string
		outTTY, noColr bool
		want           bool
	}{
		{"auto", true, false, true},
		{"auto", true, true, false}, // NO_COLOR on a terminal
		{"auto", false, false, false},
		{"always", false, true, true},
		{"never", true, false, false},
	}
	for _, tc := range cases {
		ios := &IOStreams{ColorMode: tc.mode, OutTTY: tc.outTTY, NoColor: tc.noColr}
		if got := ios.ColorEnabled(); got != tc.want {
			t.Errorf("mode %s, terminal %v, NO_COLOR %v: got %v, want %v", tc.mode, tc.outTTY, tc.noColr, got, tc.want)
		}
		if got := ios.Palette().Green("x") != "x"; got != tc.want {
			t.Errorf("mode %s, terminal %v, NO_COLOR %v: palette colours %v, want %v", tc.mode, tc.outTTY, tc.noColr, got, tc.want)
		}
	}
}

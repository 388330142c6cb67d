package iostreams

import (
	"os"
	"testing"
)

// TestColumns: COLUMNS first, then SNAPCTL_FORCE_TTY's width, then the
// terminal's, then 80; what is not a positive number is skipped.
func TestColumns(t *testing.T) {
	cases := []struct {
		name, env, force string
		term, want       int
	}{
		{"COLUMNS first", "100", "120", 90, 100},
		{"then SNAPCTL_FORCE_TTY", "", "120", 90, 120},
		{"then the terminal", "", "yes", 90, 90},
		{"not numbers", "wide", "x", 90, 90},
		{"zero and negative are unset", "0", "-5", 0, defaultColumns},
		{"nothing says", "", "", 0, defaultColumns},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := columns(tc.env, tc.force, func() int { return tc.term }); got != tc.want {
				t.Errorf("got %d, want %d", got, tc.want)
			}
		})
	}
}

// TestTerminalColumnsNotATerminal: a file that is no terminal has no
// width, so that COLUMNS or the default applies.
func TestTerminalColumnsNotATerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := terminalColumns(f); got != 0 {
		t.Errorf("got %d, want 0", got)
	}
}

package explore

import (
	"io"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/charmbracelet/colorprofile"
)

// TestDrawProfileFollowsPalette checks that the explorer colours exactly
// when every other command would: --color always colours even with
// NO_COLOR set or off a terminal (bubbletea's own detection turned it off),
// and without colour the program keeps its own detection.
func TestDrawProfileFollowsPalette(t *testing.T) {
	always := (&iostreams.IOStreams{ColorMode: "always", NoColor: true}).Palette()
	never := (&iostreams.IOStreams{ColorMode: "never"}).Palette()
	cases := []struct {
		name    string
		pal     iostreams.Palette
		environ []string
		colour  bool
	}{
		{name: "always, NO_COLOR set", pal: always, environ: []string{"NO_COLOR=1", "TERM=xterm-256color"}, colour: true},
		{name: "always, dumb terminal", pal: always, environ: []string{"TERM=dumb"}, colour: true},
		{name: "always, truecolor kept", pal: always, environ: []string{"COLORTERM=truecolor", "TERM=xterm-256color"}, colour: true},
		{name: "never", pal: never, environ: []string{"TERM=xterm-256color"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := drawProfile(tc.pal, io.Discard, tc.environ)
			switch {
			case tc.colour && (p == nil || *p < colorprofile.ANSI):
				t.Errorf("profile %v, want ANSI or more", p)
			case !tc.colour && p != nil:
				t.Errorf("profile %v, want bubbletea's own detection (nil)", *p)
			}
		})
	}
	// TTY_FORCE stands for the terminal explore always draws on.
	env := []string{"COLORTERM=truecolor", "NO_COLOR=1", "TERM=xterm-256color", "TTY_FORCE=1"}
	if p := drawProfile(always, io.Discard, env); p == nil || *p != colorprofile.TrueColor {
		t.Errorf("a truecolor terminal with NO_COLOR and --color always: profile %v, want TrueColor", p)
	}
}

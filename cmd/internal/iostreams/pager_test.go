package iostreams

import (
	"errors"
	"os"
	"testing"
)

func TestPagerCommand(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"SNAPCTL_PAGER first", map[string]string{"SNAPCTL_PAGER": "most", "PAGER": "more"}, "most"},
		{"then PAGER", map[string]string{"PAGER": "more -s"}, "more -s"},
		{"empty is unset", map[string]string{"SNAPCTL_PAGER": " ", "PAGER": "more"}, "more"},
		{"cat is no pager", map[string]string{"SNAPCTL_PAGER": "cat", "PAGER": "more"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := PagerCommand(func(k string) string { return tc.env[k] }); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestPagerQuit checks that writing to a pager the user has quit is
// ErrPagerQuit, which run treats as success.
func TestPagerQuit(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	if _, err := (&pagerWriter{w: w}).Write([]byte("row\n")); !errors.Is(err, ErrPagerQuit) {
		t.Errorf("write to a closed pager: %v, want ErrPagerQuit", err)
	}
}

// TestFindPager: a plain command line whose command cannot run is an
// error, so that output falls back to the terminal; one the shell reads
// first, or that the shell's own command begins, is left to the shell.
func TestFindPager(t *testing.T) {
	for _, tc := range []struct {
		cmdline string
		fails   bool
	}{
		{"cat", false},
		{"cat -u", false},
		{"exec cat", false},
		{"no-such-pager-here", true},
		{"no-such-pager-here -R", true},
		{"/no/such/pager", true},
		{"no-such-pager-here; cat", false},
		{"LESS=R no-such-pager-here", false},
		// Arguments the shell expands, or that hold an "=", do not change
		// the command: still one that cannot run.
		{"no-such-pager-here --wheel-lines=3", true},
		{"no-such-pager-here ~/x *.log [a] #c {} ! %1 ^", true},
		{"no-such-pager-here 'x'", false},
		{"no-such-pager-here $X", false},
		{"~/no-such-pager-here", false},
		{"no-such-pager-here* -R", false},
	} {
		if err := findPager(tc.cmdline); (err != nil) != tc.fails {
			t.Errorf("findPager(%q) = %v, want an error: %v", tc.cmdline, err, tc.fails)
		}
	}
}

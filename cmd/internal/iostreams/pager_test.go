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

package text

import "testing"

func TestPlural(t *testing.T) {
	cases := []struct {
		n    int
		word string
		want string
	}{
		{0, "line", "0 lines"},
		{1, "line", "1 line"},
		{2, "byte", "2 bytes"},
		{-1, "turn", "-1 turns"},
	}
	for _, tc := range cases {
		if got := Plural(tc.n, tc.word); got != tc.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", tc.n, tc.word, got, tc.want)
		}
	}
}

func TestOrList(t *testing.T) {
	cases := []struct {
		name  string
		names []string
		want  string
	}{
		{"none", nil, ""},
		{"one", []string{"a"}, "a"},
		{"two", []string{"a", "b"}, "a or b"},
		{"three", []string{"a", "b", "c"}, "a, b or c"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := OrList(tc.names); got != tc.want {
				t.Errorf("OrList(%q) = %q, want %q", tc.names, got, tc.want)
			}
		})
	}
}

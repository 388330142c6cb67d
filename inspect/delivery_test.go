package inspect

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDeliveryGap pins delivery-gap on testdata/inspect/delivery-gap.jsonl
// (a record capture: exchange 1 quiet 3.1 s between lines emitted 10 ms
// apart, exchange 2 quiet 4.5 s between lines emitted 4.5 s apart) and
// on variants of it: the longest gap names its cause, a stream held on
// the way is told from a paused server, and gaps under DeliveryStall are
// not reported.
func TestDeliveryGap(t *testing.T) {
	data, err := os.ReadFile("../testdata/inspect/delivery-gap.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	only1 := func() string { // exchange 1 alone: lines up to its end record
		for i, l := range lines {
			if strings.HasPrefix(l, `{"snapctl":"end","req":1`) {
				return strings.Join(lines[:i+1], "\n") + "\n"
			}
		}
		t.Fatal("no end record of exchange 1")
		return ""
	}
	cases := []struct {
		name, capture, want string
	}{
		{"paused server", string(data), "2 lines of a response arrived 2s or more after the line before it; the longest, 4.5s in request 2 (session s-stall), emitted 4.5s apart: the server paused"},
		{"held on the way", only1(), "1 line of a response arrived 2s or more after the line before it; the longest, 3.1s in request 1 (session s-stall), emitted 10ms apart: they were held on the way, not late from the server"},
		{"under the stall", strings.NewReplacer("12:00:03.300Z", "12:00:02.100Z", "12:00:09.600Z", "12:00:07.000Z").Replace(string(data)), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "c.jsonl")
			if err := os.WriteFile(p, []byte(c.capture), 0o644); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range run(t, Options{}, p).Findings {
				if f.ID == DeliveryGap {
					got = append(got, f.Message)
				} else {
					t.Errorf("unexpected %s: %s", f.ID, f.Message)
				}
			}
			switch {
			case c.want == "" && len(got) > 0:
				t.Errorf("delivery-gap %q, want none", got)
			case c.want != "" && (len(got) != 1 || got[0] != c.want):
				t.Errorf("delivery-gap %q, want %q", got, c.want)
			}
		})
	}
}

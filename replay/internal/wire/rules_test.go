package wire

import (
	"testing"
	"time"
)

// The decoder's instant agrees with time.Parse on every form emittedAt
// may take: seconds and fraction optional, any number of fraction digits,
// Z or an offset either way.
func TestEmittedTime(t *testing.T) {
	cases := map[string]string{
		"2026-07-11T03:00Z":                    "2026-07-11T03:00:00Z",
		"2026-07-11T03:00:59Z":                 "2026-07-11T03:00:59Z",
		"2026-07-11T03:00:01.5Z":               "2026-07-11T03:00:01.5Z",
		"2026-07-11T03:00:01.123456789123Z":    "2026-07-11T03:00:01.123456789Z",
		"2026-07-11T03:00+02:00":               "2026-07-11T01:00:00Z",
		"2026-07-11T00:30:00.250-01:45":        "2026-07-11T02:15:00.25Z",
		"2024-02-29T23:59:59.999+00:00":        "2024-02-29T23:59:59.999Z",
		"0000-01-01T00:00:00Z":                 "0000-01-01T00:00:00Z",
		"9999-12-31T23:59:59.9999999999-23:59": "10000-01-01T23:58:59.999999999Z",
	}
	for in, want := range cases {
		if !isEmittedAt([]byte(in)) {
			t.Fatalf("%s: not an emittedAt", in)
		}
		got := emittedTime([]byte(in)).UTC()
		w, err := time.Parse(time.RFC3339Nano, want)
		if err != nil && want[0] != '1' {
			t.Fatal(err)
		}
		if want[0] == '1' { // year 10000 is past what RFC 3339 parses
			w = time.Date(10000, 1, 1, 23, 58, 59, 999999999, time.UTC)
		}
		if !got.Equal(w) {
			t.Errorf("%s: got %s, want %s", in, got.Format(time.RFC3339Nano), w.Format(time.RFC3339Nano))
		}
	}
}

package inspect

import (
	"strings"
	"time"
)

// parseEmittedAt reads a protocol emittedAt (already checked by the
// decoder): seconds and fraction are optional, the zone is Z or ±HH:MM.
func parseEmittedAt(s string) (time.Time, bool) {
	layout := "2006-01-02T15:04:05Z07:00"
	// Without seconds the zone follows the minutes directly: "T03:00Z".
	if i := strings.IndexByte(s, 'T'); i >= 0 && len(s) > i+6 && s[i+6] != ':' {
		layout = "2006-01-02T15:04Z07:00"
	}
	t, err := time.Parse(layout, s)
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}

// instant is an emittedAt as written and as parsed.
type instant struct {
	raw string
	t   time.Time
	ok  bool
}

func newInstant(s string) instant {
	t, ok := parseEmittedAt(s)
	return instant{raw: s, t: t, ok: ok}
}

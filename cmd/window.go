package cmd

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/replay"
)

// windowFlags are --lines, --since and --until as given.
type windowFlags struct {
	Lines, Since, Until string
}

// window parses the flags into a replay window, nil when none is set.
// Every bad value gets a sentence that says what is wanted.
func (w windowFlags) window() (*replay.Window, error) {
	if w.Lines == "" && w.Since == "" && w.Until == "" {
		return nil, nil
	}
	win := &replay.Window{}
	if w.Lines != "" {
		rs, err := parseLineRanges(w.Lines)
		if err != nil {
			return nil, err
		}
		win.Lines = rs
	}
	var err error
	if win.Since, win.SinceOffset, err = parseInstant("--since", w.Since); err != nil {
		return nil, err
	}
	if win.Until, win.UntilOffset, err = parseInstant("--until", w.Until); err != nil {
		return nil, err
	}
	if !win.Since.IsZero() && !win.Until.IsZero() && win.Until.Before(win.Since) {
		return nil, usageErrorf("--until %s is before --since %s", w.Until, w.Since)
	}
	if win.SinceOffset != nil && win.UntilOffset != nil && *win.UntilOffset < *win.SinceOffset {
		return nil, usageErrorf("--until %s is before --since %s", w.Until, w.Since)
	}
	return win, nil
}

// parseLineRanges parses "100-200", "5", "100-" and lists of them,
// comma-separated.
func parseLineRanges(list string) ([]replay.LineRange, error) {
	var out []replay.LineRange
	for _, part := range strings.Split(list, ",") {
		part = strings.TrimSpace(part)
		first, last, isRange := strings.Cut(part, "-")
		r := replay.LineRange{}
		var err1, err2 error
		r.First, err1 = strconv.Atoi(first)
		switch {
		case !isRange:
			r.Last = r.First
		case last != "":
			r.Last, err2 = strconv.Atoi(last)
		}
		if err1 != nil || err2 != nil || r.First < 1 || (isRange && last != "" && r.Last < r.First) {
			return nil, usageErrorf("--lines %q: give line numbers from 1 as N, N-M or N-, comma-separated (like 100-200 or 2,4-8)", list)
		}
		out = append(out, r)
	}
	return out, nil
}

// parseInstant parses a --since or --until value: an emittedAt instant,
// or a duration from the capture's start.
func parseInstant(flag, v string) (time.Time, *time.Duration, error) {
	if v == "" {
		return time.Time{}, nil, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil, nil
	}
	if d, err := time.ParseDuration(strings.TrimPrefix(v, "+")); err == nil && d >= 0 {
		return time.Time{}, &d, nil
	}
	return time.Time{}, nil, usageErrorf("%s %q is neither an instant like 2026-07-11T03:00:00Z nor a duration from the capture's start like 90s or 5m", flag, v)
}

// checkWindow fails when a window kept no line of a capture that has
// some, saying how much there is.
func (c *captureFlags) checkWindow(in replay.Stats, counts replay.Counts) error {
	if c.window == nil || counts.Events > 0 || in.Lines-in.Blank == 0 {
		return nil
	}
	var given []string
	for _, f := range []struct{ name, v string }{{"--lines", c.win.Lines}, {"--since", c.win.Since}, {"--until", c.win.Until}} {
		if f.v != "" {
			given = append(given, f.name+" "+f.v)
		}
	}
	return usageErrorf("%s matches nothing: the capture has %s", strings.Join(given, " "), fmt.Sprintf("%s (%d blank)", text.Plural(in.Lines, "line"), in.Blank))
}

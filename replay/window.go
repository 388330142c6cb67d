package replay

import "time"

// Window keeps part of a capture: the lines in Lines and the events
// emitted from Since to Until. Lines outside it are skipped before the
// cursor, as if the capture held only the window, so every command sees
// the same part; the reader's Stats still count every line read.
type Window struct {
	// Lines are the line ranges kept, by line number in each file; none
	// keeps every line.
	Lines []LineRange
	// Since and Until bound emittedAt, both inclusive; each is an
	// instant, or an offset from the capture's start (the emittedAt of
	// its first decoded event) when the Offset is set.
	Since, Until             time.Time
	SinceOffset, UntilOffset *time.Duration
}

// LineRange is the lines First to Last, inclusive; Last 0 means to the
// end.
type LineRange struct{ First, Last int }

// timed says whether the window bounds emittedAt.
func (w *Window) timed() bool {
	return !w.Since.IsZero() || !w.Until.IsZero() || w.SinceOffset != nil || w.UntilOffset != nil
}

func (w *Window) hasLine(n int) bool {
	if len(w.Lines) == 0 {
		return true
	}
	for _, r := range w.Lines {
		if n >= r.First && (r.Last == 0 || n <= r.Last) {
			return true
		}
	}
	return false
}

// windowState is a run's progress through its window: the capture's
// start, and whether the last decoded event was inside, which the
// malformed lines after it follow.
type windowState struct {
	start   time.Time
	started bool
	inside  bool
	since   time.Time
	until   time.Time
}

// keep says whether the line l, decoded as ev or err, is in the window.
func (r *Runner) keep(file string, line int, ev *Event, err *DecodeError) bool {
	w := r.opts.Window
	if w == nil {
		return true
	}
	if !w.hasLine(line) {
		return false
	}
	if !w.timed() {
		return true
	}
	s := &r.win
	if err != nil {
		return s.inside
	}
	if !s.started {
		s.start, s.started = ev.Emitted, true
		s.since, s.until = w.Since, w.Until
		if w.SinceOffset != nil {
			s.since = s.start.Add(*w.SinceOffset)
		}
		if w.UntilOffset != nil {
			s.until = s.start.Add(*w.UntilOffset)
		}
	}
	s.inside = (s.since.IsZero() || !ev.Emitted.Before(s.since)) && (s.until.IsZero() || !ev.Emitted.After(s.until))
	return s.inside
}

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
	// hasSince and hasUntil say whether since and until bound the window:
	// an offset from a capture that starts at the zero time (year 1, what
	// a server sends for a time it never set) is the zero time too.
	hasSince, hasUntil bool
}

// keep says whether the line l, decoded as ev or err, is in the window,
// and notes the turns the window ends (Summary.PastWindow).
func (r *Runner) keep(l *Line, ev *Event, err *DecodeError) bool {
	if r.opts.Window == nil {
		return true
	}
	in := r.inWindow(l.Num, ev, err)
	if err == nil {
		r.noteWindow(l, ev, in)
	}
	if !in {
		r.leftOut++
		if l.TooLong {
			r.tooLongOut++
		}
	}
	return in
}

// inWindow says whether line number line, decoded as ev or err, is in
// the window.
//
// Every decoded event sets whether the time bounds hold, kept by --lines
// or not: a malformed line, which has no time, is in them when the event
// before it in the capture is. One before any event is at the capture's
// start: in them unless --since is a later offset (an instant may be
// before or after the start, unknown yet: the line is kept).
func (r *Runner) inWindow(line int, ev *Event, err *DecodeError) bool {
	w := r.opts.Window
	if !w.timed() {
		return w.hasLine(line)
	}
	s := &r.win
	switch {
	case err == nil:
		if !s.started {
			// The capture's start is its first decoded event, whether
			// or not --lines keeps it: an offset counts from there.
			s.start, s.started = ev.Emitted, true
			s.since, s.until = w.Since, w.Until
			s.hasSince, s.hasUntil = !w.Since.IsZero(), !w.Until.IsZero()
			if w.SinceOffset != nil {
				s.since, s.hasSince = s.start.Add(*w.SinceOffset), true
			}
			if w.UntilOffset != nil {
				s.until, s.hasUntil = s.start.Add(*w.UntilOffset), true
			}
		}
		s.inside = (!s.hasSince || !ev.Emitted.Before(s.since)) && (!s.hasUntil || !ev.Emitted.After(s.until))
	case !s.started:
		// Only a later offset is known to start after the capture's
		// start; of an instant nothing is known yet, and the line is
		// kept rather than lost.
		s.inside = w.SinceOffset == nil || *w.SinceOffset <= 0
	}
	return w.hasLine(line) && s.inside
}

// WindowCut is where the capture goes on with a turn past the window: the
// first line of the turn that the window left out after the last line of
// its session it kept, when that line was of the same turn.
type WindowCut struct {
	File        string
	Line, Entry int
}

// windowTurn names a turn of a session.
type windowTurn struct{ session, turn string }

// windowCuts is what a run notes of the turns its window ends: open maps
// each session to the turn of the last event of it the window kept, until
// the window leaves out an event of the session; cut holds the turns the
// window ended while the capture went on with them (an event of the turn
// left out right after the session's last kept one), until a later event
// of the turn is kept. Both hold a few entries a session at most, and
// nothing without a window.
type windowCuts struct {
	open map[string]string
	cut  map[windowTurn]WindowCut
	// left counts, by session, the events the window left out since the
	// session's last kept one (Result.LeftOut), of the sessions the run
	// has kept an event of: at most one entry each.
	left map[string]int
}

// noteWindow notes what a decoded event says of the turns the window
// ends: kept (in), it opens its session's turn and takes back a cut of
// that turn noted before (the window has more of it); left out, it cuts
// its session's open turn if it is of that turn, and closes it either
// way, so that only the session's first event past its last kept one
// counts.
func (r *Runner) noteWindow(l *Line, ev *Event, in bool) {
	c := &r.cuts
	if !in {
		// Only of a session kept before: a window of a few lines of a
		// capture of many sessions holds nothing of those it never keeps.
		if _, kept := r.sessions[ev.SessionID]; kept {
			if c.left == nil {
				c.left = map[string]int{}
			}
			c.left[ev.SessionID]++
		}
	}
	if ev.TurnID == "" {
		return
	}
	if in {
		if c.open == nil {
			c.open = map[string]string{}
		}
		c.open[ev.SessionID] = ev.TurnID
		if len(c.cut) > 0 {
			delete(c.cut, windowTurn{ev.SessionID, ev.TurnID})
		}
		return
	}
	t, ok := c.open[ev.SessionID]
	if !ok {
		return
	}
	delete(c.open, ev.SessionID)
	if t != ev.TurnID {
		return
	}
	if c.cut == nil {
		c.cut = map[windowTurn]WindowCut{}
	}
	at := WindowCut{File: l.File, Line: l.Num}
	if l.Origin != nil {
		at.Entry = l.Origin.Entry
	}
	c.cut[windowTurn{ev.SessionID, t}] = at
}

// PastWindow is where the capture goes on with the turn of session past
// the window (WindowCut), when the window ended the turn: the session's
// last event in the window is of the turn and the line the window left
// out right after it too. A turn the window cut so may have ended
// otherwise than the window shows; false without a window, and for a
// turn the capture has no more of.
func (s *Summary) PastWindow(session, turn string) (WindowCut, bool) {
	at, ok := s.cuts[windowTurn{session, turn}]
	return at, ok
}

// WindowCuts is how many turns the window ended (PastWindow).
func (s *Summary) WindowCuts() int { return len(s.cuts) }

// WindowEnds are the turns a run's window ended (Summary.PastWindow), for
// a run of the lines the window kept, read again without it (explore's
// what-if): the capture goes on past the window all the same.
type WindowEnds struct{ cuts map[windowTurn]WindowCut }

// WindowEnds are the turns the window ended (PastWindow).
func (s *Summary) WindowEnds() WindowEnds { return WindowEnds{s.cuts} }

// SetWindowEnds makes w the turns the window ended (PastWindow).
func (s *Summary) SetWindowEnds(w WindowEnds) { s.cuts = w.cuts }

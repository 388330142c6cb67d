package replay

import "bytes"

// sseFramer dispatches Server-Sent Events as the WHATWG HTML standard's
// event stream interpretation does: data lines are joined with "\n", a
// blank line dispatches, comments, event and retry fields are ignored
// and id is kept. Lines end in LF, CRLF or a lone CR. An event's
// position is its first data line.
type sseFramer struct {
	maxLine int
	data    joined
	first   Line // the first data line of the event being built
	has     bool // the event has a data field
	// origin holds the last event id, shared by the events dispatched
	// until it changes: an id may be as long as a line, and a stream
	// may send it once for many events.
	origin *Origin
	rec    Line
	// queue holds the events dispatched by a line that lone CRs split
	// into several, their data copied.
	queue []Line

	mix *mixer // under --format auto
}

func (s *sseFramer) line(l Line) (Line, bool) {
	if l.TooLong || bytes.IndexByte(l.Data, '\r') < 0 {
		return s.field(l)
	}
	for _, seg := range bytes.Split(l.Data, []byte{'\r'}) {
		sub := l
		sub.Data, sub.Len = seg, int64(len(seg))
		if rec, ok := s.field(sub); ok {
			rec.Data = bytes.Clone(rec.Data)
			s.queue = append(s.queue, rec)
		}
	}
	return s.pending()
}

func (s *sseFramer) pending() (Line, bool) {
	if len(s.queue) == 0 {
		return Line{}, false
	}
	l := s.queue[0]
	s.queue = s.queue[1:]
	return l, true
}

// field takes one line of the stream.
func (s *sseFramer) field(l Line) (Line, bool) {
	if l.TooLong {
		// A field too long to hold: the event it belongs to is too long.
		if !l.blank {
			s.start(l)
			s.data.skip(l.Len + 1)
		}
		return Line{}, false
	}
	d := l.Data
	if len(d) == 0 {
		return s.dispatch()
	}
	if d[0] == ':' {
		return Line{}, false // a comment
	}
	field, value := d, []byte(nil)
	if i := bytes.IndexByte(d, ':'); i >= 0 {
		field, value = d[:i], d[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	if !isSSEField(d) {
		// A browser ignores a field it does not know; a line that reads as
		// an NDJSON event is one, in a capture mostly SSE.
		if s.mix.passes(l) {
			return l, true
		}
		if !isBlank(d) {
			s.mix.framing(l, FormatSSE, "unknown field")
		}
		return Line{}, false
	}
	switch string(field) {
	case "data":
		// Each data line adds its value and a newline, which the last
		// one's does not count to the limit.
		s.start(l)
		s.data.add(value, s.maxLine)
		s.data.add(newline, s.maxLine+1)
	case "id":
		if bytes.IndexByte(value, 0) < 0 && (s.origin == nil || string(value) != s.origin.LastEventID) {
			s.origin = nil
			if len(value) > 0 {
				s.origin = &Origin{LastEventID: string(value)}
			}
		}
	}
	return Line{}, false
}

// start notes l as the event's first data line, unless it has one.
func (s *sseFramer) start(l Line) {
	if !s.has {
		s.has, s.first = true, l
		s.data.start()
	}
}

var newline = []byte{'\n'}

// dispatch ends the event at a blank line; an event without data is
// not dispatched, as in a browser.
func (s *sseFramer) dispatch() (Line, bool) {
	if !s.has {
		return Line{}, false
	}
	s.rec = s.event()
	return s.rec, true
}

// event is the record of the event built so far, and resets the builder.
// Its data is without the last data line's newline; too long, it has its
// real length (a line too long to hold counts whole, field name and all).
func (s *sseFramer) event() Line {
	d := &s.data
	l := Line{File: s.first.File, Num: s.first.Num, Off: s.first.Off, Len: d.size - 1, Origin: s.origin}
	if d.over {
		l.TooLong = true
	} else {
		l.Data = d.data[:len(d.data)-1]
	}
	s.has = false
	return l
}

func (s *sseFramer) flush() (Line, bool) {
	if !s.has {
		return Line{}, false
	}
	l := s.event()
	l.TooLong = false
	l.bad = formatProblem(FormatSSE, "the stream ended in the middle of an event (no blank line after its data), which a browser never dispatches")
	l.cut = true
	return l, true
}

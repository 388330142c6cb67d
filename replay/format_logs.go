package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// stopsShort says whether b is JSON that is good as far as it goes but
// ends before its value does: what a cut leaves.
func stopsShort(b []byte) bool {
	var raw json.RawMessage
	var se *json.SyntaxError
	return errors.As(json.Unmarshal(b, &raw), &se) && se.Offset >= int64(len(b))
}

// beginsAsEntry says whether b begins as a json-file entry does, or is
// cut before its first key is whole ({"lo).
func beginsAsEntry(b []byte) bool {
	b, head := bytes.TrimLeft(b, " \t"), []byte(`{"log":`)
	return bytes.HasPrefix(b, head) || len(b) > 0 && bytes.HasPrefix(head, b)
}

// partial is a container log message being joined from several entries
// of one stream (stdout or stderr).
type partial struct {
	msg      joined
	first    Line // the first entry's line
	loggedAt string
	entries  int
	// cutLast is set when the log ends inside the message's last entry
	// (Docker's), which has no piece in msg.
	cutLast bool
}

// add appends one entry's piece of the message.
func (p *partial) add(l Line, piece []byte, loggedAt string, maxLine int) {
	if p.entries == 0 {
		p.first, p.loggedAt = l, loggedAt
		p.msg.start()
	}
	p.entries++
	p.msg.add(piece, maxLine)
}

// addHeld is add for a piece of which only the first len(held) of its
// size bytes may be held, and whose last two bytes are end: see
// joined.addHeld.
func (p *partial) addHeld(l Line, held []byte, size int64, end [2]byte, loggedAt string, maxLine int) {
	if p.entries == 0 {
		p.first, p.loggedAt = l, loggedAt
		p.msg.start()
	}
	p.entries++
	p.msg.addHeld(held, size, end, maxLine)
}

// take returns the joined message as an event record and resets p. trim
// is the length of the line ending of its last piece, which is not part
// of the message. A message longer than maxLine is too long, with its
// real length.
func (p *partial) take(trim, maxLine int) Line {
	m := &p.msg
	l := Line{File: p.first.File, Num: p.first.Num, Off: p.first.Off, Len: m.size - int64(trim),
		Origin: &Origin{LoggedAt: p.loggedAt}}
	if m.over || l.Len > int64(maxLine) {
		l.TooLong = true
	} else {
		l.Data = m.data[:len(m.data)-trim]
	}
	p.entries = 0
	return l
}

// streamIndex is the partial of a log stream: 0 stdout, 1 stderr.
func streamIndex(s []byte) int {
	if string(s) == "stderr" {
		return 1
	}
	return 0
}

// dockerFramer reads Docker's json-file log driver: one JSON entry a
// line, {"log":"…\n","stream":"stdout","time":"…"}. Docker splits a
// message over 16 KiB into several entries, and only the last one's log
// ends in a newline: they are joined, per stream.
type dockerFramer struct {
	maxLine int
	mix     *mixer
	parts   [2]partial
	entry   dockerEntry
	// scan reads each entry from src, its line; own holds a log that
	// could not be unescaped in place.
	scan *jsonScan
	src  bytes.Reader
	own  []byte
	rec  Line
}

func (d *dockerFramer) line(l Line) (Line, bool) {
	if l.TooLong {
		if l.blank {
			return Line{}, false
		}
		return l, true
	}
	if len(bytes.TrimSpace(l.Data)) == 0 {
		return Line{}, false
	}
	// The pieces hold the message's line ending, which does not count
	// to the limit.
	limit := d.maxLine + len("\r\n")
	if !d.decode(l.Data, limit) {
		if l.Unterminated && beginsAsEntry(l.Data) && stopsShort(l.Data) {
			// The log's last line, with no newline, begins as an entry
			// does and its JSON stops short: the log was cut inside it,
			// not mixed with NDJSON.
			if p := d.cutPart(l.Data); p != nil {
				// It goes on a message split over the entries before
				// it: one message is cut, told when the log ends.
				p.entries++
				p.cutLast = true
				return Line{}, false
			}
			l.bad, l.cut = formatProblem(FormatDocker, "the log ends inside its last json-file entry"), true
			return l, true
		}
		if d.mix.passes(l) {
			return l, true
		}
		l.bad = formatProblem(FormatDocker, `the line is not a json-file log entry {"log": "…", "stream": …, "time": …}`)
		return l, true
	}
	e := &d.entry
	p := &d.parts[0]
	if e.stderr {
		p = &d.parts[1]
	}
	whole := e.size > 0 && e.end[1] == '\n'
	if whole && p.entries == 0 {
		// A whole message: the event, straight from the line, taken as
		// a joined message of one piece would be.
		keep := p.msg.data
		p.first, p.loggedAt, p.entries = l, e.time, 1
		p.msg = joined{data: e.log, size: e.size, end: e.end, over: e.size > int64(limit)}
		d.rec = p.take(p.msg.newlineLen(), d.maxLine)
		p.msg.data = keep[:0]
		return d.rec, true
	}
	p.addHeld(l, e.log, e.size, e.end, e.time, limit)
	if !whole {
		return Line{}, false // split: the next entry of this stream goes on
	}
	// The newline is not part of the message, nor is a CR before it,
	// which an earlier piece may hold.
	d.rec = p.take(p.msg.newlineLen(), d.maxLine)
	return d.rec, true
}

func (d *dockerFramer) pending() (Line, bool) { return Line{}, false }

// cutPart is the message a cut last entry goes on: that of its stream
// when the entry got as far as to name it, else the only one waiting
// for its end; nil for none.
func (d *dockerFramer) cutPart(data []byte) *partial {
	switch {
	case bytes.Contains(data, []byte(`"stream":"stdout"`)):
		return d.waiting(0)
	case bytes.Contains(data, []byte(`"stream":"stderr"`)):
		return d.waiting(1)
	case d.parts[0].entries > 0 && d.parts[1].entries == 0:
		return &d.parts[0]
	case d.parts[1].entries > 0 && d.parts[0].entries == 0:
		return &d.parts[1]
	}
	return nil
}

// waiting is stream i's partial if a message of it waits for its end.
func (d *dockerFramer) waiting(i int) *partial {
	if d.parts[i].entries > 0 {
		return &d.parts[i]
	}
	return nil
}

func (d *dockerFramer) flush() (Line, bool) {
	for i := range d.parts {
		if p := &d.parts[i]; p.entries > 0 && p.cutLast {
			p.cutLast = false
			// entries counts the cut one and at least one before it.
			return p.cutShort(FormatDocker, fmt.Sprintf("the log ends inside the last of the %d json-file entries a message was split over", p.entries)), true
		}
	}
	return flushPartial(d.parts[:], FormatDocker, func(n int) string {
		if n == 1 {
			// Not split: the message's one entry ended without its end.
			return "the log ended inside a message whose only entry's log does not end in a newline"
		}
		return fmt.Sprintf("the log ended inside a message split over %d entries (the last entry's log does not end in a newline)", n)
	})
}

// cutShort takes the message of p, which the log ended inside, as a
// malformed event cut short (Result.Cut) that why tells of.
func (p *partial) cutShort(format Format, why string) Line {
	l := p.take(0, math.MaxInt)
	l.TooLong = false
	l.bad, l.cut = formatProblem(format, why), true
	return l
}

// flushPartial returns, as a malformed event, the first message of parts
// still waiting for its end when the log ended; why says so, given the
// number of entries it had.
func flushPartial(parts []partial, format Format, why func(entries int) string) (Line, bool) {
	for i := range parts {
		if p := &parts[i]; p.entries > 0 {
			return p.cutShort(format, why(p.entries)), true
		}
	}
	return Line{}, false
}

// criFramer reads the CRI container log format that kubelet writes:
// "TIMESTAMP STREAM P|F MESSAGE". P marks a partial line, continued by
// the following entries of the same stream up to an F.
type criFramer struct {
	maxLine int
	mix     *mixer
	parts   [2]partial
}

// criPrefix returns the length of a CRI line's "TIMESTAMP STREAM TAG "
// prefix, 0 when line does not start with one.
func criPrefix(line []byte) int {
	n := timestampPrefix(line)
	if n == 0 {
		return 0
	}
	rest := line[n:]
	var s int
	switch {
	case bytes.HasPrefix(rest, []byte("stdout ")), bytes.HasPrefix(rest, []byte("stderr ")):
		s = len("stdout ")
	default:
		return 0
	}
	tag := rest[s:]
	end := bytes.IndexByte(tag, ' ')
	if end < 0 {
		end = len(tag)
	}
	if end == 0 || (tag[0] != 'P' && tag[0] != 'F') {
		return 0
	}
	if end < len(tag) {
		end++
	}
	return n + s + end
}

func (c *criFramer) line(l Line) (Line, bool) {
	if l.TooLong {
		if l.blank {
			return Line{}, false
		}
		return l, true
	}
	if len(l.Data) == 0 {
		return Line{}, false
	}
	n := criPrefix(l.Data)
	if n == 0 {
		if c.mix.passes(l) {
			return l, true
		}
		l.bad = formatProblem(FormatCRI, "the line is not a CRI log line, TIMESTAMP STREAM P|F MESSAGE")
		return l, true
	}
	ts := timestampPrefix(l.Data)
	stream := l.Data[ts : ts+len("stdout")]
	tag := l.Data[ts+len("stdout "):]
	msg := l.Data[n:]
	p := &c.parts[streamIndex(stream)]
	if tag[0] == 'F' && p.entries == 0 {
		// A whole line: its message is the event, straight from the line.
		l.Origin = &Origin{LoggedAt: string(l.Data[:ts-1])}
		l.Data, l.Len = msg, int64(len(msg))
		return l, true
	}
	p.add(l, msg, string(l.Data[:ts-1]), c.maxLine)
	if tag[0] == 'P' {
		return Line{}, false
	}
	return p.take(0, c.maxLine), true
}

func (c *criFramer) pending() (Line, bool) { return Line{}, false }

func (c *criFramer) flush() (Line, bool) {
	return flushPartial(c.parts[:], FormatCRI, func(n int) string {
		return "the log ended inside a partial line: " + plural(n, "P entry", "P entries") + " never finished by an F entry"
	})
}

// kubectlFramer reads `kubectl logs --timestamps`: every line starts
// with its RFC 3339 timestamp and a space.
type kubectlFramer struct{ mix *mixer }

func (k kubectlFramer) line(l Line) (Line, bool) {
	if l.TooLong {
		if l.blank {
			return Line{}, false
		}
		return l, true
	}
	if len(bytes.TrimSpace(l.Data)) == 0 {
		return Line{}, false
	}
	n := timestampPrefix(l.Data)
	if n == 0 {
		if k.mix.passes(l) {
			return l, true
		}
		l.bad = formatProblem(FormatKubectl, "the line has no timestamp prefix (TIMESTAMP MESSAGE, as kubectl logs --timestamps writes)")
		return l, true
	}
	l.Origin = &Origin{LoggedAt: string(l.Data[:n-1])}
	l.Data = l.Data[n:]
	l.Len = int64(len(l.Data))
	return l, true
}

func (kubectlFramer) pending() (Line, bool) { return Line{}, false }

func (kubectlFramer) flush() (Line, bool) { return Line{}, false }

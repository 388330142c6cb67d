package replay

import (
	"fmt"
	"strings"
)

// Mixed is a capture that --format auto did not read all in one format:
// some of its lines were read as another format's framing (in front of
// NDJSON events), or as NDJSON events (amid another format's framing).
// Nothing in it is lost: each of those lines is listed in a run. It is a
// warning (Reader.Warnings), and listed in Stats.Mixed.
type Mixed struct {
	File   string
	Format Format // the format the rest of the capture was read in
	// Spans are the runs of lines read one way, in order; at most
	// maxMixedSpans, and More counts the lines of the spans left out.
	Spans []Span
	More  int
}

// Span is a run of a mixed capture's lines read one way.
type Span struct {
	First, Last int // 1-based physical lines
	Lines       int // its non-blank lines
	// As is FormatNDJSON for lines read as NDJSON events; another format
	// for lines read as its framing, not as events, and What then says
	// which framing ("comment", "data field", "log entry", …).
	As   Format
	What string
}

// maxMixedSpans is how many runs of a capture a Mixed lists: a capture
// that alternates formats line after line must not fill memory.
const maxMixedSpans = 16

func (m *Mixed) Error() string {
	var b strings.Builder
	b.WriteString(m.File)
	if m.Format != FormatNDJSON {
		fmt.Fprintf(&b, " (%s)", formatTitle(m.Format))
	}
	b.WriteString(": ")
	for i, s := range m.Spans {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(s.String())
	}
	if m.More > 0 {
		fmt.Fprintf(&b, "; %s so", plural(m.More, "more line", "more lines"))
	}
	return b.String()
}

// String says how the run was read: "line 1 read as SSE framing
// (comment)", "lines 2-15 read as NDJSON events".
func (r Span) String() string {
	lines := fmt.Sprintf("line %d", r.First)
	if r.Last > r.First {
		lines = fmt.Sprintf("lines %d-%d", r.First, r.Last)
	}
	if r.As == FormatNDJSON {
		return lines + " read as NDJSON events"
	}
	return fmt.Sprintf("%s read as %s framing (%s)", lines, formatTitle(r.As), r.What)
}

// formatTitle is how prose spells a format's name.
func formatTitle(f Format) string {
	switch f {
	case FormatNDJSON, FormatSSE, FormatHAR, FormatCRI:
		return strings.ToUpper(string(f))
	case FormatDocker:
		return "Docker"
	}
	return string(f)
}

// mixer builds, for a capture read under --format auto, its Mixed: the
// framer tells it of the lines it reads other than as its format. It is
// nil under an explicit --format, which reads exactly that format.
type mixer struct {
	m     Mixed
	noted int  // the line noted last
	open  bool // no other line came since: the last run may grow
}

// passes tells whether the framer should hand l on as an NDJSON event,
// which it cannot place but which looks like one, and notes it so.
func (x *mixer) passes(l Line) bool {
	if x == nil || l.TooLong || !looksLikeEvent(l.Data) {
		return false
	}
	x.note(l.Num, FormatNDJSON, "")
	return true
}

// framing notes l, which the framer reads as framing of f without it
// being any of f's syntax (an SSE field no browser knows).
func (x *mixer) framing(l Line, f Format, what string) {
	if x != nil {
		x.note(l.Num, f, what)
	}
}

func (x *mixer) note(num int, as Format, what string) {
	spans := x.m.Spans
	switch n := len(spans); {
	case n > 0 && x.open && spans[n-1].As == as && spans[n-1].What == what:
		if spans[n-1].Last != num {
			spans[n-1].Last = num
			spans[n-1].Lines++
		}
	case n < maxMixedSpans:
		x.m.Spans = append(spans, Span{First: num, Last: num, Lines: 1, As: as, What: what})
	case x.noted != num:
		x.m.More++
	}
	x.noted, x.open = num, true
}

// placed tells the mixer that non-blank line num was read in the
// capture's format, which ends the run being noted.
func (x *mixer) placed(num int) {
	if x != nil && x.noted != num {
		x.open = false
	}
}

package inspect

import (
	"slices"
	"sort"
)

// Severity says how bad a finding is.
type Severity string

// The three severities, worst first.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
)

// Severities lists every severity, worst first.
var Severities = []Severity{SeverityError, SeverityWarning, SeverityInfo}

// Rank orders severities: 0 for error, 1 for warning, 2 for info, 3 for
// anything else.
func (s Severity) Rank() int {
	for i, v := range Severities {
		if v == s {
			return i
		}
	}
	return len(Severities)
}

// AtLeast reports whether s is as bad as min or worse.
func (s Severity) AtLeast(min Severity) bool { return s.Rank() <= min.Rank() }

// The finding ids: stable names, part of the JSON contract.
const (
	InvalidEvent        = "invalid-event"
	TimestampSequence   = "timestamp-sequence"
	SequenceCollision   = "sequence-collision"
	MessageVanished     = "message-vanished"
	StatusRegression    = "status-regression"
	EmittedAtRegression = "emitted-at-regression"
	DuplicateEventID    = "duplicate-event-id"
	ForeignSession      = "foreign-session"
	OrphanSubmit        = "orphan-submit"
	StaleRedelivery     = "stale-redelivery"
	SequenceGap         = "sequence-gap"
	UnusableInput       = "unusable-input"
	RequestRefused      = "request-refused"
	TurnNeverAccepted   = "turn-never-accepted"
	OutOfOrder          = "out-of-order-delivery"
	GluedLines          = "glued-lines"
	CaptureCut          = "capture-cut"
	DeliveryGap         = "delivery-gap"
)

func checkIndex(id string) int {
	for i, c := range Checks {
		if c.ID == id {
			return i
		}
	}
	return len(Checks)
}

func severityOf(id string) Severity {
	if i := checkIndex(id); i < len(Checks) {
		return Checks[i].Severity
	}
	return SeverityInfo
}

// Position is one line of a capture: Entry is the 1-based HAR entry
// whose body holds it, Line then counting within that body; 0 for other
// formats.
type Position struct {
	File  string
	Line  int
	Entry int
}

// Finding is one class of problem seen in one session, with the lines
// involved.
type Finding struct {
	ID        string
	Severity  Severity
	SessionID string
	// Message explains the finding in one line.
	Message string
	// Positions are the lines involved, in capture order, at most
	// Options.MaxPositions of them.
	Positions []Position
	// PositionCount is how many lines are involved, listed or not.
	PositionCount int
}

// DefaultMaxPositions is how many positions a finding lists by default,
// so that a pathological capture cannot make a report grow without bound.
const DefaultMaxPositions = 100

// pos is a position with the file as an index into Inspector.files, so
// that positions sort in capture order and cost no string per line; the
// HAR entry takes the padding after it (a HAR's entries are counted in
// an int32 already, replay's slots).
type pos struct {
	file  int32
	entry int32
	line  int
}

func (p pos) less(q pos) bool {
	if p.file != q.file {
		return p.file < q.file
	}
	if p.entry != q.entry {
		return p.entry < q.entry
	}
	return p.line < q.line
}

// tally collects the instances of one finding in one session: how many,
// the first few positions, and a detail of the first instance.
type tally struct {
	n      int
	listed []pos
	total  int
	first  string
	// bit marks the lines this tally lists, in print.listed.
	bit uint8
}

// hit records one instance, with the detail of the first one.
func (t *tally) hit(detail string) {
	if t.n == 0 {
		t.first = detail
	}
	t.n++
}

// at records a position involved. Callers add each line at most once.
func (t *tally) at(limit int, p pos) {
	t.total++
	if len(t.listed) < limit {
		t.listed = append(t.listed, p)
	}
}

// finding turns a tally that found something into a Finding.
func (in *Inspector) finding(id, session string, t *tally, msg string) Finding {
	ps := append([]pos(nil), t.listed...)
	sort.Slice(ps, func(i, j int) bool { return ps[i].less(ps[j]) })
	f := Finding{ID: id, Severity: severityOf(id), SessionID: session, Message: msg, PositionCount: t.total,
		Positions: make([]Position, len(ps))}
	for i, p := range ps {
		f.Positions[i] = Position{File: in.files[p.file], Line: p.line, Entry: int(p.entry)}
	}
	return f
}

// sortFindings orders findings worst first, then by check, keeping the
// order of sessions within one check.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if a, b := fs[i].Severity.Rank(), fs[j].Severity.Rank(); a != b {
			return a < b
		}
		return checkIndex(fs[i].ID) < checkIndex(fs[j].ID)
	})
}

// Names reports whether the finding lists line of file, in any HAR
// entry: Cites names one line of a HAR.
func (f *Finding) Names(file string, line int) bool {
	for _, p := range f.Positions {
		if p.File == file && p.Line == line {
			return true
		}
	}
	return false
}

// Cites reports whether the finding lists the line at, of its HAR entry.
func (f *Finding) Cites(at Position) bool {
	return slices.Contains(f.Positions, at)
}

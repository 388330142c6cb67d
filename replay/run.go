package replay

import (
	"bytes"
	"encoding/json"

	"github.com/agentskit/snapctl/replay/internal/wire"
)

// Options configures a replay run.
type Options struct {
	// Session pins the trusted session. Empty means one independent cursor
	// per session named by a valid snapshot.
	Session string
	// Messages asks the decoder for each snapshot's message records.
	Messages bool
	// AllProblems asks for every problem of a malformed line.
	AllProblems bool
	// MaxLine is the reader's line limit, for the detail of a long line.
	MaxLine int
	// Idle, when set, is called whenever the run is about to wait for
	// input, so that buffered output can be flushed while a live stream
	// is quiet.
	Idle func()
	// Sessions, when set, is called with the number of sessions seen each
	// time a new one appears, so that a caller can budget memory per
	// session.
	Sessions func(n int)
	// EventPath is the gjson path of the event in each line of a wrapped
	// capture (Decoder.EventPath).
	EventPath string
	// Hash asks for each snapshot's payload hash (Decoder.Hash).
	Hash bool
	// BorrowMessages, with Messages, makes the strings of each snapshot's
	// messages point into the line as read instead of into a copy of it
	// (Decoder.Borrow): they are good only until fn returns, for a caller
	// that reads the messages and keeps nothing of them, not even
	// Snapshot.Messages itself, whose array the next line's messages
	// reuse (the inspector, which hashes and counts them; the differ,
	// which copies what it keeps: diff.Options.Borrowed). It saves copying
	// most of each line, and an array of messages for each snapshot.
	BorrowMessages bool
	// BriefMessages, with Messages, keeps of each message only its id,
	// role, status and content, for a caller that reads no other field
	// (the inspector's model, the lineage builder): the rest is checked
	// as always but not kept.
	BriefMessages bool
	// KeepRaw asks for each result's line as read (Result.Raw). Lines
	// are then decoded on the calling goroutine, where the reader's buffer
	// still holds them.
	KeepRaw bool
	// RawMalformed asks for Result.Raw of malformed lines only, which
	// costs nothing on the others (for a Sniffer).
	RawMalformed bool
	// RawFramed asks for Result.Raw of the lines a format other than
	// NDJSON gave (HAR, SSE, container logs: Result.Origin set, or not,
	// as for an SSE event before any id or a bare line in a log), whose
	// offset points at the transport's bytes and not at the event; it
	// costs nothing on NDJSON.
	RawFramed bool
	// Workers is the number of goroutines decoding lines; 0 means one per
	// CPU. Results are delivered in input order whatever the number.
	Workers int
	// Window, when set, keeps only part of the capture (see Window).
	Window *Window
}

// Result is what happened to one line: its position, the decoded event or
// the decode error, and the cursor's verdict.
type Result struct {
	File string
	Line int
	// Event is the decoded event, nil when the line is malformed. It is
	// reused by the next step: copy what must outlive the callback.
	Event  *Event
	Err    *DecodeError
	Reason Reason
	// Gap is the number of sequence values skipped by an advanced snapshot.
	Gap int64
	// Prev is the sequence accepted before this snapshot, for advanced.
	Prev int64
	// LeftOut is how many events of the event's session the window
	// (Options.Window) left out since the session's previous event it
	// kept: 0 without a window, and for the session's first event kept. A
	// sequence gap across them is the window's.
	LeftOut int
	// Session is the number of the event's session in the run, from 1 in
	// order of first appearance (Summary.Sessions[Session-1]), so that a
	// consumer can find its own state of the session without a map of
	// the ids; 0 for a malformed line, or a result no Runner made.
	Session int
	// Raw is the line as read, without its line ending, when the run was
	// asked for it (Options.KeepRaw, or RawMalformed for a malformed
	// line); nil for a line over the limit. It is
	// borrowed: valid only until the callback returns.
	Raw []byte
	// Origin is what the capture's format says of the event beyond its
	// position (Line.Origin); nil for NDJSON.
	Origin *Origin
	// Off is the line's byte offset in File (Line.Off), and Size its
	// length without its line ending: Line.Len for a line over the limit
	// (TooLong), else the length of its data. A result Apply made has
	// neither.
	Off, Size int64
	TooLong   bool
	// Framed is set on the results of a capture of another format than
	// NDJSON (HAR, SSE, container logs), Origin or not: Off is then the
	// transport's, not the event's.
	Framed bool
	// Cut is set on a malformed event that breaks off where its capture
	// ends, so that the capture shows it was cut short: a last line with
	// no newline whose JSON stops before its end, or a HAR document, an
	// SSE stream or a container log that ends inside an event.
	Cut bool
}

// lineResult is the result of line l before the cursor: its position.
func lineResult(l *Line) Result {
	size := int64(len(l.Data))
	if l.TooLong {
		size = l.Len
	}
	return Result{File: l.File, Line: l.Num, Origin: l.Origin, Off: l.Off, Size: size, TooLong: l.TooLong, Framed: l.isFramed()}
}

// cutShort says whether line l, decoded with err, breaks off where its
// capture ends (Result.Cut): its format says so, or it is the last line,
// with no newline, and its JSON is good as far as it goes but stops
// before its end.
func cutShort(l *Line, err *DecodeError) bool {
	if err == nil {
		return false
	}
	return l.cut || (l.Unterminated && l.bad == nil && !l.TooLong && err.Envelope == nil &&
		err.Code == CodeInvalidPayload && len(l.Data) > 0 && (err.Offset >= len(l.Data) || gluedCut(l.Data)))
}

// gluedCut says whether a last line is a server error body with an event
// glued after it (ErrorBodyPrefix) that its JSON stops short of: the
// capture ends inside that event, as curl >> capture.jsonl leaves it when
// the response after the body was cut.
func gluedCut(b []byte) bool {
	b = bytes.TrimLeft(b, " \t")
	if !bytes.HasPrefix(b, ErrorBodyPrefix) {
		return false
	}
	d := json.NewDecoder(bytes.NewReader(b))
	var body json.RawMessage
	if d.Decode(&body) != nil {
		return false
	}
	rest := bytes.TrimLeft(b[d.InputOffset():], " \t\r")
	return len(rest) > 0 && stopsShort(rest)
}

// wantsRaw says whether the result of line l, malformed with err or not,
// is to show the line (Result.Raw).
func (o *Options) wantsRaw(l *Line, err *DecodeError) bool {
	return !l.TooLong && (o.KeepRaw || (o.RawMalformed && err != nil) || (o.RawFramed && l.isFramed()))
}

// Verdict is the verdict that goes with the result's reason.
func (r *Result) Verdict() Verdict { return r.Reason.Verdict() }

// Runner runs lines through the cursor, keeping per-session counts. It
// holds one cursor per session (or one pinned cursor) and nothing per line.
type Runner struct {
	opts   Options
	dec    Decoder
	pinned *Cursor
	// sessions maps each session's id to its place in order.
	sessions map[string]int32
	order    []*SessionStats
	counts   Counts
	ev       Event
	win      windowState
	leftOut  int // lines the window left out (Stats.LeftOut)
	// tooLongOut counts the lines over the limit among them: the
	// summary's TooLong is of the window alone, as its other counts are.
	tooLongOut int
	cuts       windowCuts
}

// Counts tallies events by reason and malformed lines by code.
type Counts struct {
	Events  int
	Reasons map[Reason]int
	Codes   map[Code]int
	Kinds   map[Kind]int
}

// Accepted is the number of events the cursor accepted.
func (c Counts) Accepted() int { return acceptedIn(c.Reasons) }

func newCounts() Counts {
	return Counts{Reasons: map[Reason]int{}, Codes: map[Code]int{}, Kinds: map[Kind]int{}}
}

// SessionStats is what the run saw of one session.
type SessionStats struct {
	SessionID string
	// Events counts the session's lines: its valid events, and the
	// malformed lines whose envelope names it (Reasons[ReasonMalformed]).
	Events  int
	Reasons ReasonCounts
	// Final is the last accepted snapshot, if any.
	Final *Final
	// cursor is the session's own cursor, in use once cursor.inUse is
	// set; final is where Final points. Both live in the one allocation
	// of the session's stats: a capture of many sessions pays for each.
	cursor seqCursor
	final  Final
}

// Accepted is the number of the session's events the cursor accepted.
func (s *SessionStats) Accepted() int { return s.Reasons.Accepted() }

// ReasonCounts counts a session's events by reason, one counter per
// entry of Reasons in that order: 28 bytes where a map of the same
// counts took over 250, for every session of a capture. A counter is an
// int32, as inspect's per-session counts: 2³¹ events of one session
// would take a capture of hundreds of gigabytes.
type ReasonCounts [7]int32

// reasonIndex is the place of each reason in ReasonCounts.
var reasonIndex = func() map[Reason]int {
	m := make(map[Reason]int, len(Reasons))
	for i, r := range Reasons {
		m[r] = i
	}
	return m
}()

// Of is the count of reason r.
func (c *ReasonCounts) Of(r Reason) int {
	if i, ok := reasonIndex[r]; ok {
		return int(c[i])
	}
	return 0
}

// add counts one event of reason r; every reason the cursor gives is in
// Reasons, so none is dropped.
func (c *ReasonCounts) add(r Reason) {
	if i, ok := reasonIndex[r]; ok {
		c[i]++
	}
}

// Map is the counts as a map of the reasons that occurred, as JSON
// output writes them.
func (c *ReasonCounts) Map() map[Reason]int {
	m := map[Reason]int{}
	for i, n := range c {
		if n > 0 {
			m[Reasons[i]] = int(n)
		}
	}
	return m
}

// Accepted is the number of events whose reason's verdict is accepted.
func (c *ReasonCounts) Accepted() int {
	n := 0
	for i, v := range c {
		if Reasons[i].Verdict() == Accepted {
			n += int(v)
		}
	}
	return n
}

// acceptedIn sums the counts of the reasons whose verdict is accepted.
func acceptedIn(reasons map[Reason]int) int {
	n := 0
	for r, c := range reasons {
		if r.Verdict() == Accepted {
			n += c
		}
	}
	return n
}

// Final describes a session's last accepted snapshot: its current
// projection.
type Final struct {
	File     string
	Line     int
	Sequence int64
	TurnID   string
	Status   Status
	// Entry is the HAR entry whose body held the line (Origin.Entry), 0
	// for other formats: with File and Line, the snapshot's position.
	// It and MessageCount are int32s that share eight bytes, in every
	// session's stats.
	Entry        int32
	MessageCount int32
}

// Summary is the outcome of a whole run.
type Summary struct {
	Input  Stats
	Counts Counts
	// Pinned is the trusted session when one was given.
	Pinned string
	// Sessions lists every session seen, in order of first appearance.
	Sessions []*SessionStats
	// PerSession is true when no session was pinned and valid snapshots
	// named several sessions, each run through its own cursor.
	PerSession bool
	// cuts are the turns the window ended (PastWindow).
	cuts map[windowTurn]WindowCut
}

// SessionIDs are the ids of the sessions seen, in order of first
// appearance.
func (s Summary) SessionIDs() []string {
	ids := make([]string, len(s.Sessions))
	for i, st := range s.Sessions {
		ids[i] = st.SessionID
	}
	return ids
}

// decoder returns a decoder configured by the options.
func (o Options) decoder() Decoder {
	return Decoder{Messages: o.Messages, AllProblems: o.AllProblems, EventPath: o.EventPath, Hash: o.Hash, Borrow: o.BorrowMessages, Brief: o.BriefMessages}
}

// NewRunner returns a runner; a pinned session must be a safe identifier.
func NewRunner(opts Options) (*Runner, error) {
	r := &Runner{opts: opts, sessions: map[string]int32{}, counts: newCounts()}
	r.dec = opts.decoder()
	if opts.Session != "" {
		c, err := NewCursor(opts.Session)
		if err != nil {
			return nil, err
		}
		r.pinned = c
	}
	return r, nil
}

// Step decodes one line and applies it to its cursor.
func (r *Runner) Step(l Line) Result {
	res, _ := r.step(l)
	return res
}

// step is Step, reporting false for a line outside Options.Window, which
// is neither applied nor counted.
func (r *Runner) step(l Line) (Result, bool) {
	res := lineResult(&l)
	err := decodeLine(&r.dec, l, &r.ev, r.opts.MaxLine)
	if !r.keep(&l, &r.ev, err) {
		return res, false
	}
	if r.opts.wantsRaw(&l, err) {
		res.Raw = l.Data
	}
	r.apply(&res, &r.ev, err)
	res.Cut = cutShort(&l, err)
	return res, true
}

// Apply runs an event decoded earlier (nil with err for a malformed
// line) through the right cursor, as Step does after decoding, so that a
// caller that kept its events' envelopes can replay a changed sequence of
// lines without decoding them again. ev is not kept.
func (r *Runner) Apply(file string, line int, ev *Event, err *DecodeError) Result {
	res := Result{File: file, Line: line}
	r.apply(&res, ev, err)
	return res
}

// decodeLine decodes l into ev; a line over the reader's limit is
// malformed with snapctl's own code, without being looked at. So is a
// line over MaxLineLimit that did not come from a Reader: the decoder's
// offsets are 32-bit.
func decodeLine(d *Decoder, l Line, ev *Event, maxLine int) *DecodeError {
	if l.bad != nil {
		return l.bad
	}
	if maxLine <= 0 || maxLine > MaxLineLimit {
		maxLine = DefaultMaxLine
	}
	if !l.TooLong && len(l.Data) <= MaxLineLimit {
		return d.Decode(l.Data, ev)
	}
	n := l.Len
	if !l.TooLong {
		n, maxLine = int64(len(l.Data)), MaxLineLimit
	}
	return wire.LineTooLong(n, maxLine)
}

// apply runs a decoded line through the right cursor and counts it.
func (r *Runner) apply(res *Result, ev *Event, err *DecodeError) {
	r.counts.Events++
	if len(r.cuts.left) > 0 && err == nil {
		if n := r.cuts.left[ev.SessionID]; n > 0 {
			res.LeftOut = n
			delete(r.cuts.left, ev.SessionID)
		}
	}
	if err != nil {
		res.Err, res.Reason = err, ReasonMalformed
		r.counts.Codes[err.Code]++
		r.counts.Reasons[ReasonMalformed]++
		// A line whose envelope names its session counts to it, so that
		// a session's summary shows the broken events it was sent.
		if e := err.Envelope; e != nil && IsSafeIdentifier(e.SessionID) {
			s, _ := r.session(e.SessionID)
			s.Events++
			s.Reasons.add(ReasonMalformed)
		}
		return
	}
	res.Event = ev
	r.counts.Kinds[ev.Kind]++
	s, n := r.session(ev.SessionID)
	res.Session = n
	s.Events++
	switch c := r.pinned; {
	case c != nil:
		res.Prev, _ = c.Sequence()
		res.Reason, res.Gap = c.Apply(ev)
	case ev.Kind == KindSnapshot:
		// The session's own cursor: the event names its session.
		s.cursor.inUse = true
		res.Prev = s.cursor.sequence
		res.Reason, res.Gap = s.cursor.apply(ev)
	default:
		res.Reason = ReasonNonSnapshot
	}
	r.counts.Reasons[res.Reason]++
	s.Reasons.add(res.Reason)
	if res.Reason.Verdict() == Accepted {
		s.Final = &s.final
		*s.Final = Final{File: res.File, Line: res.Line, Sequence: ev.Sequence, TurnID: ev.TurnID,
			Status: ev.Snapshot.Status, MessageCount: int32(ev.Snapshot.MessageCount)}
		if res.Origin != nil {
			s.Final.Entry = int32(res.Origin.Entry)
		}
	}
}

// session returns the stats of a session and its number (Result.Session).
// A place fits in an int32: 2³¹ sessions would take some 400 GB of stats.
func (r *Runner) session(id string) (*SessionStats, int) {
	i, ok := r.sessions[id]
	if !ok {
		i = int32(len(r.order))
		r.sessions[id] = i
		r.order = append(r.order, &SessionStats{SessionID: id})
		if r.opts.Sessions != nil {
			r.opts.Sessions(len(r.order))
		}
	}
	return r.order[i], int(i) + 1
}

// Summary returns the counts so far.
func (r *Runner) Summary(in Stats) Summary {
	in.Window, in.LeftOut = r.opts.Window, r.leftOut
	in.TooLong -= r.tooLongOut
	sum := Summary{Input: in, Counts: r.counts, Pinned: r.opts.Session, Sessions: r.order, cuts: r.cuts.cut}
	if r.pinned == nil {
		n := 0
		for _, s := range r.order {
			if s.cursor.inUse {
				n++
			}
		}
		sum.PerSession = n > 1
	}
	return sum
}

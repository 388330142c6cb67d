// Package inspect explains a capture: an overview of what it holds and
// findings about the classes of server bug it shows (timestamp sequences,
// lost updates, vanished messages, regressions), each with the lines
// involved. It consumes what replay produces, through the analysis model
// (inspect/model) that lineage and diff share, and never prints.
package inspect

import (
	"fmt"
	"hash/maphash"

	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/replay"
)

// Options configures an inspection.
type Options struct {
	// Session pins the trusted session, as replay's --session.
	Session string
	// MaxLine is the reader's line limit.
	MaxLine int
	// EventPath is the gjson path of the event in wrapped lines.
	EventPath string
	// MaxPositions caps the positions listed per finding; 0 means
	// DefaultMaxPositions.
	MaxPositions int
	// Sessions is replay's Options.Sessions.
	Sessions func(n int)
	// Window keeps part of the capture, as replay.Options.Window.
	Window *replay.Window
	// Each, when set, sees every result of the run too, after the
	// inspector: for counts of the caller's own. In Run, the strings of
	// a snapshot's messages are good only until Each returns (see
	// replay.Options.BorrowMessages).
	Each func(res *replay.Result)
	// Workers is replay's Options.Workers: 0 decodes on every core, 1 on
	// the caller's goroutine (cheaper for the small captures that
	// reduce runs by the hundred).
	Workers int
	// Outcomes makes the model keep each turn's outcome, for a lineage
	// builder that shares it (Model, ObserveStep).
	Outcomes bool
	// Redact leaves out of the findings the free text a capture wrote
	// that is no id, status, code or count (an error body's message), as
	// the CLI's --redact.
	Redact bool
}

// maxTracked caps, in bytes over all sessions together, the fingerprints
// kept for past accepted sequences and for event ids (the ids' bytes
// included), the non-snapshot sequences kept between two accepted
// snapshots and the sessions met only in malformed lines: past it,
// sequence-collision against old sequences and duplicate-event-id for new
// ids are not checked, and a sequence-gap whose values may have been used
// by untracked events is not reported, so memory stays bounded on any
// capture, however many sessions it holds.
const maxTracked = 4 << 20

// Costs against maxTracked of what is not in the tables: a sequence kept
// between snapshots with its turn, and a session met in malformed lines (its map entry
// and tally, about).
const (
	betweenSize = 16
	invalidSize = 256
)

// Inspector watches the results of a replay run and builds a Report. The
// model keeps the sessions, turns and accepted projections; the inspector
// adds per-session counts and compact fingerprints, never the events
// themselves.
type Inspector struct {
	opts    Options
	limit   int
	seed    maphash.Seed
	files   []string
	fileIdx map[string]int32
	// model holds the sessions, their turns and accepted projections;
	// order has the inspector's own state of each, by the model's index.
	model *model.Model
	order []*session
	// events and bySeq are shared by every session and keyed by its
	// index, so that a session costs no table of its own. events maps
	// each event id to the fingerprint of its first line; bySeq holds the
	// accepted snapshots before each session's current one.
	events idTable
	bySeq  seqTable
	// used counts the bytes of events and bySeq, of every session's
	// between and of invalid, against budget (maxTracked but in tests).
	used, budget int
	// invalid tallies, by the session id their envelope names, the
	// malformed lines that could be read as events: invalid-event for
	// the sessions that turn out to be trusted.
	invalid map[string]*tally
	// sniff looks at malformed lines for unusable-input.
	sniff replay.Sniffer
	// refused collects the server's error bodies, for request-refused
	// and glued-lines.
	refused refusals
	// cut counts the events that break off where their capture ends
	// (capture-cut), cutFiles the captures they are in, cutFirst the
	// first of those and cutFile the last.
	cut               tally
	cutFiles          int
	cutFirst, cutFile string
	// pending is the submit on the line just before, whose turn an error
	// body on the next line of the same file refuses; nil after any other
	// line.
	pending *pendingSubmit
	// sentIn holds, for a capture snapctl record wrote, the submit each
	// open HTTP exchange carried (replay.Origin.Request), until its
	// response's first line: an error body is attributed to its own
	// exchange's submit, however the exchanges interleave. At most
	// maxOpenExchanges are held.
	sentIn map[int]*pendingSubmit
	// delivery follows a record capture's receipt times, for
	// delivery-gap.
	delivery delivery
}

// maxOpenExchanges bounds Inspector.sentIn whatever a capture holds.
const maxOpenExchanges = 1 << 12

// pendingSubmit is a submit that an error body may answer.
type pendingSubmit struct {
	turn          *model.Turn
	session, file string
}

// New returns an inspector.
func New(opts Options) *Inspector {
	in := &Inspector{opts: opts, limit: opts.MaxPositions, seed: maphash.MakeSeed(),
		fileIdx: map[string]int32{}, model: model.New(opts.Session, opts.Outcomes),
		budget: maxTracked, invalid: map[string]*tally{}}
	if in.limit <= 0 {
		in.limit = DefaultMaxPositions
	}
	in.sniff.Known = KnownMalformed(opts.EventPath)
	return in
}

// KnownMalformed is a replay.Sniffer's Known for a run with this
// --event-path: the server's error bodies, which request-refused tells.
func KnownMalformed(eventPath string) func(*replay.Result) bool {
	return func(res *replay.Result) bool {
		_, ok := ErrorBodyOf(res, eventPath)
		return ok
	}
}

// Run reads every line of rd through the cursor, as replay.Run does, and
// returns the report.
func Run(rd *replay.Reader, opts Options) (Report, error) {
	in := New(opts)
	// The inspector keeps nothing of a message: its strings need not be
	// copied out of the line (nor need those opts.Each sees).
	ropts := in.replayOptions()
	ropts.BorrowMessages = true
	sum, err := replay.Run(rd, ropts, func(res *replay.Result) error {
		in.Observe(res)
		if opts.Each != nil {
			opts.Each(res)
		}
		return nil
	})
	if err != nil {
		return Report{}, err
	}
	return in.Finish(sum), nil
}

// replayOptions are the options the inspector's results must come from:
// it needs each snapshot's message ids.
func (in *Inspector) replayOptions() replay.Options {
	return ReplayOptions(replay.Options{Session: in.opts.Session, MaxLine: in.opts.MaxLine, EventPath: in.opts.EventPath,
		Sessions: in.opts.Sessions, Window: in.opts.Window, Workers: in.opts.Workers})
}

// ReplayOptions is base with what an inspector's results need set: each
// snapshot's messages, brief (id, role, status, content: all the model
// and the lineage builder read), its hashes, and the raw malformed lines
// that may be the server's error bodies. A caller that runs an Inspector
// beside its own view (lineage, explore) uses it for the one run.
func ReplayOptions(base replay.Options) replay.Options {
	base.Messages, base.BriefMessages, base.Hash, base.RawMalformed = true, true, true, true
	return base
}

func (in *Inspector) pos(at model.Position) pos {
	i, ok := in.fileIdx[at.File]
	if !ok {
		i = int32(len(in.files))
		in.files = append(in.files, at.File)
		in.fileIdx[at.File] = i
	}
	return pos{file: i, entry: int32(at.Entry), line: at.Line}
}

// session returns the inspector's state of a model session: both meet
// sessions in the same order, on their first decoded event.
func (in *Inspector) session(m *model.Session) *session {
	if m.Index == len(in.order) {
		in.order = append(in.order, &session{m: m})
	}
	return in.order[m.Index]
}

// Observe takes one result of a run made with Messages set (see Run).
// Malformed lines count only to invalid-event.
func (in *Inspector) Observe(res *replay.Result) { in.observe(res) }

// ObserveStep is Observe, returning the model's step of the result, valid
// until the next call: a lineage builder on the same model (Model) takes
// it, instead of a model of its own observing every result again.
func (in *Inspector) ObserveStep(res *replay.Result) model.Step { return in.observe(res) }

// Model is the inspector's model, until Finish lets go of it.
func (in *Inspector) Model() *model.Model { return in.model }

// observe is Observe, returning the model's step of the result: valid
// until the next call, for a close-up of what the line did itself.
func (in *Inspector) observe(res *replay.Result) model.Step {
	in.sniff.Observe(res)
	in.observeDelivery(res)
	answers := in.exchangeSubmit(res)
	if res.Err != nil {
		in.observeInvalid(res)
		in.observeRefusal(res, answers)
		if res.Cut {
			in.observeCut(res)
		}
	}
	st := in.model.Observe(res)
	in.pending = nil
	if st.Session != nil && !st.Foreign && res.Event.Kind == replay.KindSubmit {
		in.pending = &pendingSubmit{turn: st.Turn, session: st.Session.ID, file: res.File}
		if o := res.Origin; o != nil && o.Sent && o.Request > 0 && len(in.sentIn) < maxOpenExchanges {
			if in.sentIn == nil {
				in.sentIn = map[int]*pendingSubmit{}
			}
			in.sentIn[o.Request] = in.pending
		}
	}
	if st.Session == nil {
		return st
	}
	ev := res.Event
	p := in.pos(model.PositionOf(res))
	s := in.session(st.Session)
	in.count(s, ev)
	if res.LeftOut > 0 {
		// The window left events of the session out since its last one
		// here: the next gap may be theirs, the capture holds them.
		s.betweenLost = true
	}
	if st.Foreign {
		f := &s.tally().foreign
		f.hit("")
		f.at(in.limit, p)
		return st
	}
	seen := in.checkEventID(s, ev, p)
	if ev.Kind == replay.KindSubmit && !seen {
		st.Turn.NoteSubmit() // a retry of the turn, not its delivery again
	}
	if ev.Kind != replay.KindSnapshot {
		if in.used+betweenSize <= in.budget {
			in.used += betweenSize
			s.between = append(s.between, kept{ev.Sequence, st.Turn})
		} else {
			s.betweenLost = true
		}
		return st
	}
	switch res.Reason {
	case replay.ReasonInitial, replay.ReasonAdvanced:
		in.accept(s, &st, res, p)
	case replay.ReasonDuplicate, replay.ReasonStale:
		in.redelivered(s, res, p, seen)
	}
	return st
}

// exchangeSubmit is, for the first response line of an exchange of a
// capture snapctl record wrote, the submit its request carried.
func (in *Inspector) exchangeSubmit(res *replay.Result) *pendingSubmit {
	o := res.Origin
	if o == nil || o.Sent || o.Request == 0 || in.sentIn == nil {
		return nil
	}
	s := in.sentIn[o.Request]
	delete(in.sentIn, o.Request)
	return s
}

// observeCut counts an event that breaks off where its capture ends,
// with what shows it: the format's own detail (which quotes nothing), or
// the last line's missing newline.
func (in *Inspector) observeCut(res *replay.Result) {
	detail := res.Err.RedactedDetail()
	switch {
	case !res.Framed:
		detail = fmt.Sprintf("its last line, of %d bytes, has no newline and its JSON stops at the line's end", res.Size)
	case res.Err.Offset >= 0:
		// A log line (CRI, kubectl) cut as an NDJSON line is; a framer's
		// own word for a cut (Docker, SSE) has no offset.
		detail = fmt.Sprintf("its last log line has no newline and the event in it, of %d bytes, stops at the line's end", res.Size)
	}
	if in.cut.n == 0 || res.File != in.cutFile {
		// Captures are read one after another: a new file is a new
		// capture cut (a container log may end inside an event of each
		// of its streams).
		if in.cut.n == 0 {
			in.cutFirst = res.File
		}
		in.cutFile = res.File
		in.cutFiles++
	}
	in.cut.hit(detail)
	in.cut.at(in.limit, in.pos(model.PositionOf(res)))
}

// observeInvalid tallies a malformed line whose envelope names a session,
// with its first broken rule. A session first met here costs one entry
// of the budget, so that a capture of broken lines with ever new session
// ids cannot grow the map without bound.
func (in *Inspector) observeInvalid(res *replay.Result) {
	e := res.Err.Envelope
	if e == nil || !replay.IsSafeIdentifier(e.SessionID) || res.Err.Code != replay.CodeInvalidPayload ||
		(in.opts.Session != "" && e.SessionID != in.opts.Session) {
		return
	}
	t := in.invalid[e.SessionID]
	if t == nil {
		if in.used+invalidSize > in.budget {
			return
		}
		in.used += invalidSize
		t = &tally{}
		in.invalid[e.SessionID] = t
	}
	detail := res.Err.RedactedDetail()
	if e.EventID != "" {
		detail = "event " + e.EventID + ", " + detail
	}
	t.hit(fmt.Sprintf("%s:%d %s", res.File, res.Line, detail))
	t.at(in.limit, in.pos(model.PositionOf(res)))
}

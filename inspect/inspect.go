// Package inspect explains a capture: an overview of what it holds and
// findings about the classes of server bug it shows (timestamp sequences,
// lost updates, vanished messages, regressions), each with the lines
// involved. It consumes what replay produces and never prints.
package inspect

import (
	"hash/maphash"

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
}

// maxTracked caps, per session, the fingerprints kept for past accepted
// sequences and for event ids, and the non-snapshot sequences kept between
// two accepted snapshots: past it, sequence-collision against old
// sequences and duplicate-event-id for new ids are not checked, so memory
// stays bounded on any capture.
const maxTracked = 1 << 17

// Inspector watches the results of a replay run and builds a Report. It
// keeps per-session and per-turn state and compact fingerprints, never
// the events themselves.
type Inspector struct {
	opts     Options
	limit    int
	seed     maphash.Seed
	files    []string
	fileIdx  map[string]int32
	sessions map[string]*session
	order    []*session
}

// New returns an inspector.
func New(opts Options) *Inspector {
	in := &Inspector{opts: opts, limit: opts.MaxPositions, seed: maphash.MakeSeed(),
		fileIdx: map[string]int32{}, sessions: map[string]*session{}}
	if in.limit <= 0 {
		in.limit = DefaultMaxPositions
	}
	return in
}

// Run reads every line of rd through the cursor, as replay.Run does, and
// returns the report.
func Run(rd *replay.Reader, opts Options) (Report, error) {
	in := New(opts)
	sum, err := replay.Run(rd, in.replayOptions(), func(res *replay.Result) error {
		in.Observe(res)
		return nil
	})
	if err != nil {
		return Report{}, err
	}
	return in.Report(sum), nil
}

// replayOptions are the options the inspector's results must come from:
// it needs each snapshot's message ids.
func (in *Inspector) replayOptions() replay.Options {
	return replay.Options{Session: in.opts.Session, MaxLine: in.opts.MaxLine, EventPath: in.opts.EventPath, Messages: true, Hash: true}
}

func (in *Inspector) pos(res *replay.Result) pos {
	i, ok := in.fileIdx[res.File]
	if !ok {
		i = int32(len(in.files))
		in.files = append(in.files, res.File)
		in.fileIdx[res.File] = i
	}
	return pos{file: i, line: res.Line}
}

func (in *Inspector) session(id string) *session {
	s, ok := in.sessions[id]
	if !ok {
		s = newSession(id)
		in.sessions[id] = s
		in.order = append(in.order, s)
	}
	return s
}

// Observe takes one result of a run made with Messages set (see Run).
// Malformed lines carry nothing to check beyond the summary's counts.
func (in *Inspector) Observe(res *replay.Result) {
	ev := res.Event
	if ev == nil {
		return
	}
	p := in.pos(res)
	s := in.session(ev.SessionID)
	s.count(ev)
	if in.opts.Session != "" && ev.SessionID != in.opts.Session {
		s.foreign.hit("")
		s.foreign.at(in.limit, p)
		return
	}
	in.checkEventID(s, ev, p)
	t := s.turn(ev.TurnID)
	if ev.Kind != replay.KindSnapshot {
		if ev.Kind == replay.KindSubmit && !t.submitted {
			t.submitted, t.submitAt = true, p
		}
		if len(s.between) < maxTracked {
			s.between = append(s.between, ev.Sequence)
		}
		return
	}
	t.snapshots++
	switch res.Reason {
	case replay.ReasonInitial, replay.ReasonAdvanced:
		in.accept(s, t, res, p)
	case replay.ReasonDuplicate, replay.ReasonStale:
		in.redelivered(s, res, p)
	}
}

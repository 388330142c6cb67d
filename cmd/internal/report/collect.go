package report

import (
	"strconv"
	"strings"

	"github.com/agentskit/snapctl/cmd/internal/render"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
)

// What the report keeps of a capture read once, so that its memory and
// its size stay bounded whatever the capture's: the documented caps.
const (
	// reportSessions is how many sessions get a chart, a table and diffs,
	// in order of first appearance; every session is still counted and
	// its findings listed.
	reportSessions = 16
	// reportContext is how many rows around each problem the event table
	// shows by default.
	reportContext = 2
	// reportRows caps the rows of one session's event table and
	// reportTotalRows those of every table together, about 1.5 MB of
	// page; reportAllRows caps every table together with --all-events.
	reportRows      = 2000
	reportTotalRows = 5000
	reportAllRows   = 100000
	// reportHeld caps the events of every kept session together held
	// until the findings are known (about 10 MB), so that the tables show
	// the lines findings cite with their context; past it, rows are
	// chosen as events come, problems and their context only.
	reportHeld = 50000
	// reportMalformed caps the rows of the table of malformed lines.
	reportMalformed = 500
	// reportCellRunes is the longest text of a table cell.
	reportCellRunes = 200
	// chartBuckets is the most points a chart keeps per session: past it,
	// neighbouring events are merged into one point (a vertical bar from
	// the lowest to the highest sequence), so a chart never has more
	// points than pixels.
	chartBuckets = 512
)

// chartReasons are the reasons an event with a session can be inert for,
// in the order of the chart's legend.
var chartReasons = []replay.Reason{replay.ReasonStale, replay.ReasonDuplicate, replay.ReasonForeignSession, replay.ReasonNonSnapshot}

// eventRow is one row of an event table, every text terminal-safe and cut.
type eventRow struct {
	X       int64
	At      linePos
	EventID string
	Kind    string
	Turn    string
	Seq     string
	Verdict string
	Reason  string
	Detail  string
	// Problem is set for an inert problem (pendingRow.problem).
	Problem bool
	Emitted string
}

// bucket is one point of a chart: the events of positions [Key*w,
// (Key+1)*w) of a session, with the range of their sequences by verdict.
type bucket struct {
	Key int64
	// Acc is the lowest and highest accepted sequence, when HasAcc.
	Acc    [2]int64
	HasAcc bool
	// Inert holds, per chartReasons, the lowest and highest sequence and
	// how many events.
	Inert [4]struct {
		Min, Max int64
		N        int
	}
	// At is the position of the one event of an exact bucket (w == 1).
	At linePos
	// First and Last are the keys of its first and last events, so that
	// a cited line finds its bucket.
	First, Last ordKey
	// T is the earliest emittedAt of its events, in Unix milliseconds.
	T int64
}

// chartData is a session's timeline, at most chartBuckets points.
type chartData struct {
	W       int64 // positions per bucket, a power of two
	Buckets []bucket
	MinSeq  int64
	MaxSeq  int64
	FirstX  int64
	LastX   int64
	// MinT and MaxT are the range of emittedAt, in Unix milliseconds.
	MinT, MaxT int64
	Any        bool
	// Rules are where the session's events pass from one file to the
	// next (a reconnect), at most chartRules of them.
	Rules    []fileRule
	lastFile int
}

// fileRule is the first event of a session in a file after another.
type fileRule struct {
	X, T int64
	File int
}

// chartRules caps the file boundaries drawn per chart.
const chartRules = 100

func (c *chartData) add(x int64, seq int64, t int64, reason replay.Reason, at linePos, k ordKey) {
	file := at.File
	if !c.Any {
		c.Any, c.W, c.MinSeq, c.MaxSeq, c.FirstX, c.MinT, c.MaxT, c.lastFile = true, 1, seq, seq, x, t, t, file
	}
	c.MinSeq, c.MaxSeq, c.LastX = min(c.MinSeq, seq), max(c.MaxSeq, seq), x
	c.MinT, c.MaxT = min(c.MinT, t), max(c.MaxT, t)
	if file != c.lastFile && len(c.Rules) < chartRules {
		c.Rules = append(c.Rules, fileRule{X: x, T: t, File: file})
	}
	c.lastFile = file
	key := x / c.W
	if n := len(c.Buckets); n == 0 || c.Buckets[n-1].Key != key {
		// A sparse session's neighbours may share no bucket at first:
		// halve until some do.
		for len(c.Buckets) >= chartBuckets {
			c.halve()
			key = x / c.W
		}
		if n := len(c.Buckets); n == 0 || c.Buckets[n-1].Key != key {
			c.Buckets = append(c.Buckets, bucket{Key: key, At: at, T: t, First: k})
		}
	}
	b := &c.Buckets[len(c.Buckets)-1]
	b.T, b.Last = min(b.T, t), k
	if reason.Verdict() == replay.Accepted {
		if !b.HasAcc {
			b.Acc, b.HasAcc = [2]int64{seq, seq}, true
		}
		b.Acc = [2]int64{min(b.Acc[0], seq), max(b.Acc[1], seq)}
		return
	}
	for i, r := range chartReasons {
		if r == reason {
			in := &b.Inert[i]
			if in.N == 0 {
				in.Min, in.Max = seq, seq
			}
			in.Min, in.Max, in.N = min(in.Min, seq), max(in.Max, seq), in.N+1
		}
	}
}

// halve doubles the positions per bucket, merging neighbours.
func (c *chartData) halve() {
	c.W *= 2
	out := c.Buckets[:0]
	for _, b := range c.Buckets {
		b.Key /= 2
		if n := len(out); n > 0 && out[n-1].Key == b.Key {
			merge(&out[n-1], b)
			continue
		}
		out = append(out, b)
	}
	c.Buckets = out
}

func merge(a *bucket, b bucket) {
	a.T, a.Last = min(a.T, b.T), b.Last
	if b.HasAcc {
		if !a.HasAcc {
			a.Acc, a.HasAcc = b.Acc, true
		}
		a.Acc = [2]int64{min(a.Acc[0], b.Acc[0]), max(a.Acc[1], b.Acc[1])}
	}
	for i := range a.Inert {
		x, y := &a.Inert[i], b.Inert[i]
		if y.N == 0 {
			continue
		}
		if x.N == 0 {
			*x = y
			continue
		}
		x.Min, x.Max, x.N = min(x.Min, y.Min), max(x.Max, y.Max), x.N+y.N
	}
}

// reportSession is what the report keeps of one of its first sessions.
type reportSession struct {
	ID    string
	Chart chartData
	Rows  []eventRow
	// Dropped counts the rows past the cap.
	Dropped int
	// held are the session's first events, while the collector holds
	// fewer than reportHeld; Rows then follow them (see finish).
	held     []pendingRow
	overflow bool
	// ring holds the last rows not kept, for the context of a problem;
	// after counts the rows still to keep after one.
	ring  []pendingRow
	after int
	Diffs *sessionDiffs
}

// Collector sees every result of the one run and keeps what the
// report shows, within the caps above.
type Collector struct {
	redact, all bool
	// eventPath is the run's --event-path (inspect.ErrorBodyOf).
	eventPath string
	files     []string
	fileIdx   map[string]int
	// entryRank ranks each HAR entry (file, entry) in reading order.
	entryRank map[[2]int]int
	x         int64
	sessions  []*reportSession
	byID      map[string]*reportSession
	malformed []eventRow
	malN      int
	rows      int
	held      int
	// heldCap is reportHeld but in tests.
	heldCap int
}

// NewCollector keeps what the report shows of a run; redact hides the
// texts, all keeps every event in the tables, not only problems.
// eventPath is the run's --event-path.
func NewCollector(redact, all bool, eventPath string) *Collector {
	return &Collector{redact: redact, all: all, eventPath: eventPath, fileIdx: map[string]int{}, entryRank: map[[2]int]int{}, byID: map[string]*reportSession{}, heldCap: reportHeld}
}

// Keeps reports whether the collector keeps the session of an id: the
// run's lineage and diffs are worth computing only for those.
func (c *Collector) Keeps(id string) bool { return c.byID[id] != nil }

// session returns the kept session of an id, nil past the cap.
func (c *Collector) session(id string) *reportSession {
	if s, ok := c.byID[id]; ok {
		return s
	}
	if len(c.sessions) >= reportSessions {
		return nil
	}
	s := &reportSession{ID: id, Diffs: newSessionDiffs()}
	c.sessions = append(c.sessions, s)
	c.byID[id] = s
	return s
}

// Add takes one result of the run.
func (c *Collector) Add(res *replay.Result) {
	fi, ok := c.fileIdx[res.File]
	if !ok {
		fi = len(c.files)
		c.files = append(c.files, res.File)
		c.fileIdx[res.File] = fi
	}
	x := c.x
	c.x++
	at := posOfResult(res, fi)
	k := c.rank(at)
	if res.Event == nil {
		c.malN++
		if len(c.malformed) < reportMalformed {
			row := eventRow{X: x, At: at, Verdict: string(res.Verdict()), Reason: string(res.Reason),
				Detail: cell(render.Detail(res, c.redact, c.eventPath), reportCellRunes), Problem: true}
			if res.Err != nil {
				// What the envelope says, unvalidated, as replay's table
				// shows it; the table has no session column.
				ids := render.EnvelopeIDs(res.Err.Envelope, c.redact)
				for i := range ids {
					ids[i] = strings.Clone(ids[i]) // see cell
				}
				row.EventID, row.Kind, row.Turn, row.Seq = ids[0], ids[1], ids[3], ids[4]
				if ids[2] != "" {
					row.Detail = "session " + ids[2] + " · " + row.Detail
				}
			}
			c.malformed = append(c.malformed, row)
		}
		return
	}
	s := c.session(res.Event.SessionID)
	if s == nil {
		return
	}
	s.Chart.add(x, res.Event.Sequence, res.Event.Emitted.UnixMilli(), res.Reason, at, k)
	p := pendingOf(res, fi, x)
	if !c.all && !s.overflow && c.held < c.heldCap {
		s.held = append(s.held, p)
		c.held++
		return
	}
	s.overflow = true
	c.keep(s, p)
}

// finish chooses the rows of the events held: the problems, the lines
// findings cite and where turns ended other than complete (cited), and
// the context around each; they come before the rows chosen as events came.
func (c *Collector) finish(cited func(linePos) bool) {
	for _, s := range c.sessions {
		keep := make([]bool, len(s.held))
		for i, p := range s.held {
			if p.problem() || cited(p.at) {
				for j := max(0, i-reportContext); j <= min(len(s.held)-1, i+reportContext); j++ {
					keep[j] = true
				}
			}
		}
		streamed := s.Rows
		s.Rows = nil
		for i, p := range s.held {
			if !keep[i] {
				continue
			}
			if len(s.Rows) >= reportRows || c.rows >= reportTotalRows {
				s.Dropped++
				continue
			}
			s.Rows = append(s.Rows, c.row(p))
			c.rows++
		}
		s.Rows = append(s.Rows, streamed...)
		s.held = nil
	}
}

// pendingRow is what a row needs of a result of a session: a few strings
// the event already owns, so that the rows held for context cost no
// allocation, and making them safe and cut waits until one is shown.
type pendingRow struct {
	x                          int64
	at                         linePos
	reason                     replay.Reason
	kind                       replay.Kind
	eventID, turnID, emittedAt string
	// origin is what the format said of the event (a record capture's
	// receipt time), "" for NDJSON.
	origin         string
	seq, gap, prev int64
}

func pendingOf(res *replay.Result, fi int, x int64) pendingRow {
	ev := res.Event
	return pendingRow{x: x, at: posOfResult(res, fi), reason: res.Reason, kind: ev.Kind, eventID: ev.EventID,
		turnID: ev.TurnID, emittedAt: ev.EmittedAt, seq: ev.Sequence, gap: res.Gap, prev: res.Prev,
		origin: render.OriginDetail(res.Origin)}
}

// keep adds a row to a session's table: every row with --all-events,
// else the problems and the rows around them.
func (c *Collector) keep(s *reportSession, p pendingRow) {
	limit, total := reportRows, reportTotalRows
	if c.all {
		limit, total = reportAllRows, reportAllRows
	}
	take := func(p pendingRow) {
		if len(s.Rows) >= limit || c.rows >= total {
			s.Dropped++
			return
		}
		s.Rows = append(s.Rows, c.row(p))
		c.rows++
	}
	switch {
	case c.all:
		take(p)
	case p.candidate():
		for _, r := range s.ring {
			take(r)
		}
		s.ring = s.ring[:0]
		take(p)
		s.after = reportContext
	case s.after > 0:
		take(p)
		s.after--
	default:
		if len(s.ring) == reportContext {
			copy(s.ring, s.ring[1:])
			s.ring = s.ring[:reportContext-1]
		}
		s.ring = append(s.ring, p)
	}
}

// problem says whether the row is a problem whatever the findings, by
// the rule of every view (inspect.ProblemReason): a stale, duplicate or
// foreign-session snapshot. Where a turn ended other than complete is
// one too, once the endings are known (pageBuilder.row); a gap is none.
func (p pendingRow) problem() bool { return inspect.ProblemReason(p.reason) }

// candidate says whether a row chosen as events come, before the
// findings are known, must be kept: a problem, or a gap that a finding
// may cite.
func (p pendingRow) candidate() bool { return p.problem() || p.gap > 0 }

// row makes a held result a table row.
func (c *Collector) row(p pendingRow) eventRow {
	res := replay.Result{Reason: p.reason, Gap: p.gap, Prev: p.prev, Event: &replay.Event{Sequence: p.seq}}
	return eventRow{X: p.x, At: p.at, Verdict: string(p.reason.Verdict()), Reason: string(p.reason),
		Detail: termsafe.Line(render.JoinDetail(render.ResultDetail(&res, c.redact, ""), p.origin), reportCellRunes), Problem: p.problem(),
		EventID: termsafe.Line(p.eventID, reportCellRunes), Kind: render.ShortKind(p.kind), Turn: termsafe.Line(p.turnID, reportCellRunes),
		Seq: strconv.FormatInt(p.seq, 10), Emitted: termsafe.Line(p.emittedAt, 40)}
}

// cell is the terminal-safe head of a capture's text, as termsafe.Line
// makes it, in a string of its own. A message's text is a slice of the
// decoder's one copy of the snapshot's messages (and a malformed line's
// envelope may be as long as the line): a row that kept the slice would
// keep the whole snapshot alive, and the collector keeps thousands of
// rows.
func cell(s string, max int) string { return strings.Clone(termsafe.Line(s, max)) }

package explore

import (
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"

	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/inspect/lineage"
	"github.com/agentskit/snapctl/replay"
)

// exploreIndexer turns lines into rows, once each: every line is decoded
// with its messages, run through the cursor, and shown to the inspector
// and the lineage builder, and only its envelope and offset are kept. It
// runs on one goroutine, apart from the model when the input is live; the
// lines it indexes are decoded there (step), or on every core by the
// feed's replay.Run (index).
type exploreIndexer struct {
	run *replay.Runner
	// ropts are run's options, for a replay.Run instead (index).
	ropts replay.Options
	// noneSpool is set when spoolsNone found that no file is one to
	// spool (the feed on every core): needsSpool is not asked again.
	noneSpool bool
	in        *inspect.Inspector
	lb        *lineage.Builder
	fileIdx   map[string]int
	files     []exploreFile
	spool     *os.File
	off       int64
	spoolMax  int64 // exploreSpoolMax but in tests
	maxTurns  int   // exploreMaxTurns but in tests
	rows      int
	sessions  map[string]uint32
	turns     map[string]uint32
	// accs is, by cursor (see cursorKey), the row it accepted last: the
	// link of the next row it judges.
	accs   []int32
	pinned bool
	// observe, when set, sees every result too (the hint's Sniffer).
	observe func(*replay.Result)
}

// exploreNews is what a row brings into the index's tables: the session
// and turn it names first, if any, and the file it is the first line of.
type exploreNews struct {
	session, turn string
	file          *exploreFile
	// entry is the HAR entry of the row's line, 0 for none, and
	// reqSession and reqTurn what its request's submit names.
	entry               int
	reqSession, reqTurn string
	// cut is set when the line breaks off where its capture ends
	// (replay.Result.Cut), which reading it again does not tell; leftOut
	// when the window left events of its session out before it
	// (replay.Result.LeftOut), which a what-if, run without the window,
	// does not see either.
	cut, leftOut bool
}

func newExploreIndexer(opts replay.Options, redact bool) (*exploreIndexer, error) {
	// What the inspector needs of the results: the messages, their hash,
	// and the text of a malformed line (a server's error body).
	ropts := inspect.ReplayOptions(opts)
	run, err := replay.NewRunner(ropts)
	if err != nil {
		return nil, err
	}
	in := inspect.New(inspectOptions(opts, redact))
	return &exploreIndexer{run: run, ropts: ropts,
		in:      in,
		lb:      lineage.NewBuilderOn(in.Model()),
		fileIdx: map[string]int{}, sessions: map[string]uint32{}, turns: map[string]uint32{}, spoolMax: exploreSpoolMax, maxTurns: exploreMaxTurns,
		pinned: opts.Session != ""}, nil
}

// maxSessionIDs is how many session ids the rows name: as many as a row's
// uint32 holds (0 is none), or an int on 32 bits.
const maxSessionIDs = min(math.MaxUint32-1, math.MaxInt)

// step indexes one line, decoded and judged here.
func (ix *exploreIndexer) step(l replay.Line) (row exploreRow, news exploreNews, err error) {
	res := ix.run.Step(l)
	return ix.index(&res, l.Data)
}

// index indexes the line of one result, judged on the indexer's runner
// (step) or on a run's (replay.Run, decoding on every core: the feed of
// a capture with no line to spool but those RawFramed shows); data is
// the line, for the spool.
func (ix *exploreIndexer) index(res *replay.Result, data []byte) (row exploreRow, news exploreNews, err error) {
	fi, ok := ix.fileIdx[res.File]
	if !ok {
		if len(ix.files) == exploreMaxFiles {
			return row, news, errExploreTooBig
		}
		fi = len(ix.files)
		ix.fileIdx[res.File] = fi
		// A capture in another format than NDJSON (HAR, SSE, container
		// logs) gives each event's own text, which is not where its offset
		// points: it is spooled too, to show the event and not the
		// transport's bytes.
		ix.files = append(ix.files, exploreFile{name: res.File, spool: (!ix.noneSpool && needsSpool(res.File)) || res.Framed})
		news.file = &ix.files[fi]
	}
	if ix.rows == exploreMaxRows || int64(res.Line) > math.MaxUint32 {
		return row, news, errExploreTooBig
	}
	row = exploreRow{file: uint16(fi), line: uint32(res.Line), off: res.Off, size: uint32(min(res.Size, math.MaxUint32)), link: -1}
	if res.TooLong {
		row.flags |= rowTooLong
	}
	if ix.files[fi].spool && !res.TooLong {
		if err := ix.spoolLine(data); err != nil {
			return row, news, err
		}
		row.off = ix.off - int64(len(data))
	}
	if res.Reason == "" {
		// Outside --lines, --since or --until: as if never read.
		return row, news, errOutsideWindow
	}
	ix.rows++
	if res.Origin != nil {
		news.entry, news.reqSession, news.reqTurn = res.Origin.Entry, res.Origin.RequestSession, res.Origin.RequestTurn
	}
	if ev := res.Event; ev != nil {
		row.flags |= kindCode(ev.Kind)
		row.seq = ev.Sequence
		row.session, news.session = intern(ix.sessions, ev.SessionID, maxSessionIDs)
		row.turn, news.turn = ix.turn(ev.TurnID)
		news.leftOut = res.LeftOut > 0
	} else {
		row.flags |= rowMalformed
		news.cut = res.Cut
	}
	// The verdict of the line among every line read, and the row its
	// cursor accepted before it.
	row.reason = reasonCode(res.Reason)
	k := cursorKey(&row, ix.pinned)
	for len(ix.accs) <= k {
		ix.accs = append(ix.accs, -1)
	}
	if row.link = ix.accs[k]; res.Verdict() == replay.Accepted {
		ix.accs[k] = int32(ix.rows - 1)
	}
	ix.lb.AddStep(res, ix.in.ObserveStep(res))
	if ix.observe != nil {
		ix.observe(res)
	}
	return row, news, nil
}

// exploreOutcome is what the indexer makes of the whole capture once
// read: the findings, the sessions' verdicts, the turns they count
// unfinished (inspect.SessionOverview.Unfinished, with turns the lineage
// has no node of), how every turn ended, by session
// (inspect.SessionOverview.Endings, as inspect's outcomes line lists
// them), and the sessions' lineage.
type exploreOutcome struct {
	findings []inspect.Finding
	verdicts map[string]inspect.Verdict
	ended    []inspect.TurnEnding
	endings  map[string]sessionTurns
	sessions []*lineage.Session
	// window are the turns the run's window ended, for the what-if runs
	// of its lines (replay.Summary.WindowEnds).
	window replay.WindowEnds
}

// sessionTurns is what a session's overview says of its turns: how each
// ended, and how many messages of earlier turns its first accepted
// snapshot holds (inspect.SessionOverview's Endings and Earlier).
type sessionTurns struct {
	endings []inspect.TurnEnding
	earlier int
}

// summary is the summary of the lines the indexer stepped, of input in.
func (ix *exploreIndexer) summary(in replay.Stats) replay.Summary { return ix.run.Summary(in) }

// finish makes the outcome of the capture read, whose summary is sum
// (see outcomeOf). The indexer indexes no line after.
func (ix *exploreIndexer) finish(sum replay.Summary) exploreOutcome {
	insp, lb := ix.in, ix.lb
	ix.run, ix.in, ix.lb = nil, nil, nil
	return outcomeOf(sum, insp, lb)
}

// outcomeOf makes the outcome of a run, letting go of each part as it
// is done with it (Inspector.Finish and Builder.Finish release a
// session's state once its part is made), so that the outcome of many
// sessions takes the place of what the run held of them instead of
// coming on top of it; in and lb take nothing after.
//
// The collector would not run before the end: it starts once the heap
// doubles, and the run's state grew all along. So it is run here, once,
// where the most can be taken (the cursors, the inspector and the garbage
// of the run), before the lineage is made: on 200,000 sessions the peak
// was 1,662 to 1,795 bytes a session, 1,897 without it
// (BenchmarkExploreOpen, with the builder on the inspector's model);
// keeping every turn's ending (endings) gave 1,711 and 1,844 in two runs
// where the code before gave 1,657 and 1,701. A second one, before the
// inspector's report, took some 10 MB more off the peak for 0.4 s more
// of reading.
func outcomeOf(sum replay.Summary, in *inspect.Inspector, lb *lineage.Builder) exploreOutcome {
	rep := in.Finish(sum)
	o := exploreOutcome{findings: rep.Findings, verdicts: rep.Verdicts(), endings: make(map[string]sessionTurns, len(rep.Overview.Sessions)),
		window: sum.WindowEnds()}
	for i := range rep.Overview.Sessions {
		s := &rep.Overview.Sessions[i]
		o.ended = append(o.ended, s.Unfinished()...)
		if e := s.Endings(); len(e) > 0 || s.Earlier > 0 {
			o.endings[s.SessionID] = sessionTurns{e, s.Earlier}
		}
	}
	rep, sum, in = inspect.Report{}, replay.Summary{}, nil
	runtime.GC()
	o.sessions = lb.Finish()
	return o
}

// spoolLine copies a line that cannot be read again where it is to the
// spool, within exploreSpoolMax.
func (ix *exploreIndexer) spoolLine(data []byte) error {
	if ix.off+int64(len(data)) > ix.spoolMax {
		return fmt.Errorf("explore copies standard input and compressed captures to a temporary file to show their lines again, and stops at %s: decompress the capture to a file and explore that", text.ByteSize(ix.spoolMax))
	}
	if ix.spool == nil {
		var err error
		if ix.spool, err = os.CreateTemp("", "snapctl-explore-*"); err != nil {
			return fmt.Errorf("spooling the capture: %w", err)
		}
		os.Remove(ix.spool.Name()) // gone once closed
	}
	// Written through at once: the model may read it as soon as the row
	// is handed over.
	if _, err := ix.spool.Write(data); err != nil {
		return fmt.Errorf("spooling the capture: %w", err)
	}
	ix.off += int64(len(data))
	return nil
}

// turn is the table index of a turn id: a new one is listed while the
// table has room (maxTurns) and the id is short, otherwise the row says
// turnUnlisted and the id is read from its line when shown.
func (ix *exploreIndexer) turn(id string) (uint32, string) {
	if len(id) > exploreMaxTurnLen {
		return turnUnlisted, ""
	}
	return intern(ix.turns, id, ix.maxTurns)
}

// intern is the 1-based index of id in table, and id itself when it is
// new there; turnUnlisted when the table already holds most ids.
func intern(table map[string]uint32, id string, most int) (uint32, string) {
	if id == "" {
		return 0, ""
	}
	if n, ok := table[id]; ok {
		return n, ""
	}
	if len(table) >= most {
		return turnUnlisted, ""
	}
	n := uint32(len(table) + 1)
	table[id] = n
	return n, id
}

// errOutsideWindow is a line the window leaves out: step returns it
// instead of a row.
var errOutsideWindow = errors.New("outside the window")

// inspectOptions are the inspector's options for the explorer: every
// position of every finding, so that each line a finding cites is marked
// (exploreIndex.citedRows keeps them as row indexes).
// The lineage builder shares the inspector's model (Outcomes), which
// observes each result once. redact is inspect.Options.Redact.
func inspectOptions(opts replay.Options, redact bool) inspect.Options {
	return inspect.Options{Session: opts.Session, MaxLine: opts.MaxLine, EventPath: opts.EventPath, MaxPositions: math.MaxInt, Outcomes: true, Redact: redact}
}

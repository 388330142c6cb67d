package cmd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/inspect/lineage"
	"github.com/agentskit/snapctl/replay"
)

// exploreRow is what the explorer keeps of one line: where to read it
// again and its envelope, never its bytes, so that a 300 MB capture costs
// a few hundred bytes a line.
type exploreRow struct {
	file    int // index in exploreIndex.files
	line    int
	off     int64 // in the file, or in the spool for a file kept there
	size    int64
	tooLong bool

	kind                       replay.Kind
	eventID, sessionID, turnID string
	seq                        int64
	// err is the first problem of a malformed line.
	err *replay.DecodeError
}

// exploreVerdict is the cursor's verdict on one row, for the lines in play.
type exploreVerdict struct {
	reason    replay.Reason
	prev, gap int64
	// acc is the index of the row holding the session's accepted
	// projection after this row (-1 when none), and for an accepted row
	// prevAcc is the one before it: the checkpoints that make the
	// Projection and Diff tabs one lookup away.
	acc, prevAcc int
}

// exploreFile is one capture: its name, and the spool its lines were
// copied to when they cannot be read again at their offset (standard
// input, gzip, zstd).
type exploreFile struct {
	name  string
	spool bool
}

// exploreIndex is the capture as the explorer holds it: a row per line,
// the verdicts of the lines in play (all but the toggled ones), and the
// report and lineage of the capture as read.
type exploreIndex struct {
	files []exploreFile
	rows  []exploreRow
	opts  replay.Options

	off      []bool // toggled off, by row
	verdicts []exploreVerdict

	// findings and sessions are those of the lines in play, orig* those
	// of the capture as read.
	findings, origFindings []inspect.Finding
	sessions, origSessions []*lineage.Session
	ids                    []string // sessions in order of first appearance

	spool *os.File
	open  map[int]*os.File
}

// compressedMagic reports whether head starts like a gzip or zstd stream,
// whose offsets replay reports after decompression.
func compressedMagic(head []byte) bool {
	return bytes.HasPrefix(head, []byte{0x1f, 0x8b}) || bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd})
}

// needsSpool says whether the lines of a capture must be copied to be
// read again: standard input can be read once, and a compressed file's
// offsets are in its decompressed text.
func needsSpool(name string) bool {
	if name == replay.StdinName {
		return true
	}
	f, err := os.Open(name)
	if err != nil {
		return true
	}
	defer f.Close()
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	return compressedMagic(head[:n])
}

// exploreIndexer turns lines into rows, once each: every line is decoded
// with its messages, run through the cursor, and shown to the inspector
// and the lineage builder, and only its envelope and offset are kept. It
// runs on one goroutine, apart from the model when the input is live.
type exploreIndexer struct {
	run     *replay.Runner
	in      *inspect.Inspector
	lb      *lineage.Builder
	fileIdx map[string]int
	files   []exploreFile
	spool   *os.File
	off     int64
	seen    map[string]bool
	// observe, when set, sees every result too (the hint's Sniffer).
	observe func(*replay.Result)
}

func newExploreIndexer(opts replay.Options) (*exploreIndexer, error) {
	opts.Messages, opts.Hash = true, true
	run, err := replay.NewRunner(opts)
	if err != nil {
		return nil, err
	}
	return &exploreIndexer{run: run,
		in:      inspect.New(inspect.Options{Session: opts.Session, MaxLine: opts.MaxLine, EventPath: opts.EventPath}),
		lb:      lineage.NewBuilder(opts.Session),
		fileIdx: map[string]int{}, seen: map[string]bool{}}, nil
}

// step indexes one line; it reports the session the line names first, if
// any, and a file it is the first line of.
func (ix *exploreIndexer) step(l replay.Line) (row exploreRow, newID string, newFile *exploreFile, err error) {
	fi, ok := ix.fileIdx[l.File]
	if !ok {
		fi = len(ix.files)
		ix.fileIdx[l.File] = fi
		ix.files = append(ix.files, exploreFile{name: l.File, spool: needsSpool(l.File)})
		newFile = &ix.files[fi]
	}
	row = exploreRow{file: fi, line: l.Num, off: l.Off, size: int64(len(l.Data)), tooLong: l.TooLong}
	if ix.files[fi].spool && !l.TooLong {
		if ix.spool == nil {
			if ix.spool, err = os.CreateTemp("", "snapctl-explore-*"); err != nil {
				return row, "", nil, fmt.Errorf("spooling the capture: %w", err)
			}
			os.Remove(ix.spool.Name()) // gone once closed
		}
		// Written through at once: the model may read it as soon as
		// the row is handed over.
		if _, err := ix.spool.Write(l.Data); err != nil {
			return row, "", nil, fmt.Errorf("spooling the capture: %w", err)
		}
		row.off = ix.off
		ix.off += int64(len(l.Data))
	}
	res := ix.run.Step(l)
	if res.Reason == "" {
		// Outside --lines, --since or --until: as if never read.
		return row, "", newFile, errOutsideWindow
	}
	if ev := res.Event; ev != nil {
		row.kind, row.eventID, row.sessionID, row.turnID, row.seq = ev.Kind, ev.EventID, ev.SessionID, ev.TurnID, ev.Sequence
		if !ix.seen[ev.SessionID] {
			ix.seen[ev.SessionID] = true
			newID = ev.SessionID
		}
	} else {
		row.err = firstProblem(res.Err)
	}
	ix.in.Observe(&res)
	ix.lb.Add(&res)
	if ix.observe != nil {
		ix.observe(&res)
	}
	return row, newID, newFile, nil
}

// errOutsideWindow is a line the window leaves out: step returns it
// instead of a row.
var errOutsideWindow = errors.New("outside the window")

// buildExploreIndex reads the captures to their end before returning.
func buildExploreIndex(rd *replay.Reader, opts replay.Options) (*exploreIndex, error) {
	x := &exploreIndex{opts: opts, open: map[int]*os.File{}}
	ix, err := newExploreIndexer(opts)
	if err != nil {
		return nil, err
	}
	for {
		l, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		row, id, _, err := ix.step(l)
		if errors.Is(err, errOutsideWindow) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if id != "" {
			x.ids = append(x.ids, id)
		}
		x.rows = append(x.rows, row)
	}
	x.files, x.spool = ix.files, ix.spool
	x.findings = ix.in.Report(ix.run.Summary(rd.Stats())).Findings
	x.sessions = ix.lb.Sessions()
	x.origFindings, x.origSessions = x.findings, x.sessions
	x.off = make([]bool, len(x.rows))
	x.recompute()
	return x, nil
}

// firstProblem keeps a decode error's code and first problem only.
func firstProblem(e *replay.DecodeError) *replay.DecodeError {
	if e == nil {
		return nil
	}
	c := *e
	if len(c.Problems) > 1 {
		c.Problems = c.Problems[:1:1]
	}
	return &c
}

// recompute runs the lines in play through a fresh cursor, from the
// envelopes kept: the rows toggled off are as if they had never arrived.
func (x *exploreIndex) recompute() {
	run, _ := replay.NewRunner(replay.Options{Session: x.opts.Session, MaxLine: x.opts.MaxLine})
	if len(x.verdicts) != len(x.rows) {
		x.verdicts = make([]exploreVerdict, len(x.rows))
	}
	last := map[string]int{}
	var ev replay.Event
	for i := range x.rows {
		r := &x.rows[i]
		v := &x.verdicts[i]
		*v = exploreVerdict{acc: -1, prevAcc: -1}
		// With a pinned session, the client holds its projection
		// whatever the line.
		sid := r.sessionID
		if x.opts.Session != "" {
			sid = x.opts.Session
		}
		if a, ok := last[sid]; ok {
			v.acc = a
		}
		if x.off[i] {
			continue
		}
		var res replay.Result
		if r.err != nil || r.kind == "" {
			res = run.Apply(x.name(r), r.line, nil, r.err)
		} else {
			ev = replay.Event{Kind: r.kind, EventID: r.eventID, SessionID: r.sessionID, TurnID: r.turnID, Sequence: r.seq}
			res = run.Apply(x.name(r), r.line, &ev, nil)
		}
		v.reason, v.prev, v.gap = res.Reason, res.Prev, res.Gap
		if res.Verdict() == replay.Accepted {
			v.prevAcc = v.acc
			v.acc = i
			last[sid] = i
		}
	}
}

// toggle turns row i off or back on and recomputes every verdict.
func (x *exploreIndex) toggle(i int) {
	x.off[i] = !x.off[i]
	x.recompute()
}

func (x *exploreIndex) name(r *exploreRow) string { return x.files[r.file].name }

// raw reads row r's line again: from its file at its offset, or from the
// spool. A line over --max-line was never held and is not read.
func (x *exploreIndex) raw(r *exploreRow) ([]byte, error) {
	if r.tooLong {
		return nil, nil
	}
	f := x.spool
	if !x.files[r.file].spool {
		var ok bool
		if f, ok = x.open[r.file]; !ok {
			var err error
			if f, err = os.Open(x.files[r.file].name); err != nil {
				return nil, err
			}
			x.open[r.file] = f
		}
	}
	b := make([]byte, r.size)
	if _, err := f.ReadAt(b, r.off); err != nil {
		return nil, fmt.Errorf("reading %s line %d again: %w", x.files[r.file].name, r.line, err)
	}
	return b, nil
}

// decode reads row i again and decodes it with its messages.
func (x *exploreIndex) decode(i int) (*replay.Event, []byte, error) {
	raw, err := x.raw(&x.rows[i])
	if err != nil || raw == nil {
		return nil, raw, err
	}
	d := replay.Decoder{Messages: true, EventPath: x.opts.EventPath}
	var ev replay.Event
	if derr := d.Decode(raw, &ev); derr != nil {
		return nil, raw, nil
	}
	return &ev, raw, nil
}

// writeKept writes the capture minus the rows toggled off, one line each.
func (x *exploreIndex) writeKept(w io.Writer) (int, error) {
	bw := bufio.NewWriter(w)
	n := 0
	for i := range x.rows {
		if x.off[i] || x.rows[i].tooLong {
			continue
		}
		raw, err := x.raw(&x.rows[i])
		if err != nil {
			return n, err
		}
		bw.Write(raw)
		bw.WriteByte('\n')
		n++
	}
	return n, bw.Flush()
}

// close releases the files held open to read lines again.
func (x *exploreIndex) close() {
	for _, f := range x.open {
		f.Close()
	}
	if x.spool != nil {
		x.spool.Close()
	}
}

// find is the place in view, after p and wrapping, of the next row whose
// event, turn or session id is q, or whose line holds q: a message id or
// text, found by reading lines again one at a time.
func (x *exploreIndex) find(view []int, p int, q string) (int, bool) {
	needle := []byte(q)
	for k := 1; k <= len(view); k++ {
		at := (p + k) % len(view)
		r := &x.rows[view[at]]
		if r.eventID == q || r.turnID == q || r.sessionID == q {
			return at, true
		}
		if raw, err := x.raw(r); err == nil && bytes.Contains(raw, needle) {
			return at, true
		}
	}
	return 0, false
}

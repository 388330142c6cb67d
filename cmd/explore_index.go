package cmd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/inspect/lineage"
	"github.com/agentskit/snapctl/replay"
)

// exploreFile is one capture: its name, and the spool its lines were
// copied to when they cannot be read again at their offset (standard
// input, gzip, zstd).
type exploreFile struct {
	name  string
	spool bool
}

// exploreIndex is the capture as the explorer holds it: a row per line,
// with the verdict of the lines in play (all but the toggled ones), the
// tables the rows' ids point into, and the report and lineage of the
// capture as read.
type exploreIndex struct {
	files []exploreFile
	rows  exploreRows
	opts  replay.Options
	ids   []string // sessions in order of first appearance
	turns []string // the turn ids the rows name, as far as exploreMaxTurns

	// run and last are the cursors after the first done rows, so that
	// rows that arrive from a live stream are judged without judging the
	// others again; last is the row each cursor accepted last, by session
	// (0 when pinned). Once no more rows can come (live is false), they
	// are dropped: a runner holds a few hundred bytes a session.
	run  *replay.Runner
	last map[uint32]int32
	done int
	live bool
	offs int // rows toggled off

	// findings and sessions are those of the lines in play, orig* those
	// of the capture as read.
	findings, origFindings []inspect.Finding
	sessions, origSessions []*lineage.Session

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
	run      *replay.Runner
	in       *inspect.Inspector
	lb       *lineage.Builder
	fileIdx  map[string]int
	files    []exploreFile
	spool    *os.File
	off      int64
	spoolMax int64 // exploreSpoolMax but in tests
	rows     int
	sessions map[string]uint32
	turns    map[string]uint32
	// observe, when set, sees every result too (the hint's Sniffer).
	observe func(*replay.Result)
}

// exploreNews is what a row brings into the index's tables: the session
// and turn it names first, if any, and the file it is the first line of.
type exploreNews struct {
	session, turn string
	file          *exploreFile
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
		fileIdx: map[string]int{}, sessions: map[string]uint32{}, turns: map[string]uint32{}, spoolMax: exploreSpoolMax}, nil
}

// step indexes one line.
func (ix *exploreIndexer) step(l replay.Line) (row exploreRow, news exploreNews, err error) {
	fi, ok := ix.fileIdx[l.File]
	if !ok {
		if len(ix.files) == exploreMaxFiles {
			return row, news, errExploreTooBig
		}
		fi = len(ix.files)
		ix.fileIdx[l.File] = fi
		ix.files = append(ix.files, exploreFile{name: l.File, spool: needsSpool(l.File)})
		news.file = &ix.files[fi]
	}
	if ix.rows == exploreMaxRows || l.Num > math.MaxUint32 {
		return row, news, errExploreTooBig
	}
	row = exploreRow{file: uint16(fi), line: uint32(l.Num), off: l.Off, size: uint32(len(l.Data)), link: -1}
	if l.TooLong {
		row.flags |= rowTooLong
		row.size = uint32(min(l.Len, math.MaxUint32))
	}
	if ix.files[fi].spool && !l.TooLong {
		if err := ix.spoolLine(l.Data); err != nil {
			return row, news, err
		}
		row.off = ix.off - int64(len(l.Data))
	}
	res := ix.run.Step(l)
	if res.Reason == "" {
		// Outside --lines, --since or --until: as if never read.
		return row, news, errOutsideWindow
	}
	ix.rows++
	if ev := res.Event; ev != nil {
		row.flags |= kindCode(ev.Kind)
		row.seq = ev.Sequence
		row.session, news.session = intern(ix.sessions, ev.SessionID, math.MaxUint32-1)
		row.turn, news.turn = ix.turn(ev.TurnID)
	} else {
		row.flags |= rowMalformed
	}
	ix.in.Observe(&res)
	ix.lb.Add(&res)
	if ix.observe != nil {
		ix.observe(&res)
	}
	return row, news, nil
}

// spoolLine copies a line that cannot be read again where it is to the
// spool, within exploreSpoolMax.
func (ix *exploreIndexer) spoolLine(data []byte) error {
	if ix.off+int64(len(data)) > ix.spoolMax {
		return fmt.Errorf("explore copies standard input and compressed captures to a temporary file to show their lines again, and stops at %s: decompress the capture to a file and explore that", byteSize(ix.spoolMax))
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
// table has room and the id is short, otherwise the row says
// turnUnlisted and the id is read from its line when shown.
func (ix *exploreIndexer) turn(id string) (uint32, string) {
	if id == "" {
		return 0, ""
	}
	if t, ok := ix.turns[id]; ok {
		return t, ""
	}
	if len(ix.turns) == exploreMaxTurns || len(id) > exploreMaxTurnLen {
		return turnUnlisted, ""
	}
	return intern(ix.turns, id, exploreMaxTurns)
}

// intern is the 1-based index of id in table, and id itself when it is
// new there.
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

// add appends a row and what it brings to the tables.
func (x *exploreIndex) add(r exploreRow, news exploreNews) {
	if news.session != "" {
		x.ids = append(x.ids, news.session)
	}
	if news.turn != "" {
		x.turns = append(x.turns, news.turn)
	}
	x.rows.add(r)
}

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
		row, news, err := ix.step(l)
		if errors.Is(err, errOutsideWindow) {
			continue
		}
		if err != nil {
			if ix.spool != nil {
				ix.spool.Close()
			}
			return nil, err
		}
		x.add(row, news)
	}
	x.files, x.spool = ix.files, ix.spool
	x.findings = ix.in.Report(ix.run.Summary(rd.Stats())).Findings
	x.sessions = ix.lb.Sessions()
	x.origFindings, x.origSessions = x.findings, x.sessions
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

// recompute runs the lines in play through fresh cursors, from the
// envelopes kept: the rows toggled off are as if they had never arrived.
func (x *exploreIndex) recompute() {
	x.run, _ = replay.NewRunner(replay.Options{Session: x.opts.Session, MaxLine: x.opts.MaxLine})
	x.last, x.done = map[uint32]int32{}, 0
	x.extend()
}

// extend judges the rows that arrived since the last call, from the
// cursors as the rows before them left them.
func (x *exploreIndex) extend() {
	if x.run == nil {
		x.recompute()
		return
	}
	defer func() {
		if !x.live {
			x.run, x.last = nil, nil
		}
	}()
	bad := &replay.DecodeError{} // the cursor needs only to know it is one
	var ev replay.Event
	for ; x.done < x.rows.len(); x.done++ {
		i := x.done
		r := x.rows.at(i)
		// With a pinned session, the client holds its projection
		// whatever the line.
		key := r.session
		if x.opts.Session != "" {
			key = 0
		}
		acc, ok := x.last[key]
		if !ok {
			acc = -1
		}
		r.link, r.reason = acc, 0
		if r.flags&rowOff != 0 {
			continue
		}
		var res replay.Result
		if r.malformed() || r.kind() == "" {
			res = x.run.Apply(x.name(r), int(r.line), nil, bad)
		} else {
			ev = replay.Event{Kind: r.kind(), SessionID: x.sessionID(r), Sequence: r.seq}
			res = x.run.Apply(x.name(r), int(r.line), &ev, nil)
		}
		r.reason = reasonCode(res.Reason)
		if res.Verdict() == replay.Accepted {
			x.last[key] = int32(i)
		}
	}
}

// toggle turns row i off or back on and recomputes every verdict.
func (x *exploreIndex) toggle(i int) {
	r := x.rows.at(i)
	r.flags ^= rowOff
	if r.flags&rowOff != 0 {
		x.offs++
	} else {
		x.offs--
	}
	x.recompute()
}

func (x *exploreIndex) len() int                  { return x.rows.len() }
func (x *exploreIndex) row(i int) *exploreRow     { return x.rows.at(i) }
func (x *exploreIndex) isOff(i int) bool          { return x.rows.at(i).flags&rowOff != 0 }
func (x *exploreIndex) name(r *exploreRow) string { return x.files[r.file].name }
func (x *exploreIndex) line(i int) int            { return int(x.rows.at(i).line) }

// reason is row i's reason among the lines in play, "" when it is off.
func (x *exploreIndex) reason(i int) replay.Reason {
	if c := x.rows.at(i).reason; c > 0 {
		return replay.Reasons[c-1]
	}
	return ""
}

// acc is the row holding the projection of row i's session after it, -1
// when there is none yet.
func (x *exploreIndex) acc(i int) int {
	if x.reason(i).Verdict() == replay.Accepted {
		return i
	}
	return int(x.rows.at(i).link)
}

// prevAcc is, for an accepted row, the row its cursor accepted before
// it; -1 for any other, or for a first snapshot.
func (x *exploreIndex) prevAcc(i int) int {
	if x.reason(i).Verdict() == replay.Accepted {
		return int(x.rows.at(i).link)
	}
	return -1
}

// sessionID is the session row r names, "" for none.
func (x *exploreIndex) sessionID(r *exploreRow) string {
	if r.session == 0 {
		return ""
	}
	return x.ids[r.session-1]
}

// listedTurn is the turn row r names from the table, and false when the
// table has no room for it: turnID reads it from the line.
func (x *exploreIndex) listedTurn(r *exploreRow) (string, bool) {
	switch r.turn {
	case 0:
		return "", true
	case turnUnlisted:
		return "", false
	}
	return x.turns[r.turn-1], true
}

// turnID is the turn row i names.
func (x *exploreIndex) turnID(i int) string {
	if t, ok := x.listedTurn(x.rows.at(i)); ok {
		return t
	}
	if ev, _, _ := x.decode(i); ev != nil {
		return ev.TurnID
	}
	return ""
}

// result is row i's verdict among the lines in play, as replay would
// report it (the event with its envelope only).
func (x *exploreIndex) result(i int) *replay.Result {
	r := x.rows.at(i)
	res := &replay.Result{File: x.name(r), Line: int(r.line), Reason: x.reason(i)}
	if r.malformed() {
		res.Err = x.decodeError(i)
		return res
	}
	res.Event = &replay.Event{Kind: r.kind(), SessionID: x.sessionID(r), TurnID: x.turnID(i), Sequence: r.seq}
	// The cursor's accepted sequence before the row, which the index
	// does not keep: that of the row it accepted last.
	switch prev := x.prevAcc(i); res.Reason {
	case replay.ReasonAdvanced:
		res.Prev = x.rows.at(prev).seq
		res.Gap = r.seq - res.Prev - 1
	case replay.ReasonStale, replay.ReasonDuplicate:
		res.Prev = x.rows.at(x.acc(i)).seq
	}
	return res
}

// decodeError is the first problem of malformed row i, found again as
// the indexer found it: from the line read again, or its length.
func (x *exploreIndex) decodeError(i int) *replay.DecodeError {
	r := x.rows.at(i)
	l := replay.Line{File: x.name(r), Num: int(r.line), Off: r.off, TooLong: r.tooLong(), Len: int64(r.size)}
	if !l.TooLong {
		raw, err := x.raw(r)
		if err != nil {
			return &replay.DecodeError{}
		}
		l.Data = raw
	}
	run, err := replay.NewRunner(replay.Options{MaxLine: x.opts.MaxLine, EventPath: x.opts.EventPath, Messages: true, Hash: true})
	if err != nil {
		return &replay.DecodeError{}
	}
	if e := run.Step(l).Err; e != nil {
		return firstProblem(e)
	}
	return &replay.DecodeError{}
}

// raw reads row r's line again: from its file at its offset, or from the
// spool. A line over --max-line was never held and is not read.
func (x *exploreIndex) raw(r *exploreRow) ([]byte, error) {
	if r.tooLong() {
		return nil, nil
	}
	f := x.spool
	fi := int(r.file)
	if !x.files[fi].spool {
		var ok bool
		if f, ok = x.open[fi]; !ok {
			var err error
			if f, err = os.Open(x.files[fi].name); err != nil {
				return nil, err
			}
			x.open[fi] = f
		}
	}
	b := make([]byte, r.size)
	if _, err := f.ReadAt(b, r.off); err != nil {
		return nil, fmt.Errorf("reading %s line %d again: %w", x.files[fi].name, r.line, err)
	}
	return b, nil
}

// decode reads row i again and decodes it with its messages.
func (x *exploreIndex) decode(i int) (*replay.Event, []byte, error) {
	raw, err := x.raw(x.rows.at(i))
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
	for i := range x.len() {
		r := x.rows.at(i)
		if r.flags&rowOff != 0 || r.tooLong() {
			continue
		}
		raw, err := x.raw(r)
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
// turn or session id is q, or whose line holds q: an event or message
// id, or text, found by reading lines again one at a time.
func (x *exploreIndex) find(view []int32, p int, q string) (int, bool) {
	needle := []byte(q)
	for k := 1; k <= len(view); k++ {
		at := (p + k) % len(view)
		r := x.rows.at(int(view[at]))
		if t, _ := x.listedTurn(r); t == q || x.sessionID(r) == q {
			return at, true
		}
		if raw, err := x.raw(r); err == nil && bytes.Contains(raw, needle) {
			return at, true
		}
	}
	return 0, false
}

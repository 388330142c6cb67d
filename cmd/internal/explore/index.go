package explore

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"

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
	// redact leaves the capture's free text out of what-if findings
	// (inspect.Options.Redact), as out of the first ones.
	redact bool
	ids    []string // sessions in order of first appearance
	turns  []string // the turn ids the rows name, as far as exploreMaxTurns
	// entries are the HAR entries of the rows, one run of rows each: the
	// entry from the run's first row on (none for other formats, whose
	// rows have entry 0 and need no run).
	entries []entryRun
	// cut are the rows that break off where their capture ends
	// (replay.Result.Cut), at most one a file; leftOut the rows before
	// which the window left events of their session out
	// (replay.Result.LeftOut), in order.
	cut, leftOut []int32

	// accs is, by cursor (see cursorKey), the row it accepted last among
	// the rows in play, -1 for none, and tails the last row it judged,
	// which the next row of the cursor is chained to (exploreRows.next).
	accs, tails []int32
	offs        int // rows toggled off
	// rejudged is how many rows the last toggle judged again.
	rejudged int

	// findings, sessions and verdicts (by session id, see
	// inspect.Verdict) are those of the lines in play, orig* those of the
	// capture as read.
	findings, origFindings []inspect.Finding
	// cites are, finding by finding, the rows it cites, in row order:
	// every one, where the findings keep their first positions only.
	cites, origCites [][]int32
	// ended are the turns the verdicts count unfinished, and ends the
	// rows where they ended, in row order (see citedRows), of the lines
	// in play and of the capture.
	ended, origEnded []inspect.TurnEnding
	ends, origEnds   []int32
	// endings are how every turn ended, by session (see exploreOutcome),
	// of the lines in play and of the capture.
	endings, origEndings   map[string]sessionTurns
	sessions, origSessions []*lineage.Session
	verdicts, origVerdicts map[string]inspect.Verdict
	// window are the turns the window ended, which a what-if run of the
	// lines it kept carries over (exploreOutcome).
	window replay.WindowEnds

	spool *os.File
	open  map[int]*os.File
}

// compressedMagic reports whether head starts like a gzip or zstd stream,
// whose offsets replay reports after decompression.
func compressedMagic(head []byte) bool {
	return bytes.HasPrefix(head, []byte{0x1f, 0x8b}) || bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd})
}

// spoolsNone says whether no capture of files is one needsSpool, so that
// only the lines of a format other than NDJSON are spooled: false for
// none, which is standard input.
func spoolsNone(files []string) bool {
	for _, f := range files {
		if needsSpool(f) {
			return false
		}
	}
	return len(files) > 0
}

// needsSpool says whether the lines of a capture must be copied to be
// read again: standard input, a pipe or a device can be read once, and a
// compressed file's offsets are in its decompressed text.
func needsSpool(name string) bool {
	if name == replay.StdinName {
		return true
	}
	// A pipe or a device is read once, and opened here it would give
	// away bytes of the stream.
	if fi, err := os.Stat(name); err != nil || !fi.Mode().IsRegular() {
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

// entryRun is the HAR entry of the rows from row on, and the session and
// turn its request's submit names (replay.Origin.RequestSession).
type entryRun struct {
	row, entry int32
	reqSession string
	reqTurn    string
}

// entryRunOf is the run of HAR entry row i is in, nil for none.
func (x *exploreIndex) entryRunOf(i int) *entryRun {
	k := sort.Search(len(x.entries), func(k int) bool { return int(x.entries[k].row) > i })
	if k == 0 {
		return nil
	}
	return &x.entries[k-1]
}

// entry is the HAR entry whose body holds row i, 0 for none.
func (x *exploreIndex) entry(i int) int {
	if r := x.entryRunOf(i); r != nil {
		return int(r.entry)
	}
	return 0
}

// citedRows finds the rows each finding cites, from every position the
// explorer asked inspect for, and then keeps of a finding's positions
// only the first inspect.DefaultMaxPositions, as inspect lists them: a
// row index costs 4 bytes where a position costs 40, and a finding such
// as timestamp-sequence cites every accepted line. It finds, in the same
// pass over the rows, the rows where the unfinished turns ended
// (inspect.SessionOverview.Unfinished): problems of every view's list
// (inspect.ProblemReason).
func (x *exploreIndex) citedRows(fs []inspect.Finding, ended []inspect.TurnEnding) (cites [][]int32, ends []int32) {
	fileIdx := map[string]uint16{}
	for i, f := range x.files {
		fileIdx[f.name] = uint16(i)
	}
	key := func(p inspect.Position) (inspectPos, bool) {
		fi, ok := fileIdx[p.File]
		return inspectPos{fi, int32(p.Entry), uint32(p.Line)}, ok && p.Line > 0
	}
	rowOf := map[inspectPos]int32{}
	for _, f := range fs {
		for _, p := range f.Positions {
			if k, ok := key(p); ok {
				rowOf[k] = -1
			}
		}
	}
	var endKeys []inspectPos
	for _, e := range ended {
		if k, ok := key(inspect.Position(e.At)); ok {
			rowOf[k] = -1
			endKeys = append(endKeys, k)
		}
	}
	if len(rowOf) > 0 {
		for i := range x.len() {
			r := x.row(i)
			k := inspectPos{r.file, int32(x.entry(i)), r.line}
			if _, ok := rowOf[k]; ok {
				rowOf[k] = int32(i)
			}
		}
	}
	cites = make([][]int32, len(fs))
	for n := range fs {
		f := &fs[n]
		for _, p := range f.Positions {
			if k, ok := key(p); ok && rowOf[k] >= 0 {
				cites[n] = append(cites[n], rowOf[k])
			}
		}
		slices.Sort(cites[n])
		// A copy of its own length: append left up to twice the room.
		cites[n] = slices.Clone(slices.Compact(cites[n]))
		if len(f.Positions) > inspect.DefaultMaxPositions {
			f.Positions = append([]inspect.Position(nil), f.Positions[:inspect.DefaultMaxPositions]...)
		}
	}
	for _, k := range endKeys {
		if r := rowOf[k]; r >= 0 {
			ends = append(ends, r)
		}
	}
	slices.Sort(ends)
	return cites, slices.Compact(ends)
}

// origin is what a result of row i needs of its format: its HAR entry,
// nil for none.
func (x *exploreIndex) origin(i int) *replay.Origin {
	if r := x.entryRunOf(i); r != nil && r.entry > 0 {
		return &replay.Origin{Entry: int(r.entry), RequestSession: r.reqSession, RequestTurn: r.reqTurn}
	}
	return nil
}

// add appends a row and what it brings to the tables.
func (x *exploreIndex) add(r exploreRow, news exploreNews) {
	if e := int32(news.entry); e != int32(x.entry(x.rows.len())) {
		x.entries = append(x.entries, entryRun{row: int32(x.rows.len()), entry: e, reqSession: news.reqSession, reqTurn: news.reqTurn})
	}
	if news.session != "" {
		x.ids = append(x.ids, news.session)
	}
	if news.turn != "" {
		x.turns = append(x.turns, news.turn)
	}
	if news.cut {
		x.cut = append(x.cut, int32(x.rows.len()))
	}
	if news.leftOut {
		x.leftOut = append(x.leftOut, int32(x.rows.len()))
	}
	x.rows.add(r)
	x.judgeNew(x.rows.len() - 1)
}

// buildExploreIndex reads the captures to their end before returning;
// redact is inspect.Options.Redact.
func buildExploreIndex(rd *replay.Reader, opts replay.Options, redact bool) (*exploreIndex, error) {
	x := &exploreIndex{opts: opts, redact: redact, open: map[int]*os.File{}}
	ix, err := newExploreIndexer(opts, redact)
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
	o := ix.finish(ix.summary(rd.Stats()))
	x.findings, x.verdicts, x.sessions, x.ended, x.endings, x.window = o.findings, o.verdicts, o.sessions, o.ended, o.endings, o.window
	x.cites, x.ends = x.citedRows(x.findings, x.ended)
	x.origFindings, x.origSessions, x.origVerdicts, x.origCites, x.origEnds, x.origEnded, x.origEndings = x.findings, x.sessions, x.verdicts, x.cites, x.ends, x.ended, x.endings
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

// raw reads row r's line again: from its file at its offset, or from the
// spool. A line over --max-line was never held and is not read.
func (x *exploreIndex) raw(r *exploreRow) ([]byte, error) {
	if r.tooLong() {
		return nil, nil
	}
	f, err := x.fileOf(r)
	if err != nil {
		return nil, err
	}
	b := make([]byte, r.size)
	if _, err := f.ReadAt(b, r.off); err != nil {
		return nil, x.readAgainError(r, err)
	}
	return b, nil
}

// fileOf is the file row r's line is read again from: its capture, held
// open once opened, or the spool.
func (x *exploreIndex) fileOf(r *exploreRow) (*os.File, error) {
	fi := int(r.file)
	if x.files[fi].spool {
		return x.spool, nil
	}
	if f, ok := x.open[fi]; ok {
		return f, nil
	}
	f, err := os.Open(x.files[fi].name)
	if err != nil {
		return nil, err
	}
	x.open[fi] = f
	return f, nil
}

func (x *exploreIndex) readAgainError(r *exploreRow, err error) error {
	return fmt.Errorf("reading %s line %d again: %w", x.files[r.file].name, r.line, err)
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

// writeKept writes the capture minus the rows toggled off, one line each:
// the last without its newline when it breaks off where its capture
// ended (x.cut), as the what-if judged it (capture-cut).
func (x *exploreIndex) writeKept(w io.Writer) (int, error) {
	bw := bufio.NewWriter(w)
	n, last := 0, -1
	for i := range x.len() {
		r := x.rows.at(i)
		if r.flags&rowOff != 0 || r.tooLong() {
			continue
		}
		raw, err := x.raw(r)
		if err != nil {
			return n, err
		}
		if last >= 0 {
			bw.WriteByte('\n')
		}
		bw.Write(raw)
		n, last = n+1, i
	}
	if _, cut := slices.BinarySearch(x.cut, int32(last)); last >= 0 && !cut {
		bw.WriteByte('\n')
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

package explore

import (
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/inspect/lineage"
	"github.com/agentskit/snapctl/replay"
)

// The findings and the lineage tree of a what-if are those of the capture
// without its toggled lines: the kept lines are read again and run through
// the cursors, inspect and lineage at their own places, on a goroutine of
// their own.

// exploreWhatIfMsg carries the findings and tree of the lines in play at
// generation gen of the toggles.
type exploreWhatIfMsg struct {
	gen      int
	findings []inspect.Finding
	sessions []*lineage.Session
	verdicts map[string]inspect.Verdict
	ended    []inspect.TurnEnding
	endings  map[string]sessionTurns
	err      error
}

// whatIfCmd recomputes findings and tree for the toggles as they are now.
// It works on its own copy of what it reads: the rows to keep, those of
// them over --max-line, and files of its own.
func (x *exploreIndex) whatIfCmd(gen int) tea.Cmd {
	var kept []int32
	long := map[int32]bool{}
	for i := range x.len() {
		if r := x.row(i); r.flags&rowOff == 0 {
			kept = append(kept, int32(i))
			if r.tooLong() {
				long[int32(i)] = true
			}
		}
	}
	// The rows are shared: the goroutine reads where each line is, which
	// never changes, while the model changes verdicts, marks and toggles.
	src := &exploreIndex{files: append([]exploreFile(nil), x.files...), rows: x.rows, entries: x.entries, cut: x.cut, leftOut: x.leftOut, spool: x.spool, opts: x.opts, open: map[int]*os.File{},
		window: x.window, redact: x.redact}
	return func() tea.Msg {
		defer func() {
			for _, f := range src.open {
				f.Close()
			}
		}()
		msg := exploreWhatIfMsg{gen: gen}
		var o exploreOutcome
		o, msg.err = src.inspectRows(kept, long)
		msg.findings, msg.sessions, msg.verdicts, msg.ended, msg.endings = o.findings, o.sessions, o.verdicts, o.ended, o.endings
		return msg
	}
}

// inspectRows runs the given rows, read again, through the cursors,
// inspect and lineage, each at its place in the capture (its file, line
// and HAR entry), so that the findings and the tree name the lines of the
// capture. A row in long is over --max-line, malformed as it was read.
func (x *exploreIndex) inspectRows(rows []int32, long map[int32]bool) (exploreOutcome, error) {
	run, err := replay.NewRunner(inspect.ReplayOptions(replay.Options{Session: x.opts.Session, MaxLine: x.opts.MaxLine, EventPath: x.opts.EventPath}))
	if err != nil {
		return exploreOutcome{}, err
	}
	in := inspect.New(inspectOptions(x.opts, x.redact))
	lb := lineage.NewBuilderOn(in.Model())
	blocks := &blockReader{x: x}
	cut, left := x.cut, x.leftOut // in row order, as rows are
	for _, i := range rows {
		r := x.row(int(i))
		l := replay.Line{File: x.name(r), Num: int(r.line), Off: r.off, Origin: x.origin(int(i))}
		if long[i] {
			l.TooLong, l.Len = true, int64(r.size)
		} else if l.Data, err = blocks.read(r); err != nil {
			return exploreOutcome{}, x.readAgainError(r, err)
		}
		res := run.Step(l)
		for len(cut) > 0 && cut[0] < i {
			cut = cut[1:]
		}
		res.Cut = res.Err != nil && len(cut) > 0 && cut[0] == i
		for len(left) > 0 && left[0] < i {
			left = left[1:]
		}
		if len(left) > 0 && left[0] == i {
			res.LeftOut = 1 // the window left events out before it all the same
		}
		lb.AddStep(&res, in.ObserveStep(&res))
	}
	sum := run.Summary(replay.Stats{Files: len(x.files), Lines: len(rows)})
	sum.SetWindowEnds(x.window) // the capture goes on past the window all the same
	return outcomeOf(sum, in, lb), nil
}

// blockReader reads rows' lines again, in order, most from a block of
// the file already read, as they lie one after the other there.
type blockReader struct {
	x *exploreIndex
	// block holds the bytes of file from off on.
	block []byte
	file  *os.File
	off   int64
}

// readBlock is how much of a file blockReader reads at once.
const readBlock = 1 << 20

// read is row r's line, from the block when it is there, else from a
// new block starting with it; it is valid until the next call.
func (k *blockReader) read(r *exploreRow) ([]byte, error) {
	f, err := k.x.fileOf(r)
	if err != nil {
		return nil, err
	}
	end := r.off + int64(r.size)
	if f != k.file || r.off < k.off || end > k.off+int64(len(k.block)) {
		if cap(k.block) < readBlock {
			k.block = make([]byte, readBlock)
		}
		k.block = k.block[:max(readBlock, int(r.size))]
		n, err := f.ReadAt(k.block, r.off)
		if n < int(r.size) {
			return nil, err
		}
		k.block, k.file, k.off = k.block[:n], f, r.off
	}
	return k.block[r.off-k.off : end-k.off], nil
}

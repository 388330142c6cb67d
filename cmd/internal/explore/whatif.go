package explore

import (
	"io"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/inspect/lineage"
	"github.com/agentskit/snapctl/replay"
)

// The findings and the lineage tree of a what-if are those of the capture
// without its toggled lines: the kept lines are read again and run through
// inspect and lineage as a capture of their own, on a goroutine of their
// own, and the positions of the findings are mapped back to the lines of
// the capture.

// exploreWhatIfMsg carries the findings and tree of the lines in play at
// generation gen of the toggles.
type exploreWhatIfMsg struct {
	gen      int
	findings []inspect.Finding
	sessions []*lineage.Session
	verdicts map[string]inspect.Verdict
	err      error
}

// whatIfCmd recomputes findings and tree for the toggles as they are now.
// It works on its own copy of what it reads: the rows to keep and a reader
// of its own over the same files.
func (x *exploreIndex) whatIfCmd(gen int) tea.Cmd {
	var kept []int32
	for i := range x.len() {
		if r := x.row(i); r.flags&rowOff == 0 && !r.tooLong() {
			kept = append(kept, int32(i))
		}
	}
	// The rows are shared: the goroutine reads where each line is, which
	// never changes, while the model changes verdicts and toggles.
	src := &exploreIndex{files: append([]exploreFile(nil), x.files...), rows: x.rows, spool: x.spool, opts: x.opts, open: map[int]*os.File{}}
	return func() tea.Msg {
		defer func() {
			for _, f := range src.open {
				f.Close()
			}
		}()
		msg := exploreWhatIfMsg{gen: gen}
		msg.findings, msg.sessions, msg.verdicts, msg.err = src.inspectRows(kept)
		return msg
	}
}

// inspectRows runs the given rows, read again, through inspect and
// lineage as one capture, and names the lines of its findings as the
// rows do.
func (x *exploreIndex) inspectRows(rows []int32) ([]inspect.Finding, []*lineage.Session, map[string]inspect.Verdict, error) {
	rd, err := replay.Open([]string{replay.StdinName}, &keptLines{x: x, rows: rows}, x.opts.MaxLine)
	if err != nil {
		return nil, nil, nil, err
	}
	defer rd.Close()
	in := inspect.New(inspectOptions(x.opts))
	lb := lineage.NewBuilder(x.opts.Session)
	opts := replay.Options{Session: x.opts.Session, MaxLine: x.opts.MaxLine, EventPath: x.opts.EventPath, Messages: true, Hash: true}
	sum, err := replay.Run(rd, opts, func(res *replay.Result) error {
		in.Observe(res)
		lb.Add(res)
		return nil
	})
	if err == nil {
		err = rd.Err()
	}
	if err != nil {
		return nil, nil, nil, err
	}
	o := outcomeOf(sum, in, lb)
	findings := o.findings
	for f := range findings {
		for p, at := range findings[f].Positions {
			// Line n of the kept lines is rows[n-1].
			if at.Line >= 1 && at.Line <= len(rows) {
				r := x.row(int(rows[at.Line-1]))
				findings[f].Positions[p] = inspect.Position{File: x.files[r.file].name, Line: int(r.line), Entry: x.entry(int(rows[at.Line-1]))}
			}
		}
	}
	return findings, o.sessions, o.verdicts, nil
}

// keptLines is the text of the given rows, read again, one line each: a
// capture of its own. The rows are read in order, most from a block of
// the file already read, as they lie one after the other there.
type keptLines struct {
	x    *exploreIndex
	rows []int32
	next int // in rows
	// line is what is left of the row being read, and nl whether its
	// line ending is.
	line []byte
	nl   bool
	// block holds the bytes of file from off on.
	block []byte
	file  *os.File
	off   int64
}

// keptBlock is how much of a file keptLines reads at once.
const keptBlock = 1 << 20

func (k *keptLines) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		switch {
		case len(k.line) > 0:
			c := copy(p[n:], k.line)
			k.line, n = k.line[c:], n+c
		case k.nl:
			p[n], k.nl, n = '\n', false, n+1
		case k.next == len(k.rows):
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		default:
			r := k.x.row(int(k.rows[k.next]))
			line, err := k.read(r)
			if err != nil {
				return n, k.x.readAgainError(r, err)
			}
			k.line, k.nl, k.next = line, true, k.next+1
		}
	}
	return n, nil
}

// read is row r's line, from the block when it is there, else from a
// new block starting with it.
func (k *keptLines) read(r *exploreRow) ([]byte, error) {
	f, err := k.x.fileOf(r)
	if err != nil {
		return nil, err
	}
	end := r.off + int64(r.size)
	if f != k.file || r.off < k.off || end > k.off+int64(len(k.block)) {
		if cap(k.block) < keptBlock {
			k.block = make([]byte, keptBlock)
		}
		k.block = k.block[:max(keptBlock, int(r.size))]
		n, err := f.ReadAt(k.block, r.off)
		if n < int(r.size) {
			return nil, err
		}
		k.block, k.file, k.off = k.block[:n], f, r.off
	}
	return k.block[r.off-k.off : end-k.off], nil
}

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
	pr, pw := io.Pipe()
	go func() {
		for _, i := range rows {
			raw, err := x.raw(x.row(int(i)))
			if err == nil {
				_, err = pw.Write(append(raw, '\n'))
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		pw.Close()
	}()
	rd, err := replay.Open([]string{replay.StdinName}, pr, x.opts.MaxLine)
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
	rep := in.Report(sum)
	findings := rep.Findings
	for f := range findings {
		for p, at := range findings[f].Positions {
			// Line n of the kept lines is rows[n-1].
			if at.Line >= 1 && at.Line <= len(rows) {
				r := x.row(int(rows[at.Line-1]))
				findings[f].Positions[p] = inspect.Position{File: x.files[r.file].name, Line: int(r.line), Entry: x.entry(int(rows[at.Line-1]))}
			}
		}
	}
	return findings, lb.Sessions(), rep.Verdicts(), nil
}

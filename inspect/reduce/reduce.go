// Package reduce finds the smallest part of a capture that still shows a
// finding: delta debugging (ddmin) over the capture's lines, with the
// analysis model of package inspect as the test. A subset "still shows"
// the finding when inspect, run on those lines alone in their order,
// reports a finding of the same name, session and severity; the result is
// 1-minimal: removing any one more line loses it.
//
// The lines are held once, as the caller read them, and every test reads
// a subset of them through the cursor and the model again without
// copying them, so memory is the capture's lines plus a fixed cost.
// Cheap first steps (only the finding's session, only the lines up to its
// last position) take most of a large capture away before ddmin starts.
package reduce

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/replay"
)

// Target is a finding that a reduced capture must still produce.
type Target struct {
	ID        string
	SessionID string
	Severity  inspect.Severity
}

func (t Target) String() string {
	s := t.ID + " (" + string(t.Severity) + ")"
	if t.SessionID != "" {
		s += " in session " + t.SessionID
	}
	return s
}

// Options are the reader's and the cursor's, as in every command.
type Options struct {
	// Session pins the trusted session, as --session does everywhere.
	Session   string
	MaxLine   int
	EventPath string
	// Progress, when set, is called after every test with the number of
	// tests run and the lines of the smallest subset found so far.
	Progress func(tests, lines int)
	// Unterminated says that no newline ends the capture's last line
	// (ReadLines): a subset that keeps that line ends without one too.
	Unterminated bool
}

// ErrNoFinding is returned by Targets when the capture has no finding
// that the choice names.
var ErrNoFinding = errors.New("no such finding")

// Targets chooses what a reduction must keep from the report of the
// whole capture: the first finding named finding (in the session, when
// one is given), or, with no finding named, every finding of the session,
// or, with neither, the first of the worst severity.
func Targets(rep inspect.Report, finding, session string) ([]Target, error) {
	var out []Target
	for _, f := range rep.Findings {
		t := Target{ID: f.ID, SessionID: f.SessionID, Severity: f.Severity}
		switch {
		case finding != "":
			if f.ID == finding && (session == "" || f.SessionID == session) {
				return []Target{t}, nil
			}
		case session != "":
			if f.SessionID == session && !slices.Contains(out, t) {
				out = append(out, t)
			}
		case len(out) == 0 || f.Severity.Rank() < out[0].Severity.Rank():
			out = []Target{t}
		}
	}
	if len(out) == 0 {
		switch {
		case finding != "" && session != "":
			return nil, fmt.Errorf("%w: no %s finding in session %s", ErrNoFinding, finding, session)
		case finding != "":
			return nil, fmt.Errorf("%w: the capture has no %s finding", ErrNoFinding, finding)
		case session != "":
			return nil, fmt.Errorf("%w: session %s has no finding", ErrNoFinding, session)
		}
		return nil, fmt.Errorf("%w: the capture has no finding", ErrNoFinding)
	}
	return out, nil
}

// Of reports whether f is a finding the target names: the same name,
// session and severity.
func (t Target) Of(f inspect.Finding) bool {
	return f.ID == t.ID && f.SessionID == t.SessionID && f.Severity == t.Severity
}

// Shows reports whether rep produces every target.
func Shows(rep inspect.Report, targets []Target) bool {
	for _, t := range targets {
		if !slices.ContainsFunc(rep.Findings, t.Of) {
			return false
		}
	}
	return true
}

// A Reducer runs the model on subsets of one capture's lines.
type Reducer struct {
	lines [][]byte
	opts  Options
	tests int
	// whole is the report of every line, made once (Whole), and sessions
	// the session each line names, "" for none.
	whole    *inspect.Report
	sessions []string
}

// New reduces lines, each an event line of the capture without its
// newline, in capture order.
func New(lines [][]byte, opts Options) *Reducer {
	return &Reducer{lines: lines, opts: opts}
}

// Tests is how many subsets have been run through the model.
func (r *Reducer) Tests() int { return r.tests }

// Whole is the report of the whole capture, read as standard input; it
// is made once, and Reduce starts from it.
func (r *Reducer) Whole() (inspect.Report, error) {
	if r.whole != nil {
		return *r.whole, nil
	}
	all := make([]int, len(r.lines))
	for i := range all {
		all[i] = i
	}
	sessions := make([]string, len(r.lines))
	rep, err := r.run(all, func(res *replay.Result) {
		switch {
		case res.Line < 1 || res.Line > len(sessions):
			// Not one of the lines: they were not read as they are
			// (errNotLines, which run returns).
		case res.Event != nil:
			sessions[res.Line-1] = res.Event.SessionID
		case res.Err != nil && res.Err.Envelope != nil:
			sessions[res.Line-1] = res.Err.Envelope.SessionID
		}
	})
	if errors.Is(err, errNotLines) {
		return inspect.Report{}, fmt.Errorf("its first line opens a gzip or zstd stream (a capture compressed twice?), which would be read decompressed: reduce keeps lines as they are, so decompress the capture once more first")
	}
	if err != nil {
		return inspect.Report{}, err
	}
	r.whole, r.sessions = &rep, sessions
	return rep, nil
}

// errNotLines is a subset that is not read as its lines: its first line
// opens a gzip or zstd stream, which the reader decompresses, as it would
// the file the subset is written to.
var errNotLines = errors.New("the lines are not read back as they are")

// run runs the model on the lines idx (indexes into the capture's lines,
// in order), read as one capture on standard input. each, when set, sees
// every result; a result's Line is its 1-based place in idx, unless the
// error is errNotLines.
func (r *Reducer) run(idx []int, each func(*replay.Result)) (inspect.Report, error) {
	r.tests++
	sub := &subset{lines: r.lines, idx: idx, open: r.opts.Unterminated}
	size := sub.size()
	rd, err := replay.Open([]string{replay.StdinName}, sub, r.opts.MaxLine)
	if err != nil {
		return inspect.Report{}, err
	}
	defer rd.Close()
	if err := rd.SetFormat(replay.FormatNDJSON); err != nil {
		return inspect.Report{}, err
	}
	rep, err := inspect.Run(rd, inspect.Options{Session: r.opts.Session, MaxLine: r.opts.MaxLine,
		EventPath: r.opts.EventPath, Workers: 1, Each: each})
	if err != nil {
		return inspect.Report{}, err // the run's own error, whatever was read
	}
	if rd.Stats().Bytes != size {
		// Read as something else than the lines: a damaged stream's
		// error (rd.Err) would not say why.
		return inspect.Report{}, errNotLines
	}
	return rep, rd.Err()
}

// shows reports whether the lines idx still produce every target.
func (r *Reducer) shows(idx []int, targets []Target) (bool, error) {
	rep, err := r.run(idx, nil)
	if errors.Is(err, errNotLines) {
		return false, nil // written out, these lines would not be read as they are
	}
	return err == nil && Shows(rep, targets), err
}

// Reduce returns the indexes of a 1-minimal subset of the lines that still
// produces every target, in capture order. The whole capture must produce
// them.
func (r *Reducer) Reduce(targets []Target) ([]int, error) {
	rep, err := r.Whole()
	if err != nil {
		return nil, err
	}
	// The last line a target's finding lists.
	last := -1
	for _, t := range targets {
		if !slices.ContainsFunc(rep.Findings, t.Of) {
			return nil, fmt.Errorf("%w: the capture does not produce %s", ErrNoFinding, t)
		}
		for _, f := range rep.Findings {
			if !t.Of(f) {
				continue
			}
			if f.PositionCount > len(f.Positions) {
				last = len(r.lines) - 1 // some positions are not listed
			}
			for _, p := range f.Positions {
				last = max(last, p.Line-1)
			}
		}
	}
	cur := make([]int, len(r.lines))
	for i := range cur {
		cur[i] = i
	}
	try := func(c []int) error {
		if len(c) == 0 || len(c) >= len(cur) {
			return nil
		}
		ok, err := r.shows(c, targets)
		if ok {
			cur = c
			r.progress(len(cur))
		}
		return err
	}
	// The lines of the targets' one session (and those of no session: a
	// refusal, a line that is not JSON), then the lines up to the last
	// one a finding lists.
	if s := targets[0].SessionID; s != "" && !slices.ContainsFunc(targets, func(t Target) bool { return t.SessionID != s }) {
		if err := try(keep(cur, func(i int) bool { return r.sessions[i] == s || r.sessions[i] == "" })); err != nil {
			return nil, err
		}
	}
	if last >= 0 {
		if err := try(keep(cur, func(i int) bool { return i <= last })); err != nil {
			return nil, err
		}
	}
	return r.ddmin(cur, targets)
}

func keep(c []int, f func(int) bool) []int {
	var out []int
	for _, i := range c {
		if f(i) {
			out = append(out, i)
		}
	}
	return out
}

func (r *Reducer) progress(lines int) {
	if r.opts.Progress != nil {
		r.opts.Progress(r.tests, lines)
	}
}

// ddmin is Zeller's minimizing delta debugging: split the subset into n
// parts, keep a part or the complement of a part that still shows the
// targets, and split finer when none does. It ends when every complement
// of a single line fails, so the result is 1-minimal.
func (r *Reducer) ddmin(c []int, targets []Target) ([]int, error) {
	n := 2
	for len(c) >= 2 {
		parts := split(c, n)
		reduced := false
		for _, p := range parts {
			ok, err := r.shows(p, targets)
			if err != nil {
				return nil, err
			}
			r.progress(len(c))
			if ok {
				c, n, reduced = p, 2, true
				break
			}
		}
		if !reduced && n > 2 {
			for i := range parts {
				comp := complement(parts, i)
				ok, err := r.shows(comp, targets)
				if err != nil {
					return nil, err
				}
				r.progress(len(c))
				if ok {
					c, n, reduced = comp, max(n-1, 2), true
					break
				}
			}
		}
		if !reduced {
			if n >= len(c) {
				break
			}
			n = min(2*n, len(c))
		}
	}
	return c, nil
}

// split cuts c into n parts of nearly equal length.
func split(c []int, n int) [][]int {
	parts := make([][]int, 0, n)
	for i := range n {
		lo, hi := i*len(c)/n, (i+1)*len(c)/n
		if hi > lo {
			parts = append(parts, c[lo:hi])
		}
	}
	return parts
}

// complement is every part but parts[skip], in order.
func complement(parts [][]int, skip int) []int {
	var out []int
	for i, p := range parts {
		if i != skip {
			out = append(out, p...)
		}
	}
	return out
}

// subset reads the lines idx of lines, each followed by a newline (but
// for the last of lines, when open), without copying them.
type subset struct {
	lines [][]byte
	idx   []int
	i     int // next entry of idx
	off   int // bytes of lines[idx[i]] already read, the newline at len
	open  bool
}

// newlineAfter says whether a newline follows lines[i]: every line but
// the capture's last, when that one had none (open).
func (s *subset) newlineAfter(i int) bool { return !s.open || i != len(s.lines)-1 }

// size is how many bytes the subset reads.
func (s *subset) size() int64 {
	var n int64
	for _, i := range s.idx {
		n += int64(len(s.lines[i]))
		if s.newlineAfter(i) {
			n++
		}
	}
	return n
}

func (s *subset) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && s.i < len(s.idx) {
		l := s.lines[s.idx[s.i]]
		if s.off < len(l) {
			c := copy(p[n:], l[s.off:])
			n += c
			s.off += c
			continue
		}
		if s.newlineAfter(s.idx[s.i]) {
			p[n] = '\n'
			n++
		}
		s.i, s.off = s.i+1, 0
	}
	if n == 0 && s.i == len(s.idx) {
		return 0, io.EOF
	}
	return n, nil
}

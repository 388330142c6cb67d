package explore

import "github.com/agentskit/snapctl/replay"

// The verdicts of the rows in play. The indexer judges every line as
// replay does; a toggle then changes only what one cursor judges (each
// session's own, or the one pinned cursor), and only until that cursor
// is back where it was: a row whose cursor accepted the same row before
// it as before the toggle gets the same verdict, and so does every row
// of that cursor after it. Each row holds that state (exploreRow.link),
// a checkpoint of its cursor at every line, so a toggle re-judges the
// rows of its cursor from the toggled one until the states meet, and
// nothing else: on a capture of 200,000 sessions, a row or two.

// cursorKey is the cursor that judges row r: its session's (0 for a line
// that names none), or with a pinned session the one cursor, 0.
func cursorKey(r *exploreRow, pinned bool) int {
	if pinned {
		return 0
	}
	return int(r.session)
}

func (x *exploreIndex) key(r *exploreRow) int { return cursorKey(r, x.opts.Session != "") }

// judgeNew chains row i, just added, to the rows of its cursor, and
// judges it again when a toggle changed what its cursor accepted: the
// indexer judged it after every line, in play or not.
func (x *exploreIndex) judgeNew(i int) {
	r := x.rows.at(i)
	k := x.key(r)
	for len(x.accs) <= k {
		x.accs, x.tails = append(x.accs, -1), append(x.tails, -1)
	}
	if t := x.tails[k]; t >= 0 {
		x.rows.setNext(int(t), i)
	}
	x.tails[k] = int32(i)
	if acc := int(x.accs[k]); acc != int(r.link) {
		r.link, r.reason = int32(acc), reasonCode(x.newJudge(acc).apply(i))
	}
	if x.reason(i).Verdict() == replay.Accepted {
		x.accs[k] = int32(i)
	}
}

// toggle turns row i off or back on and judges again the rows whose
// verdict that can change.
func (x *exploreIndex) toggle(i int) {
	r := x.rows.at(i)
	r.flags ^= rowOff
	if r.flags&rowOff != 0 {
		x.offs++
	} else {
		x.offs--
	}
	x.rejudged = x.rejudge(i)
}

// rejudge judges row i and the rows of its cursor after it again, from
// the state row i's link keeps, until a row's cursor is in the state it
// was in before (its link is the row accepted last): from there on,
// nothing changed. It returns the number of rows judged.
func (x *exploreIndex) rejudge(i int) int {
	k, acc := x.key(x.rows.at(i)), int(x.rows.at(i).link)
	var j *judge // made at the first row in play
	n := 0
	for at := i; at >= 0; at = x.rows.next(at) {
		r := x.rows.at(at)
		if at != i && int(r.link) == acc {
			return n
		}
		n++
		r.link = int32(acc)
		if r.flags&rowOff != 0 {
			r.reason = 0
			continue
		}
		if j == nil {
			j = x.newJudge(acc)
		}
		if r.reason = reasonCode(j.apply(at)); x.reason(at).Verdict() == replay.Accepted {
			acc = at
		}
	}
	x.accs[k] = int32(acc)
	return n
}

// judge runs rows of one cursor through replay's own, from the envelopes
// kept: the rule is replay's, whatever rows the explorer shows.
type judge struct {
	x   *exploreIndex
	run *replay.Runner
}

// newJudge is a judge whose cursor has accepted row acc (none for -1):
// the one state a cursor keeps is its accepted sequence, which that row
// alone sets on a new cursor.
func (x *exploreIndex) newJudge(acc int) *judge {
	run, _ := replay.NewRunner(replay.Options{Session: x.opts.Session, MaxLine: x.opts.MaxLine})
	j := &judge{x: x, run: run}
	if acc >= 0 {
		j.apply(acc)
	}
	return j
}

// badLine stands for a malformed line's error: the cursor needs only to
// know it is one.
var badLine = &replay.DecodeError{}

// apply runs row i through the judge's cursor.
func (j *judge) apply(i int) replay.Reason {
	x := j.x
	r := x.rows.at(i)
	if r.malformed() || r.kind() == "" {
		return j.run.Apply(x.name(r), int(r.line), nil, badLine).Reason
	}
	ev := replay.Event{Kind: r.kind(), SessionID: x.sessionID(r), Sequence: r.seq}
	return j.run.Apply(x.name(r), int(r.line), &ev, nil).Reason
}

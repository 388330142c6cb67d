package explore

import (
	"errors"
	"math"

	"github.com/agentskit/snapctl/replay"
)

// exploreRow is what the explorer keeps of one line, in 40 bytes: where
// to read it again, the envelope the cursor needs, and the verdict of the
// lines in play. Ids are indexes into tables of the index, and what a
// view shows beyond that (the event id, a decode problem) is read from
// the line again, so that a capture of 20M lines costs 880 MB (with the
// 4 bytes of exploreRows.next) however long its ids and messages are.
type exploreRow struct {
	off     int64 // in the file, or in the spool for a file kept there
	seq     int64
	line    uint32
	size    uint32 // of the line; for one over --max-line, its length, at most math.MaxUint32
	session uint32 // 1 + index in exploreIndex.ids, 0 for none
	turn    uint32 // 1 + index in exploreIndex.turns, 0 for none, turnUnlisted
	// link is the row its cursor accepted last before it (for an
	// accepted row, the one before it), -1 when there is none: the
	// cursor's state at this line, from which a toggle judges again.
	link   int32
	file   uint16
	flags  uint8 // the kind (rowKindMask) and the row* bits
	reason uint8 // 1 + index in replay.Reasons, 0 when toggled off
}

// The bits of exploreRow.flags above the kind.
const (
	rowKindMask  = 0b11
	rowTooLong   = 1 << 2
	rowMalformed = 1 << 3
	rowOff       = 1 << 4
	// rowCited is set on a line some finding cites; rowStop on one that
	// is the own position of a problem finding (an error or warning that
	// does not cite its whole session) or where a turn ended other than
	// complete, where n and N stop; rowError when one such finding is an
	// error (see exploreModel.findProblems).
	rowCited = 1 << 5
	rowStop  = 1 << 6
	rowError = 1 << 7
	rowMarks = rowCited | rowStop | rowError
)

// rowKinds are the kinds a row's flags name, by their code.
var rowKinds = [4]replay.Kind{"", replay.KindSubmit, replay.KindSnapshot, replay.KindDiagnostic}

func kindCode(k replay.Kind) uint8 {
	for c, kk := range rowKinds {
		if kk == k {
			return uint8(c)
		}
	}
	return 0
}

func reasonCode(r replay.Reason) uint8 {
	for c, rr := range replay.Reasons {
		if rr == r {
			return uint8(c + 1)
		}
	}
	return 0
}

func (r *exploreRow) kind() replay.Kind { return rowKinds[r.flags&rowKindMask] }
func (r *exploreRow) tooLong() bool     { return r.flags&rowTooLong != 0 }
func (r *exploreRow) malformed() bool   { return r.flags&rowMalformed != 0 }
func (r *exploreRow) cited() bool       { return r.flags&rowCited != 0 }
func (r *exploreRow) stop() bool        { return r.flags&rowStop != 0 }

// The limits of the index: what its fields hold.
const (
	// exploreMaxRows is the most lines the explorer holds: a row names
	// another in 31 bits.
	exploreMaxRows = math.MaxInt32
	// exploreMaxTurns is the most distinct turn ids the index keeps, each
	// at most exploreMaxTurnLen bytes; the turn of any other row is read
	// from its line when shown (turnUnlisted).
	exploreMaxTurns   = 1 << 16
	exploreMaxTurnLen = 128
	turnUnlisted      = math.MaxUint32
	// exploreMaxFiles is the most captures one view reads.
	exploreMaxFiles = math.MaxUint16
	// exploreSpoolMax bounds the temporary copy of standard input and
	// compressed captures, the lines that cannot be read again where
	// they are.
	exploreSpoolMax = 4 << 30
)

// errExploreTooBig stops the indexing of a capture past what the index
// holds.
var errExploreTooBig = errors.New("explore holds at most 2147483647 lines of 4294967295 line numbers from 65535 files: open part of the capture with --lines, --since or --until")

// rowChunk is how many rows are allocated at once: the index grows by
// 352 KiB at a time (the rows and their links to the next row of the same
// cursor) and never copies what it holds.
const rowChunk = 1 << 13

// exploreRows is the rows of a capture, in chunks, and for each the next
// row its cursor judges (see exploreIndex.key), -1 for none: a toggle
// re-judges the rows of one cursor only, whatever the others.
type exploreRows struct {
	chunks [][]exploreRow
	nexts  [][]int32
	n      int
}

func (rs *exploreRows) len() int { return rs.n }

func (rs *exploreRows) at(i int) *exploreRow { return &rs.chunks[i/rowChunk][i%rowChunk] }

// next is the row after row i that the same cursor judges, -1 for none.
func (rs *exploreRows) next(i int) int { return int(rs.nexts[i/rowChunk][i%rowChunk]) }

func (rs *exploreRows) setNext(i, next int) { rs.nexts[i/rowChunk][i%rowChunk] = int32(next) }

func (rs *exploreRows) add(r exploreRow) {
	if rs.n%rowChunk == 0 {
		rs.chunks = append(rs.chunks, make([]exploreRow, rowChunk))
		rs.nexts = append(rs.nexts, make([]int32, rowChunk))
	}
	rs.chunks[rs.n/rowChunk][rs.n%rowChunk] = r
	rs.setNext(rs.n, -1)
	rs.n++
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
	res := &replay.Result{File: x.name(r), Line: int(r.line), Reason: x.reason(i), Origin: x.origin(i)}
	if r.malformed() {
		res.Err, res.Raw = x.decodeError(i)
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
// the indexer found it: from the line read again, or its length. raw is
// the line read again, nil for one over --max-line or not read.
func (x *exploreIndex) decodeError(i int) (_ *replay.DecodeError, raw []byte) {
	r := x.rows.at(i)
	l := replay.Line{File: x.name(r), Num: int(r.line), Off: r.off, TooLong: r.tooLong(), Len: int64(r.size)}
	if !l.TooLong {
		var err error
		if raw, err = x.raw(r); err != nil {
			return &replay.DecodeError{}, nil
		}
		l.Data = raw
	}
	run, err := replay.NewRunner(replay.Options{MaxLine: x.opts.MaxLine, EventPath: x.opts.EventPath, Messages: true, Hash: true})
	if err != nil {
		return &replay.DecodeError{}, raw
	}
	if e := run.Step(l).Err; e != nil {
		return firstProblem(e), raw
	}
	return &replay.DecodeError{}, raw
}

package cmd

import (
	"errors"
	"math"

	"github.com/agentskit/snapctl/replay"
)

// exploreRow is what the explorer keeps of one line, in 40 bytes: where
// to read it again, the envelope the cursor needs, and the verdict of the
// lines in play. Ids are indexes into tables of the index, and what a
// view shows beyond that (the event id, a decode problem) is read from
// the line again, so that a capture of 20M lines costs 800 MB however
// long its ids and messages are.
type exploreRow struct {
	off     int64 // in the file, or in the spool for a file kept there
	seq     int64
	line    uint32
	size    uint32 // of the line; for one over --max-line, its length, at most math.MaxUint32
	session uint32 // 1 + index in exploreIndex.ids, 0 for none
	turn    uint32 // 1 + index in exploreIndex.turns, 0 for none, turnUnlisted
	// link is, for an accepted row, the row accepted before it by the
	// same cursor, and for any other the row accepted last by its
	// session's cursor; -1 when there is none.
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
// 320 KiB at a time and never copies what it holds.
const rowChunk = 1 << 13

// exploreRows is the rows of a capture, in chunks.
type exploreRows struct {
	chunks [][]exploreRow
	n      int
}

func (rs *exploreRows) len() int { return rs.n }

func (rs *exploreRows) at(i int) *exploreRow { return &rs.chunks[i/rowChunk][i%rowChunk] }

func (rs *exploreRows) add(r exploreRow) {
	if rs.n%rowChunk == 0 {
		rs.chunks = append(rs.chunks, make([]exploreRow, rowChunk))
	}
	rs.chunks[rs.n/rowChunk][rs.n%rowChunk] = r
	rs.n++
}

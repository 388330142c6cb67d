package model

import (
	"hash/maphash"
	"unicode/utf8"

	"github.com/agentskit/snapctl/replay"
)

// Outcome is how a turn ended as the client saw it: from the last snapshot
// the cursor accepted and the diagnostic the server sent, not from what
// the server did afterwards.
type Outcome uint8

// The outcomes of a turn. Their names (String) are part of the JSON
// contract.
const (
	// OutcomeUnanswered: a submit of the turn, and no snapshot or
	// diagnostic.
	OutcomeUnanswered Outcome = iota
	// OutcomeComplete: the last accepted snapshot is complete.
	OutcomeComplete
	// OutcomeError: the last accepted snapshot is error; the code is its
	// error diagnostic's.
	OutcomeError
	// OutcomeTimedOut, OutcomeCancelled and OutcomeDiagnostic: the turn
	// did not finish and a server.turn.diagnostic of the turn came, whose
	// code says it timed out, was cancelled, or something else.
	OutcomeTimedOut
	OutcomeCancelled
	OutcomeDiagnostic
	// OutcomeCutOff: the last accepted snapshot is not terminal and no
	// diagnostic came: the stream ended under the client (an abort, a
	// dropped connection, a capture that stops too early).
	OutcomeCutOff
	// OutcomeNeverAccepted: the turn had snapshots and the cursor kept
	// every one inert.
	OutcomeNeverAccepted
	// OutcomeRefused: the server answered the turn's submit with an HTTP
	// error body (Turn.Refuse) and no snapshot of the turn was accepted.
	OutcomeRefused
)

var outcomeNames = [...]string{"unanswered", "complete", "error", "timed-out", "cancelled", "diagnostic", "cut-off", "never-accepted", "refused"}

// Outcomes lists every outcome, in a fixed order, for counts and legends.
var Outcomes = []Outcome{OutcomeComplete, OutcomeError, OutcomeTimedOut, OutcomeCancelled, OutcomeDiagnostic,
	OutcomeCutOff, OutcomeRefused, OutcomeNeverAccepted, OutcomeUnanswered}

func (o Outcome) String() string { return outcomeNames[o] }

// Finished reports whether the outcome is a terminal status the server
// sent: complete or error.
func (o Outcome) Finished() bool { return o == OutcomeComplete || o == OutcomeError }

// diagnosticOutcome is the outcome a diagnostic's code names. The codes
// are those of the AgentsKit Chat server (SERVER_TIMEOUT) and the
// spellings a server is likely to use for a cancel.
func diagnosticOutcome(code string) Outcome {
	switch code {
	case "SERVER_TIMEOUT", "TURN_TIMEOUT", "TIMEOUT", "REQUEST_TIMEOUT":
		return OutcomeTimedOut
	case "SERVER_CANCELLED", "TURN_CANCELLED", "CANCELLED", "CANCELED", "REQUEST_ABORTED", "ABORTED":
		return OutcomeCancelled
	}
	return OutcomeDiagnostic
}

// Outcome is how the turn ended for the client, with the code and line
// that say so: the error code and line of an error snapshot, the
// diagnostic's code and line, or the last accepted snapshot's line (no
// code; a never-accepted turn's first snapshot). A terminal status wins over a diagnostic, which a server may
// send before it finishes anyway.
func (t *Turn) Outcome() (o Outcome, code string, at Position) {
	switch {
	case t.Accepted > 0 && t.Status == replay.StatusComplete:
		return OutcomeComplete, "", t.StatusAt
	case t.Accepted > 0 && t.Status == replay.StatusError:
		return OutcomeError, t.ErrorCode, t.StatusAt
	case t.Diagnostic != nil && !t.Diagnostic.Refused:
		return diagnosticOutcome(t.Diagnostic.Code), t.Diagnostic.Code, t.Diagnostic.At
	case t.Accepted > 0:
		return OutcomeCutOff, "", t.StatusAt
	case t.Diagnostic != nil:
		return OutcomeRefused, t.Diagnostic.Code, t.Diagnostic.At
	case t.Snapshots > 0:
		return OutcomeNeverAccepted, "", t.StatusAt
	}
	return OutcomeUnanswered, "", t.SubmitAt
}

// Seen is a diagnostic of a turn, or the error body that refused its
// submit (Refused): its code and line.
type Seen struct {
	Code    string
	At      Position
	Refused bool
}

// Refuse records that the server answered the turn's submit with an HTTP
// error body of the given code, at a line of the capture: the caller
// decides that the body answers this turn, which the body itself never
// says.
func (t *Turn) Refuse(code string, at Position) {
	if t.Diagnostic == nil {
		t.Diagnostic = new(Seen)
	}
	*t.Diagnostic = Seen{Code: code, At: at, Refused: true}
}

// Later is the later accepted snapshot of the session that showed a
// turn's unfinished reply (the message its last accepted projection ended
// with) complete: the server finished a reply the client never saw end.
type Later struct {
	// At is the later snapshot.
	At Position
	// Chars is how many characters (runes) the later text has beyond the
	// delivered one (negative when fewer), and Prefix whether the
	// delivered text is where the later one starts.
	Chars  int
	Prefix bool
}

// tail is what the model keeps of the last message of a session's last
// accepted projection while its turn is unfinished: enough to say, when
// a later snapshot shows that message again, how its text differs,
// without keeping the text.
type tail struct {
	index int // the message's index in Session.Last.IDs, -1 for none
	bytes int
	runes int
	hash  uint64
}

// tailSeed hashes delivered text for Later.Prefix; any seed works, since
// hashes are compared within one run.
var tailSeed = maphash.MakeSeed()

// noteTail records the last message of an unfinished projection.
func (s *Session) noteTail(snap *replay.Snapshot) {
	s.tail.index = -1
	if snap.Status == replay.StatusComplete || snap.Status == replay.StatusError || len(snap.Messages) == 0 {
		return
	}
	i := len(snap.Messages) - 1
	c := snap.Messages[i].Content
	s.tail = tail{index: i, bytes: len(c), runes: utf8.RuneCountInString(c), hash: maphash.String(tailSeed, c)}
}

// noteLater looks, in an accepted snapshot of another turn, for the
// message an unfinished turn's last projection ended with, and records on
// that turn what the new snapshot shows of it once it is complete.
func (s *Session) noteLater(prev *Turn, prev0 *Projection, snap *replay.Snapshot, at Position) {
	if s.tail.index < 0 || prev.Later != nil {
		return
	}
	id := prev0.IDs.ID(s.tail.index)
	for i := range snap.Messages {
		msg := &snap.Messages[i]
		if msg.ID != id {
			continue
		}
		if msg.Status != string(replay.StatusComplete) {
			return
		}
		c := msg.Content
		prev.Later = &Later{At: at, Chars: utf8.RuneCountInString(c) - s.tail.runes,
			Prefix: len(c) >= s.tail.bytes && maphash.String(tailSeed, c[:s.tail.bytes]) == s.tail.hash}
		return
	}
}

package model

import (
	"hash/maphash"
	"strings"

	"github.com/agentskit/snapctl/internal/runes"
	"github.com/agentskit/snapctl/replay"
)

// Ending is how a turn ended as the client saw it: from the last snapshot
// the cursor accepted and what the server sent besides, not from what the
// server did afterwards. Its names (String) are the JSON contract's
// "outcome".
type Ending uint8

// The endings of a turn.
const (
	// EndUnanswered: a submit of the turn, and no snapshot, diagnostic
	// or refusal.
	EndUnanswered Ending = iota
	// EndComplete: the last accepted snapshot is complete.
	EndComplete
	// EndError: the last accepted snapshot is error; the code is its
	// error diagnostic's.
	EndError
	// EndTimedOut, EndCancelled and EndDiagnostic: the turn did not
	// finish and a server.turn.diagnostic of the turn came, whose code
	// says it timed out, was cancelled, or something else.
	EndTimedOut
	EndCancelled
	EndDiagnostic
	// EndCutOff: the last accepted snapshot is not terminal and no
	// diagnostic came: the stream ended under the client (an abort, a
	// dropped connection, a capture that stops too early).
	EndCutOff
	// EndNeverAccepted: the turn had snapshots and the cursor kept every
	// one inert.
	EndNeverAccepted
	// EndRefused: the server answered the turn's submit with an HTTP
	// error body (Turn.Refuse) and no snapshot of the turn was accepted.
	EndRefused
)

var endingNames = [...]string{"unanswered", "complete", "error", "timed-out", "cancelled", "diagnostic", "cut-off", "never-accepted", "refused"}

// Endings lists every ending, in a fixed order, for counts and legends.
var Endings = []Ending{EndComplete, EndError, EndTimedOut, EndCancelled, EndDiagnostic,
	EndCutOff, EndRefused, EndNeverAccepted, EndUnanswered}

func (e Ending) String() string { return endingNames[e] }

// endingMeanings say, by ending, what each means, for snapctl explain:
// only what the capture shows, and where it cannot tell a cause, so.
var endingMeanings = [...]string{
	EndUnanswered: "the client submitted the turn and no snapshot, diagnostic or error body of it came " +
		"(orphan-submit names it). When a window (--lines, --since, --until) ends just after the submit and " +
		"the capture goes on with the turn past it, the window left the answer out: every view says " +
		"unanswered in the window, and neither orphan-submit nor the verdict counts it.",
	EndComplete: "the last snapshot of the turn that the cursor accepted is complete.",
	EndError:    "the last snapshot of the turn that the cursor accepted is error; the code is its error's.",
	EndTimedOut: "the turn did not finish, and a server.turn.diagnostic of the turn came whose code says it timed " +
		"out (SERVER_TIMEOUT: the server's deadline). A later snapshot may show the reply complete, possibly " +
		"with text the client never received (completed later).",
	EndCancelled: "the turn did not finish, and a server.turn.diagnostic of the turn came whose code says it was " +
		"cancelled. A later snapshot may show the reply complete (completed later).",
	EndDiagnostic: "the turn did not finish, and a server.turn.diagnostic of the turn came with another code, " +
		"which it names.",
	EndCutOff: "the last snapshot of the turn that the cursor accepted is not terminal (streaming) and no " +
		"diagnostic came: the stream stopped under the client, by an abort, a dropped connection or a capture " +
		"that ends too early; the capture does not say which (but capture-cut does, when the capture ends inside an event). A later snapshot may show the reply complete, " +
		"possibly with text the client never received (completed later). When a window (--lines, --since, " +
		"--until) ends inside the turn and the capture goes on with it past the window, the window cut it, " +
		"not the server: every view says cut-off by the window, and the verdict counts no problem.",
	EndNeverAccepted: "the turn had snapshots and the cursor kept every one inert, so the client never saw it " +
		"(turn-never-accepted names it). When a window (--lines, --since, --until) ends while the capture goes on " +
		"with the turn past it, every view says never-accepted in the window, and turn-never-accepted does not name it.",
	EndRefused: "the server answered the turn's submit with an HTTP error body (request-refused) and no snapshot " +
		"of the turn was accepted.",
}

// Meaning says what the ending means, in a sentence or two.
func (e Ending) Meaning() string { return endingMeanings[e] }

// EndingNamed is the ending of a name (String), whatever its case.
func EndingNamed(name string) (Ending, bool) {
	for _, e := range Endings {
		if strings.EqualFold(e.String(), name) {
			return e, true
		}
	}
	return 0, false
}

// diagnosticEnding is the ending a diagnostic's code names: the code of
// the AgentsKit Chat server's deadline (SERVER_TIMEOUT), and the
// spellings a server is likely to use for a timeout or a cancel.
func diagnosticEnding(code string) Ending {
	switch code {
	case "SERVER_TIMEOUT", "TURN_TIMEOUT", "TIMEOUT", "REQUEST_TIMEOUT":
		return EndTimedOut
	case "SERVER_CANCELLED", "TURN_CANCELLED", "CANCELLED", "CANCELED", "REQUEST_ABORTED", "ABORTED":
		return EndCancelled
	}
	return EndDiagnostic
}

// Seen is a diagnostic of a turn, or the error body that refused its
// submit (Refused): its code and line.
type Seen struct {
	Code    string
	At      Position
	Refused bool
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

// turnEnd is what a turn keeps to say how it ended beside its status:
// allocated only for a turn with an error, a diagnostic, a refusal or a
// reply completed later.
type turnEnd struct {
	// errorCode is the last accepted snapshot's error code, "" for none.
	errorCode string
	// diag is the last diagnostic or refusal, Code "" for none.
	diag     Seen
	later    Later
	hasLater bool
	// past is where the capture goes on with the turn past the window
	// (NoteWindow), set when hasPast.
	past    Position
	hasPast bool
}

func (t *Turn) ending() *turnEnd {
	if t.end == nil {
		t.end = new(turnEnd)
	}
	return t.end
}

// Ending is how the turn ended for the client, with the code and line
// that say so: the error code and line of an error snapshot, the
// diagnostic's or refusal's code and line, or the last accepted
// snapshot's line (no code; a never-accepted turn's first snapshot). A
// terminal status wins over a diagnostic, which a server may send before
// it finishes anyway, and any accepted snapshot over a refusal, which a
// retry of the turn overcame.
func (t *Turn) Ending() (e Ending, code string, at Position) {
	var d Seen
	if t.end != nil {
		d = t.end.diag
	}
	switch {
	case t.Accepted > 0 && t.Status() == replay.StatusComplete:
		return EndComplete, "", t.StatusAt()
	case t.Accepted > 0 && t.Status() == replay.StatusError:
		if t.end != nil {
			code = t.end.errorCode
		}
		return EndError, code, t.StatusAt()
	case d.Code != "" && !d.Refused:
		return diagnosticEnding(d.Code), d.Code, d.At
	case t.Accepted > 0:
		return EndCutOff, "", t.StatusAt()
	case d.Code != "":
		return EndRefused, d.Code, d.At
	case t.Snapshots > 0:
		return EndNeverAccepted, "", t.StatusAt()
	}
	return EndUnanswered, "", t.SubmitAt()
}

// Later is the later snapshot that showed the turn's unfinished reply
// complete, nil when none did.
func (t *Turn) Later() *Later {
	if t.end == nil || !t.end.hasLater {
		return nil
	}
	return &t.end.later
}

// NoteWindow notes, on each turn of the session that the run's window
// ended (replay.Summary.PastWindow), where the capture goes on with it
// past the window (CutByWindow). It may be called again with the same
// summary.
func (s *Session) NoteWindow(sum *replay.Summary) {
	if sum.WindowCuts() == 0 {
		return
	}
	for t := s.FirstTurn(); t != nil; t = t.Next() {
		if c, ok := sum.PastWindow(s.ID, t.ID); ok {
			e := t.ending()
			e.past, e.hasPast = Position{File: c.File, Line: c.Line, Entry: c.Entry}, true
		}
	}
}

// PastWindow is where the capture goes on with the turn past the window
// that ended it (NoteWindow), whatever its ending; nil when the window
// did not end it.
func (t *Turn) PastWindow() *Position {
	if t.end == nil || !t.end.hasPast {
		return nil
	}
	return &t.end.past
}

// CutByWindow is where the capture goes on with the turn past the
// window, when the window, not the server nor the transport, ended it:
// it reads cut-off (its last accepted snapshot in the window is not
// terminal and no diagnostic came), unanswered (a submit, and its
// snapshots past the window) or never-accepted (every snapshot of it in
// the window kept inert, and more past it) only because the window ends
// there, and is no problem of its session. nil otherwise: a turn that
// completed, an error, a diagnostic or a refusal is what the window shows
// of it wherever it ends.
func (t *Turn) CutByWindow() *Position {
	p := t.PastWindow()
	if p == nil {
		return nil
	}
	if e, _, _ := t.Ending(); e != EndCutOff && e != EndUnanswered && e != EndNeverAccepted {
		return nil
	}
	return p
}

// Refuse records that the server answered the turn's submit with an HTTP
// error body of the given code, at a line of the capture: the caller
// decides that the body answers this turn, which the body itself never
// says.
func (t *Turn) Refuse(code string, at Position) {
	t.ending().diag = Seen{Code: code, At: at, Refused: true}
}

// tail is what the model keeps of the last message of a session's last
// accepted projection while its turn is unfinished: enough to say, when
// a later snapshot shows that message again, how its text differs,
// without keeping the text.
type tail struct {
	id           uint64 // hash of the message id
	bytes, runes int
	hash         uint64 // hash of the text
}

// tailSeed hashes message ids for tail; any seed works, since hashes
// are compared within one run. Its text is hashed by replay.TextHash.
var tailSeed = maphash.MakeSeed()

// noteEnd folds what an accepted snapshot of turn t says of how turns
// end: its error code, whether it shows the unfinished reply of the
// turn accepted before it complete, and its own last message while t is
// unfinished.
func (s *Session) noteEnd(t *Turn, snap *replay.Snapshot, at Position) {
	if snap.HasError {
		t.ending().errorCode = snap.Error.Code
	} else if t.end != nil {
		t.end.errorCode = ""
	}
	if prev := s.accTurn; prev != nil && prev != t && s.tail != nil {
		s.noteLater(prev, snap, at)
	}
	s.accTurn = t
	if snap.Status == replay.StatusComplete || snap.Status == replay.StatusError || len(snap.Messages) == 0 {
		s.tail = nil
		return
	}
	if s.tail == nil {
		s.tail = new(tail)
	}
	msg := &snap.Messages[len(snap.Messages)-1]
	*s.tail = tail{id: maphash.String(tailSeed, msg.ID), bytes: len(msg.Content)}
	if snap.IDsHash != 0 {
		// Counted and hashed by the decoder, where the line was in cache.
		s.tail.runes, s.tail.hash = snap.TailRunes, snap.TailHash
	} else {
		s.tail.runes, s.tail.hash = runes.Count(msg.Content), replay.TextHash(msg.Content)
	}
}

// noteLater looks, in an accepted snapshot of another turn, for the
// message prev's last projection ended with, and records on prev what
// the snapshot shows of it once it is complete.
func (s *Session) noteLater(prev *Turn, snap *replay.Snapshot, at Position) {
	if prev.Later() != nil {
		return
	}
	for i := range snap.Messages {
		msg := &snap.Messages[i]
		if maphash.String(tailSeed, msg.ID) != s.tail.id {
			continue
		}
		if msg.Status != string(replay.StatusComplete) {
			return
		}
		c, tl := msg.Content, s.tail
		e := prev.ending()
		e.hasLater = true
		e.later = Later{At: at, Chars: runes.Count(c) - tl.runes,
			Prefix: len(c) >= tl.bytes && replay.TextHash(c[:tl.bytes]) == tl.hash}
		return
	}
}

// AcceptedTurn is the turn of the session's last accepted projection, nil
// before one.
func (s *Session) AcceptedTurn() *Turn { return s.accTurn }

package render

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/replay"
)

// A malformed line's envelope can name any session and turn: the error
// of a --turn shows them terminal-safe, on one line, listed as far as
// NamesListed.
func TestTurnFinderTermsafe(t *testing.T) {
	f := NewTurnFinder("t1", "s1")
	event := func(session, turn string, reason replay.Reason) *replay.Result {
		return &replay.Result{Event: &replay.Event{SessionID: session, TurnID: turn}, Reason: reason}
	}
	f.Observe(event("s1", "a", replay.ReasonInitial))
	for i, s := range []string{"s\x1b[31m2\n", "s3", "s4", "s5", "s6", "s7", "s8"} {
		f.Observe(&replay.Result{Err: &replay.DecodeError{Envelope: &replay.Envelope{SessionID: s, TurnID: "t1"}}, Reason: replay.ReasonMalformed})
		if i == 0 {
			f.Observe(&replay.Result{Err: &replay.DecodeError{Envelope: &replay.Envelope{SessionID: "s1", TurnID: "b\x1b]0;x\a"}}, Reason: replay.ReasonMalformed})
		}
	}
	if f.Found() == false || f.Accepted() {
		t.Fatalf("Found %v, Accepted %v: want true, false (replay shows foreign events)", f.Found(), f.Accepted())
	}
	msg := f.NotCompared()
	if strings.ContainsAny(msg, "\x1b\a\n") {
		t.Fatalf("message not terminal-safe: %q", msg)
	}
	if !strings.HasPrefix(msg, "--turn t1 is in 7 sessions (") || !strings.Contains(msg, "s6 (+2)), not the pinned session s1, which has 2 turns: a, ") {
		t.Fatalf("message = %q", msg)
	}
	// In the pinned session, with no accepted snapshot: nothing to compare.
	f.Observe(event("s1", "t1", replay.ReasonStale))
	if got, want := f.NotCompared(), "--turn t1 has no accepted snapshot in session s1: nothing to compare"; got != want {
		t.Fatalf("NotCompared = %q, want %q", got, want)
	}
	if got, want := f.NotDrawn(), "--turn t1 has nothing to draw in session s1"; got != want {
		t.Fatalf("NotDrawn = %q, want %q", got, want)
	}
	f.Observe(event("s1", "t1", replay.ReasonAdvanced))
	if !f.Accepted() {
		t.Fatal("Accepted is false after an accepted snapshot of the turn")
	}
}

// TestNamesBounded: a capture of more turns than namesKept keeps only
// namesKept of them, whatever its length, and the error says "at least".
func TestNamesBounded(t *testing.T) {
	f := NewTurnFinder("nope", "")
	for i := range 2 * namesKept {
		f.Observe(&replay.Result{Event: &replay.Event{SessionID: "s", TurnID: fmt.Sprintf("t%d", i)}, Reason: replay.ReasonInitial})
	}
	if n := len(f.turns.Order); n != namesKept || len(f.turns.seen) != namesKept || !f.turns.Over {
		t.Fatalf("kept %d names (%d seen), Over %v: want %d, Over", n, len(f.turns.seen), f.turns.Over, namesKept)
	}
	msg := f.NotFound()
	if want := fmt.Sprintf("--turn nope matches nothing: the capture has at least %d turns: t0, t1, t2, t3, t4 (+%d and more)", namesKept, namesKept-NamesListed); msg != want {
		t.Errorf("NotFound = %q\nwant %q", msg, want)
	}
}

package replay_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/agentskit/snapctl/replay"
)

// Three lines of a capture: a submit, the snapshot it led to, and the same
// snapshot delivered again after a reconnect.
const (
	submitLine   = `{"protocol":"agentskit.chat.turn","version":1,"eventId":"e1","sessionId":"s1","turnId":"t1","sequence":1,"emittedAt":"2026-07-11T03:00:00Z","event":"client.turn.submit","payload":{"input":"hello"}}`
	snapshotLine = `{"protocol":"agentskit.chat.turn","version":1,"eventId":"e2","sessionId":"s1","turnId":"t1","sequence":2,"emittedAt":"2026-07-11T03:00:01Z","event":"server.turn.snapshot","payload":{"status":"complete","usage":{"promptTokens":1,"completionTokens":2,"totalTokens":3},"messages":[{"id":"m1","role":"assistant","content":"hi","status":"complete","createdAt":"2026-07-11T03:00:01.000Z"}]}}`
)

// Decode one line: a valid event, or a DecodeError with the reference's
// code and the first problem.
func ExampleDecoder_Decode() {
	var d replay.Decoder
	var ev replay.Event
	if err := d.Decode([]byte(snapshotLine), &ev); err == nil {
		fmt.Println(ev.Kind, ev.SessionID, ev.Sequence, ev.Snapshot.Status, ev.Snapshot.MessageCount)
	}

	bad := strings.Replace(snapshotLine, "03:00:01.000Z", "03:00:01Z", 1)
	if err := d.Decode([]byte(bad), &ev); err != nil {
		fmt.Println(err.Code)
		fmt.Println(err.Detail())
	}
	// Output:
	// server.turn.snapshot s1 2 complete 1
	// PROTOCOL_INVALID_PAYLOAD
	// payload.messages[0].createdAt: "2026-07-11T03:00:01Z" is not a real UTC instant with milliseconds (YYYY-MM-DDTHH:MM:SS.mmmZ)
}

// Run decoded lines through a cursor, as a reconnecting client does: a
// malformed line is passed as nil.
func ExampleCursor_Apply() {
	cur, err := replay.NewCursor("s1")
	if err != nil {
		log.Fatal(err)
	}
	var d replay.Decoder
	for _, line := range []string{submitLine, snapshotLine, `{"protocol":`, snapshotLine} {
		var ev replay.Event
		var reason replay.Reason
		if derr := d.Decode([]byte(line), &ev); derr != nil {
			reason, _ = cur.Apply(nil)
		} else {
			reason, _ = cur.Apply(&ev)
		}
		fmt.Println(reason.Verdict(), reason)
	}
	seq, ok := cur.Sequence()
	fmt.Println("accepted sequence:", seq, ok)
	// Output:
	// inert non-snapshot
	// accepted initial
	// inert malformed
	// inert duplicate
	// accepted sequence: 2 true
}

// Run a whole capture from a reader (here standard input, "-", given as a
// string) and get a callback for every event in input order, then the
// summary. Blank lines are not events.
func ExampleRun() {
	capture := strings.Join([]string{submitLine, "", snapshotLine, snapshotLine}, "\n")
	rd, err := replay.Open([]string{replay.StdinName}, strings.NewReader(capture), 0)
	if err != nil {
		log.Fatal(err)
	}
	defer rd.Close()
	sum, err := replay.Run(rd, replay.Options{Session: "s1"}, func(r *replay.Result) error {
		fmt.Printf("%s:%d %s %s\n", r.File, r.Line, r.Verdict(), r.Reason)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := rd.Err(); err != nil {
		log.Fatal(err) // damaged input: every line before the damage was run
	}
	fmt.Println(sum.Counts.Events, "events,", sum.Counts.Accepted(), "accepted,", sum.Input.Blank, "blank")
	// Output:
	// -:1 inert non-snapshot
	// -:3 accepted initial
	// -:4 inert duplicate
	// 3 events, 1 accepted, 1 blank
}

// Read a Result: its position, the verdict and reason, the decoded Event
// (nil for a malformed line, and reused after the callback returns) or
// the DecodeError, and the line itself when Options.KeepRaw asks for it.
func ExampleResult() {
	capture := snapshotLine + "\n" + `{"protocol":"agentskit.chat.turn","version":2}` + "\n"
	rd, err := replay.Open([]string{replay.StdinName}, strings.NewReader(capture), 0)
	if err != nil {
		log.Fatal(err)
	}
	defer rd.Close()
	_, err = replay.Run(rd, replay.Options{KeepRaw: true}, func(r *replay.Result) error {
		switch {
		case r.Err != nil:
			fmt.Printf("line %d: %s %s (%s): %s\n", r.Line, r.Verdict(), r.Reason, r.Err.Code, r.Err.Detail())
			fmt.Printf("  raw: %s\n", r.Raw)
		default:
			fmt.Printf("line %d: %s %s, %s sequence %d of session %s\n", r.Line, r.Verdict(), r.Reason, r.Event.Kind, r.Event.Sequence, r.Event.SessionID)
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// line 1: accepted initial, server.turn.snapshot sequence 2 of session s1
	// line 2: inert malformed (PROTOCOL_UNSUPPORTED_VERSION): version: 2 is not a supported protocol version (only 1 is)
	//   raw: {"protocol":"agentskit.chat.turn","version":2}
}

package wire

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// snapshotWith is a valid snapshot line with n messages.
func snapshotWith(n int) []byte {
	var ms []string
	for i := range n {
		ms = append(ms, fmt.Sprintf(`{"id":"m%d","role":"assistant","content":"text %d","status":"complete","createdAt":"2026-07-11T03:00:00.000Z"}`, i, i))
	}
	return []byte(`{"protocol":"agentskit.chat.turn","version":1,"eventId":"e","sessionId":"s","turnId":"t","sequence":1,` +
		`"emittedAt":"2026-07-11T03:00:00.000Z","event":"server.turn.snapshot","payload":{"status":"complete","usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"messages":[` +
		strings.Join(ms, ",") + `]}}`)
}

// TestBorrowReusesMessages checks that a borrowing decoder fills the
// array of the messages decoded into the event before, cleared, instead
// of a new one, and that one that copies never does: a caller that keeps
// a snapshot's messages must get an array of its own.
func TestBorrowReusesMessages(t *testing.T) {
	for _, borrow := range []bool{true, false} {
		t.Run(fmt.Sprint("borrow=", borrow), func(t *testing.T) {
			d := Decoder{Messages: true, Borrow: borrow}
			var ev Event
			if err := d.Decode(snapshotWith(3), &ev); err != nil {
				t.Fatal(err)
			}
			first := ev.Snapshot.Messages
			if err := d.Decode(snapshotWith(2), &ev); err != nil {
				t.Fatal(err)
			}
			got := ev.Snapshot.Messages
			if len(got) != 2 || got[1].ID != "m1" || got[1].Content != "text 1" {
				t.Fatalf("messages %+v, want m0 and m1", got)
			}
			if reused := &got[0] == &first[0]; reused != borrow {
				t.Fatalf("array reused: %v, want %v", reused, borrow)
			}
			if !borrow {
				if first[2].ID != "m2" {
					t.Errorf("a copied snapshot's messages changed: %+v", first[2])
				}
				return
			}
			// The third message of the first line is gone from the array:
			// nothing there points into its line any more.
			if m := got[:3][2]; !reflect.DeepEqual(m, Message{}) {
				t.Errorf("a message of the line before is left in the array: %+v", m)
			}
		})
	}
}

// TestBorrowSpareBounded checks that an array of more than MaxSpare
// messages is let go of rather than kept for the next line, and that a
// line that is not a snapshot leaves its event without messages but
// with the array, for the snapshot after it.
func TestBorrowSpareBounded(t *testing.T) {
	d := Decoder{Messages: true, Borrow: true}
	var ev Event
	if err := d.Decode(snapshotWith(MaxSpare+1), &ev); err != nil {
		t.Fatal(err)
	}
	big := ev.Snapshot.Messages
	if err := d.Decode(snapshotWith(1), &ev); err != nil {
		t.Fatal(err)
	}
	if &ev.Snapshot.Messages[0] == &big[0] {
		t.Errorf("an array of %d messages was kept for reuse", cap(big))
	}
	submit := `{"protocol":"agentskit.chat.turn","version":1,"eventId":"e2","sessionId":"s","turnId":"t","sequence":2,` +
		`"emittedAt":"2026-07-11T03:00:00.000Z","event":"client.turn.submit","payload":{"input":"hi"}}`
	small := ev.Snapshot.Messages
	if err := d.Decode([]byte(submit), &ev); err != nil {
		t.Fatal(err)
	}
	if len(ev.Snapshot.Messages) != 0 {
		t.Errorf("a submit has messages %+v", ev.Snapshot.Messages)
	}
	if err := d.Decode(snapshotWith(1), &ev); err != nil {
		t.Fatal(err)
	}
	if &ev.Snapshot.Messages[0] != &small[0] {
		t.Error("the array was let go of at a submit")
	}
}

// TestBorrowAllocatesLess counts the allocations of decoding one
// snapshot again and again into one event: borrowing, the messages'
// array is not among them.
func TestBorrowAllocatesLess(t *testing.T) {
	line := snapshotWith(20)
	allocs := func(borrow bool) float64 {
		d := Decoder{Messages: true, Borrow: borrow}
		var ev Event
		return testing.AllocsPerRun(100, func() {
			if err := d.Decode(line, &ev); err != nil {
				t.Fatal(err)
			}
		})
	}
	copied, borrowed := allocs(false), allocs(true)
	// Copying allocates the array and the copy of the line's messages.
	if borrowed > copied-2 {
		t.Errorf("%.0f allocations a line borrowing, %.0f copying", borrowed, copied)
	}
}

// snapshotOf is a valid snapshot line with messages of these ids, the
// last one's content last.
func snapshotOf(last string, ids ...string) []byte {
	var ms []string
	for i, id := range ids {
		content := "x"
		if i == len(ids)-1 {
			content = last
		}
		ms = append(ms, fmt.Sprintf(`{"id":%q,"role":"assistant","content":%q,"status":"streaming","createdAt":"2026-07-11T03:00:00.000Z"}`, id, content))
	}
	return []byte(`{"protocol":"agentskit.chat.turn","version":1,"eventId":"e","sessionId":"s","turnId":"t","sequence":1,` +
		`"emittedAt":"2026-07-11T03:00:00.000Z","event":"server.turn.snapshot","payload":{"status":"streaming","usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"messages":[` +
		strings.Join(ms, ",") + `]}}`)
}

// TestSnapshotSums checks what the decoder sums up of the messages for
// the model: IDsHash is the same for the same ids in order, whatever
// their content, and differs for other ids, ids split otherwise or in
// another order; TailRunes and TailHash are the characters and TextHash
// of the last message's content, escapes undone. Without Hash, none is
// set.
func TestSnapshotSums(t *testing.T) {
	decode := func(line []byte, hash bool) Snapshot {
		t.Helper()
		d := Decoder{Messages: true, Hash: hash, Borrow: true}
		var ev Event
		if err := d.Decode(line, &ev); err != nil {
			t.Fatal(err)
		}
		return ev.Snapshot
	}
	base := decode(snapshotOf("héllo", "a", "bc"), true)
	if base.IDsHash == 0 {
		t.Fatal("IDsHash not set")
	}
	if s := decode(snapshotOf("other text", "a", "bc"), true); s.IDsHash != base.IDsHash {
		t.Error("the same ids hash otherwise with other content")
	}
	for _, ids := range [][]string{{"ab", "c"}, {"bc", "a"}, {"a", "bc", "d"}, {"a"}, {"a", "bd"}} {
		if s := decode(snapshotOf("héllo", ids...), true); s.IDsHash == base.IDsHash {
			t.Errorf("ids %q hash as [a bc]", ids)
		}
	}
	for _, content := range []string{"héllo", "", "line\nbreak \u00e9\u65e5", strings.Repeat("abc ", 300)} {
		s := decode(snapshotOf(content, "a", "b"), true)
		if s.TailRunes != utf8.RuneCountInString(content) || s.TailHash != TextHash(content) {
			t.Errorf("%q: tail %d runes, hash %x; want %d, %x", content, s.TailRunes, s.TailHash, utf8.RuneCountInString(content), TextHash(content))
		}
	}
	if s := decode(snapshotOf("héllo", "a", "bc"), false); s.IDsHash != 0 || s.TailRunes != 0 || s.TailHash != 0 {
		t.Errorf("without Hash: %x %d %x", s.IDsHash, s.TailRunes, s.TailHash)
	}
}

// TestBrief checks that a brief decoder keeps of a message only its id,
// role, status and content, and still checks the rest: a line that breaks
// a rule in a field it does not keep is as malformed as without Brief.
func TestBrief(t *testing.T) {
	msg := `{"id":"m1","role":"assistant","content":"hi","status":"complete","createdAt":"2026-07-11T03:00:00.000Z",` +
		`"toolCallId":"c0","parts":[{"type":"text","text":"hi"}],"metadata":{"k":1},` +
		`"toolCalls":[{"id":"c1","name":"search","args":{"q":"x"},"status":"complete","result":"r"}]}`
	line := func(m string) []byte {
		return []byte(`{"protocol":"agentskit.chat.turn","version":1,"eventId":"e","sessionId":"s","turnId":"t","sequence":1,` +
			`"emittedAt":"2026-07-11T03:00:00.000Z","event":"server.turn.snapshot","payload":{"status":"complete",` +
			`"usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"messages":[` + m + `]}}`)
	}
	for _, brief := range []bool{false, true} {
		d := Decoder{Messages: true, Brief: brief}
		var ev Event
		if err := d.Decode(line(msg), &ev); err != nil {
			t.Fatal(err)
		}
		m := ev.Snapshot.Messages[0]
		if m.ID != "m1" || m.Role != "assistant" || m.Status != "complete" || m.Content != "hi" {
			t.Errorf("brief=%v: %+v", brief, m)
		}
		kept := m.CreatedAt != "" || m.ToolCallID != "" || m.Parts != "" || m.Metadata != "" || len(m.ToolCalls) > 0
		if kept == brief {
			t.Errorf("brief=%v: other fields kept %v: %+v", brief, kept, m)
		}
		bad := strings.Replace(msg, `"status":"complete","result"`, `"status":"done","result"`, 1)
		if err := d.Decode(line(bad), &ev); err == nil {
			t.Errorf("brief=%v: a bad tool call status passed", brief)
		}
	}
}

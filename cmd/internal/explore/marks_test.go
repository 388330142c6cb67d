package explore

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentskit/snapctl/inspect"
)

// stops presses n from the first line until it stops moving and lists
// the lines it stopped at.
func stops(m *exploreModel) []int {
	press(m, "g")
	var got []int
	if m.problem(m.selected()) {
		got = append(got, m.selectedLine())
	}
	for {
		before := m.pos
		press(m, "n")
		if m.pos == before {
			return got
		}
		got = append(got, m.selectedLine())
	}
}

// TestExploreMarksVanishedMessage checks that the line where messages
// vanished is marked in the list, names its finding in the Event tab,
// and is where n stops, though its verdict is a plain advanced.
func TestExploreMarksVanishedMessage(t *testing.T) {
	m := newTestExplorer(t, 120, 40, "", "inspect/message-vanished.jsonl")
	var cited []int
	for _, f := range m.x.findings {
		if f.ID == inspect.MessageVanished {
			for _, p := range f.Positions {
				cited = append(cited, p.Line)
			}
		}
	}
	if len(cited) == 0 {
		t.Fatalf("no message-vanished finding: %+v", m.x.findings)
	}
	if got := stops(m); !slices.Equal(got, cited) {
		t.Errorf("n stops at lines %v, want the finding's positions %v", got, cited)
	}
	press(m, ":")
	typeText(m, fmt.Sprint(cited[len(cited)-1]))
	press(m, "enter", "1")
	screen := m.render()
	if !regexp.MustCompile(fmt.Sprintf(`(?m)^>! +%d snap`, cited[len(cited)-1])).MatchString(screen) {
		t.Errorf("the vanished line is not marked ! in the list:\n%s", screen)
	}
	if !strings.Contains(strings.Join(m.lines, "\n"), "cited by: message-vanished (error)") {
		t.Errorf("the Event tab does not name the finding:\n%s", strings.Join(m.lines, "\n"))
	}
}

// TestExploreTimestampStops checks, on a generated capture whose
// sequences are Unix milliseconds, that every accepted line is marked as
// cited by timestamp-sequence (more than inspect lists by default), but
// that n stops only at the collisions: each dropped snapshot and the one
// accepted at its sequence.
func TestExploreTimestampStops(t *testing.T) {
	const snapshots, every = 240, 40 // a collision every 40 snapshots: 6
	file, want := writeMsCapture(t, 1, snapshots, every)
	m := newTestExplorer(t, 120, 40, "", file)
	ids := map[string]bool{}
	for _, f := range m.x.findings {
		ids[f.ID] = true
	}
	if !ids[inspect.TimestampSequence] || !ids[inspect.SequenceCollision] {
		t.Fatalf("findings %v, want timestamp-sequence and sequence-collision", ids)
	}
	cited := 0
	for i := range m.x.len() {
		if m.x.row(i).cited() {
			cited++
		}
	}
	if accepted := snapshots - snapshots/every; cited < accepted || accepted <= inspect.DefaultMaxPositions {
		t.Errorf("%d lines marked cited, want every one of the %d accepted", cited, accepted)
	}
	if got := stops(m); !slices.Equal(got, want) {
		t.Errorf("n stops at lines %v, want the %d collisions %v", got, len(want)/2, want)
	}
}

// writeMsCapture writes a capture of sessions sessions (s-0, s-1…), their
// lines interleaved, each a submit and snapshots snapshots numbered by
// their emittedAt in Unix milliseconds; every every-th snapshot shares
// the millisecond of the one before it, a collision. It returns the file
// and the lines of the collisions: each accepted line and the one dropped.
func writeMsCapture(t *testing.T, sessions, snapshots, every int) (string, []int) {
	t.Helper()
	var b strings.Builder
	n := 0
	t0 := time.Date(2026, 7, 11, 3, 0, 0, 0, time.UTC)
	line := func(s int, id string, ms int64, kind, payload string) {
		at := t0.Add(time.Duration(ms) * time.Millisecond)
		fmt.Fprintf(&b, `{"protocol":"agentskit.chat.turn","version":1,"eventId":"%d-%s","sessionId":"session-%d","turnId":"t1","sequence":%d,"emittedAt":%q,"event":%q,"payload":%s}`+"\n",
			s, id, s, at.UnixMilli(), at.Format("2006-01-02T15:04:05.000Z"), kind, payload)
		n++
	}
	for s := range sessions {
		line(s, "e0", 0, "client.turn.submit", `{"input":"hi"}`)
	}
	var collisions []int
	last := make([]int, sessions)
	ms := make([]int64, sessions)
	for k := 1; k <= snapshots; k++ {
		for s := range sessions {
			snap := fmt.Sprintf(`{"status":"streaming","usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"messages":[{"id":"u","role":"user","content":"hi","status":"complete","createdAt":"2026-07-11T03:00:00.000Z"},{"id":"a","role":"assistant","content":"%s","status":"streaming","createdAt":"2026-07-11T03:00:00.000Z"}],"lineage":{"operation":"submit"}}`, strings.Repeat("x", k%50+1)+fmt.Sprint(k))
			if k%every == 0 {
				// In the same millisecond as the snapshot before: dropped.
				collisions = append(collisions, last[s], n+1)
			} else {
				ms[s] += 7
			}
			line(s, fmt.Sprintf("e%d", k), ms[s], "server.turn.snapshot", snap)
			last[s] = n
		}
	}
	file := filepath.Join(t.TempDir(), "ms.jsonl")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	slices.Sort(collisions)
	return file, collisions
}

package inspect

import (
	"bytes"
	"os"
	"testing"

	"github.com/agentskit/snapctl/replay"
)

// TestWindowNeverAccepted: a turn whose snapshots in the window were all
// kept inert, while the capture goes on with it past the window (where
// one is accepted), is never-accepted in the window: turn-never-accepted
// does not name it. The window's own problems (the lost update that made
// the snapshot inert) stay; without the window the turn is complete.
func TestWindowNeverAccepted(t *testing.T) {
	data, err := os.ReadFile("../testdata/inspect/window-never-accepted.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	file := writeLines(t, bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")))
	rep := run(t, Options{Window: &replay.Window{Lines: []replay.LineRange{{First: 1, Last: 3}}}}, file)
	if fs := findingsOf(rep, TurnNeverAccepted); len(fs) > 0 {
		t.Errorf("turn-never-accepted %+v: the capture goes on with t2 past the window", fs)
	}
	if len(findingsOf(rep, SequenceCollision)) != 1 {
		t.Errorf("findings %+v: want the sequence-collision inside the window", rep.Findings)
	}
	var cut bool
	for _, e := range rep.Overview.Sessions[0].Endings() {
		cut = cut || (e.TurnID == "t2" && e.Window != nil && e.Window.Line == 4)
	}
	if !cut {
		t.Errorf("endings %+v: want t2 cut by the window, going on at line 4", rep.Overview.Sessions[0].Endings())
	}
	// The window to the end: t2's last line is in it, and it is never
	// accepted by any line the capture holds.
	if fs := findingsOf(run(t, Options{Window: &replay.Window{Lines: []replay.LineRange{{First: 1, Last: 3}}}}, writeLines(t, bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))[:3])), TurnNeverAccepted); len(fs) != 1 {
		t.Errorf("capture ending at line 3: turn-never-accepted %+v, want 1", fs)
	}
}

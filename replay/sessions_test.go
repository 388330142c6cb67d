package replay_test

import (
	"bytes"
	"testing"

	"github.com/agentskit/snapctl/internal/hostile"
	"github.com/agentskit/snapctl/replay"
)

// TestManySessions checks what a run's summary keeps per session (its
// counts, cursor and final snapshot) on a capture of many one-line
// sessions: a quarter of the 1 KiB the commands that build on it have.
func TestManySessions(t *testing.T) {
	hostile.ManySessions(t, "replay's summary", 256, func(capture []byte) any {
		rd, err := replay.Open([]string{replay.StdinName}, bytes.NewReader(capture), 0)
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		sum, err := replay.Run(rd, replay.Options{}, func(*replay.Result) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		return sum
	})
}

package replay_test

import (
	"testing"

	"github.com/agentskit/snapctl/internal/hostile"
	"github.com/agentskit/snapctl/replay"
)

// TestManySessions checks what a run's summary keeps per session (its
// counts, cursor and final snapshot) on a capture of many one-line
// sessions: a quarter of the 1 KiB the commands that build on it have.
func TestManySessions(t *testing.T) {
	hostile.ManySessions(t, "replay's summary", 208, func(capture []byte) any {
		return hostile.Replay(t, capture, replay.Options{}, func(*replay.Result) error { return nil })
	})
}

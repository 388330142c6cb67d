package explore

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/internal/samples"
	"github.com/agentskit/snapctl/replay"
)

// TestFeedDamageOutlivesTheView truncates a capture while the feed on
// every core indexes a line of it (its messages, borrowed, are read in
// the mapping): replay.Run ends with the damage, which the reader does
// not report (Reader.Err), and the view shows it in its status line
// only. Run must return it once the view is gone, as damage the decoders
// met is reported, so that explore does not exit 0 in silence.
func TestFeedDamageOutlivesTheView(t *testing.T) {
	if math.MaxInt == math.MaxInt32 {
		t.Skip("captures are not mapped on 32 bits")
	}
	b := samples.Read(t, "reconnect.jsonl")
	name := filepath.Join(t.TempDir(), "cut.jsonl")
	if err := os.WriteFile(name, []byte(strings.Repeat(string(b), 2000)), 0o644); err != nil {
		t.Fatal(err)
	}
	rd, err := replay.Open([]string{name}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	n, sum := 0, 0
	observe := func(res *replay.Result) {
		if n++; n == 100 {
			if err := os.Truncate(name, 0); err != nil {
				t.Fatal(err)
			}
		}
		if n >= 100 && res.Event != nil {
			for _, m := range res.Event.Snapshot.Messages {
				for i := range len(m.Content) {
					sum += int(m.Content[i])
				}
			}
		}
	}
	feed, err := startExploreFeed(rd, replay.Options{}, observe, true, false)
	if err != nil {
		t.Fatal(err)
	}
	x := &exploreIndex{open: map[int]*os.File{}}
	defer x.close()
	drainFeed(t, feed, x) // the error is the outcome's, checked below
	var d *replay.DamageError
	if rd.Err() == nil && !errors.As(feed.outcome(nil), &d) {
		t.Fatalf("after %d rows of a capture truncated while read, Run reports %v and the reader %v", x.len(), feed.outcome(nil), rd.Err())
	}
	if quit := errors.New("the view failed"); feed.outcome(quit) != quit {
		t.Errorf("the view's own error %v is not the outcome", quit)
	}
}

package explore

import (
	"io"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/replay"
)

// Options is what the explorer needs to run.
type Options struct {
	// Reader is the capture, Replay the options of its run.
	Reader *replay.Reader
	Replay replay.Options
	// Files are the captures' names, as Reader was opened with: when
	// none has a line to spool (spoolsNone), the lines are decoded on
	// every core.
	Files []string
	// Observe, when set, sees every result as it is read (the format
	// sniffer's hint).
	Observe func(*replay.Result)
	Palette iostreams.Palette
	// Redact hides every text that came from a message, tool call,
	// metadata or submit input.
	Redact bool
	// Out is the terminal the view is drawn on.
	Out io.Writer
}

// Run opens the view at once, indexes the capture behind it, and runs
// until q. finished says whether the input was read to its end: when it
// was not (q on a live stream), the reader is still in use.
func Run(o Options) (finished bool, err error) {
	feed, err := startExploreFeed(o.Reader, o.Replay, o.Observe, spoolsNone(o.Files))
	if err != nil {
		return true, err
	}
	x := &exploreIndex{opts: o.Replay, open: map[int]*os.File{}}
	defer x.close()
	m := newExploreModel(x, o.Palette, o.Redact)
	m.feed = feed
	_, err = tea.NewProgram(m, tea.WithOutput(o.Out)).Run()
	return feed.finished(), feed.outcome(err)
}

package explore

import (
	"io"
	"os"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/replay"
	"github.com/charmbracelet/colorprofile"
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
	feed, err := startExploreFeed(o.Reader, o.Replay, o.Observe, spoolsNone(o.Files), o.Redact)
	if err != nil {
		return true, err
	}
	x := &exploreIndex{opts: o.Replay, redact: o.Redact, open: map[int]*os.File{}}
	defer x.close()
	m := newExploreModel(x, o.Palette, o.Redact)
	m.feed = feed
	opts := []tea.ProgramOption{tea.WithOutput(o.Out)}
	if p := drawProfile(o.Palette, o.Out, os.Environ()); p != nil {
		opts = append(opts, tea.WithColorProfile(*p))
	}
	_, err = tea.NewProgram(m, opts...).Run()
	return feed.finished(), feed.outcome(err)
}

// drawProfile is the colour profile the program draws with when the
// palette colours, nil to let bubbletea detect it. The palette has
// decided already (--color, NO_COLOR, a terminal), as for every command;
// bubbletea's detection would turn colour off again with NO_COLOR set or
// TERM=dumb under --color always. The terminal's own depth is kept, and
// at least the 16 colours of the palette.
func drawProfile(pal iostreams.Palette, out io.Writer, environ []string) *colorprofile.Profile {
	if pal.Bold("x") == "x" {
		return nil
	}
	environ = slices.DeleteFunc(slices.Clone(environ), func(kv string) bool { return strings.HasPrefix(kv, "NO_COLOR=") })
	p := max(colorprofile.Detect(out, environ), colorprofile.ANSI)
	return &p
}

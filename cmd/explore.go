package cmd

import (
	"github.com/agentskit/snapctl/replay"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"
)

// exploreOptions is everything `snapctl explore` needs.
type exploreOptions struct {
	IO *iostreams
	captureFlags
	Redact bool
}

// newCmdExplore builds `snapctl explore`. runF replaces the run function
// in tests; nil means exploreRun.
func newCmdExplore(ios *iostreams, runF func(*exploreOptions) error) *cobra.Command {
	opts := &exploreOptions{IO: ios}
	c := &cobra.Command{
		Use:   "explore FILE...",
		Short: "Step through a capture in a full-screen terminal view, line by line",
		Long: `Explore reads captures like replay (same reader, cursor, --session,
--max-line and --event-path) and opens a full-screen view: the events on the
left, and on the right, for the selected line, its event, the projection the
client holds after it, the diff against the previous accepted projection,
the session's lineage and the inspect findings that involve it.

x toggles the selected line off and on: every later verdict, projection
and diff is recomputed as if it had never arrived, then the findings and
the tree; w writes the capture without the toggled lines. ? lists every
key.

The view opens at once and fills in as the capture is read; with - it
follows standard input as it arrives. Only the offset and envelope of each
line are kept, in 40 bytes; a line is read again when shown (standard
input and compressed captures are copied to a temporary file for that, of
at most 4 GiB: past it, reading stops and the status line says so).
Standard output must be a terminal. Exit status: 0 done, 2 bad usage or input.`,
		Example: `  snapctl explore capture.jsonl
  snapctl explore --session session-7f3a capture.jsonl.gz
  curl -N "$URL" | snapctl explore -
  snapctl explore --redact capture.jsonl`,
		RunE: func(c *cobra.Command, args []string) error {
			if !ios.OutTTY {
				return usageErrorf("explore needs a terminal: standard output is not one (use replay, diff or inspect for output to a file or pipe)")
			}
			if len(args) == 0 {
				return usageErrorf("no capture given: name a FILE, or - for standard input")
			}
			if err := opts.validateCapture(ios, c.Flags(), args); err != nil {
				return err
			}
			// The view re-reads a line from its offset in the file, which
			// only an NDJSON capture read as one stream has.
			if opts.Each {
				return usageErrorf("explore shows one stream of captures: --each is not supported")
			}
			if opts.Format != replay.FormatAuto && opts.Format != replay.FormatNDJSON {
				return usageErrorf("explore reads NDJSON captures: --format %s is not supported (replay, inspect, lineage and diff read it)", opts.Format)
			}
			if runF != nil {
				return runF(opts)
			}
			return opts.finish(ios, exploreRun(opts))
		},
	}
	opts.register(c.Flags(), "pin the trusted session `ID` (default: one cursor per session)")
	registerRedact(c.Flags(), &opts.Redact)
	registerIDCompletion(c)
	return c
}

// exploreRun opens the view at once and indexes the captures behind it,
// then runs until q.
func exploreRun(o *exploreOptions) error {
	// Unlike the other commands, no relaxGC: the index is most of what
	// stays live, and holds no pointer, so the default collector costs
	// little and keeps the peak near twice the index rather than three
	// times.
	// Streaming: no progress line on a terminal the view is drawn on.
	rd, done, err := o.read(o.IO, true)
	if err != nil {
		return err
	}
	// The hint finish gives is read only once the feed is done with it.
	feed, err := startExploreFeed(rd, o.options(), o.sniff.Observe)
	if err != nil {
		done()
		return err
	}
	x := &exploreIndex{opts: o.options(), open: map[int]*os.File{}}
	defer x.close()
	m := newExploreModel(x, o.IO.palette(), o.Redact)
	m.feed = feed
	opts := []tea.ProgramOption{tea.WithOutput(o.IO.Out)}
	if o.IO.stdout != nil {
		opts = []tea.ProgramOption{tea.WithOutput(o.IO.stdout)}
	}
	_, err = tea.NewProgram(m, opts...).Run()
	if !feed.finished() {
		// Quit before the input ended (a live stream): the reader is
		// still in use, and there is nothing to report about it.
		o.rd = nil
		return err
	}
	done()
	return err
}

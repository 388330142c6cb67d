package cmd

import (
	"errors"

	"github.com/agentskit/snapctl/cmd/internal/explore"
	"github.com/agentskit/snapctl/cmd/internal/help"
	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/replay"

	"github.com/spf13/cobra"
)

// exploreOptions is everything `snapctl explore` needs.
type exploreOptions struct {
	IO *iostreams.IOStreams
	captureFlags
	Redact bool
}

// newCmdExplore builds `snapctl explore`. runF replaces the run function
// in tests; nil means exploreRun.
func newCmdExplore(ios *iostreams.IOStreams, runF func(*exploreOptions) error) *cobra.Command {
	opts := &exploreOptions{IO: ios}
	c := &cobra.Command{
		Use:   "explore FILE...",
		Short: "Step through a capture in a full-screen terminal view, line by line",
		Long:  help.Command("explore"),
		Example: `  snapctl explore capture.jsonl
  snapctl explore --session session-7f3a capture.jsonl.gz
  curl -N "$URL" | snapctl explore -
  snapctl explore --redact capture.jsonl`,
		RunE: func(c *cobra.Command, args []string) error {
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
			if opts.URL != "" {
				return usageErrorf("explore reads NDJSON captures: --url is not supported (it applies to HAR captures, which replay, inspect, lineage and diff read)")
			}
			// The flags first: a usage error is the same on a terminal or not.
			if !ios.OutTTY {
				return usageErrorf("explore needs a terminal: standard output is not one (use replay, diff or inspect for output to a file or pipe)")
			}
			if runF != nil {
				return runF(opts)
			}
			return opts.finish(ios, exploreRun(opts))
		},
	}
	opts.registerOneStream(c.Flags(), "pin the trusted session `ID` (default: one cursor per session)")
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
	out := o.IO.Out
	if o.IO.Stdout() != nil {
		out = o.IO.Stdout()
	}
	finished, err := explore.Run(explore.Options{Reader: rd, Replay: o.options(), Files: o.Files, Observe: o.sniff.Observe,
		Palette: o.IO.Palette(), Redact: o.Redact, Out: out})
	if !finished {
		// Quit before the input ended (a live stream): the reader is
		// still in use, and there is nothing to report about it.
		o.rd = nil
		return err
	}
	done()
	// A capture whose bytes went while its lines were indexed: input
	// that could not be read, as for the other commands.
	var d *replay.DamageError
	if errors.As(err, &d) {
		err = &usageError{err}
	}
	return err
}

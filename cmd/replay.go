package cmd

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/agentskit/snapctl/cmd/internal/help"
	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/render"
	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/replay"
	"github.com/spf13/cobra"
)

// replayOptions is everything `snapctl replay` needs.
type replayOptions struct {
	IO *iostreams.IOStreams
	captureFlags
	Output string
	// Only and FailOn are sets of reasons; nil Only shows every event.
	Only   []replay.Reason
	FailOn []replay.Reason
	// Turn shows only the events of this turn, as lineage and diff keep
	// only its turns and pairs.
	Turn   string
	Redact bool
}

// newCmdReplay builds `snapctl replay`. runF replaces the run function in
// tests; nil means replayRun.
func newCmdReplay(ios *iostreams.IOStreams, runF func(*replayOptions) error) *cobra.Command {
	opts := &replayOptions{IO: ios}
	var failOn, only string
	c := &cobra.Command{
		Annotations: map[string]string{"pager": pageFiles},
		Use:         "replay [FILE...]",
		Short:       "Run a capture through the snapshot cursor: accepted or inert, and why",
		Long:        strings.Replace(help.Command("replay"), "{{reasons}}", render.ReasonTable(), 1),
		Example: `  snapctl replay testdata/reconnect.jsonl
  snapctl replay --session session-a --only problems capture.jsonl
  snapctl replay -o jsonl capture.jsonl | jq 'select(.reason == "stale")'
  curl -N "$URL" | snapctl replay -
  snapctl replay --fail-on stale,malformed capture.jsonl.gz
  snapctl replay --url /api/turns session.har
  snapctl replay --redact --only inert capture.jsonl`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := opts.validateCapture(ios, c.Flags(), args); err != nil {
				return err
			}
			if err := opts.validate(failOn, only); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			if each, err := opts.eachCapture(ios, humanOutput(opts.Output), func(sub *iostreams.IOStreams, file string) error {
				o := *opts
				o.IO, o.Files = sub, []string{file}
				return o.finish(sub, replayRun(&o))
			}); each {
				return err
			}
			return opts.finish(ios, replayRun(opts))
		},
	}
	f := c.Flags()
	f.StringVarP(&opts.Output, "output", "o", "table", "output format: table, wide (every value whole), json or jsonl")
	f.StringVar(&only, "only", "", "show only events with these `REASONS`, comma-separated: reasons, accepted, inert or problems (the summary counts all)")
	f.StringVar(&failOn, "fail-on", "", "exit 1 when any event has one of these `REASONS` (as --only)")
	f.StringVar(&opts.Turn, "turn", "", "show only the events of turn `ID`, malformed ones whose envelope names it too (the summary counts all)")
	registerRedact(f, &opts.Redact)
	opts.register(f, "pin the trusted session `ID` (default: one cursor per session)")
	_ = c.RegisterFlagCompletionFunc("output", fixedCompletion("table", "wide", "json", "jsonl"))
	_ = c.RegisterFlagCompletionFunc("only", listCompletion(reasonWords()...))
	_ = c.RegisterFlagCompletionFunc("fail-on", listCompletion(reasonWords()...))
	registerIDCompletion(c)
	return c
}

func reasonNames() []string {
	names := make([]string, len(replay.Reasons))
	for i, r := range replay.Reasons {
		names[i] = string(r)
	}
	return names
}

func (o *replayOptions) validate(failOn, only string) error {
	switch o.Output {
	case "table", "wide", "json", "jsonl":
	default:
		return usageErrorf("-o must be table, wide, json or jsonl, not %q", o.Output)
	}
	if o.Turn != "" {
		if err := checkIdent("--turn", o.Turn); err != nil {
			return err
		}
	}
	var err error
	if only != "" {
		if o.Only, err = parseReasonList("--only", only); err != nil {
			return err
		}
	}
	if failOn != "" {
		if o.FailOn, err = parseReasonList("--fail-on", failOn); err != nil {
			return err
		}
	}
	return nil
}

// liveInput says whether any input may be live: standard input, or a
// file that is not a regular file (a pipe, a terminal, /dev/fd/N).
func liveInput(files []string) bool {
	for _, f := range files {
		if f == replay.StdinName {
			return true
		}
		if fi, err := os.Stat(f); err == nil && !fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// eventWriter writes one replay result in some format.
type eventWriter interface {
	Event(res *replay.Result) error
	Summary(sum replay.Summary) error
}

func replayRun(o *replayOptions) error {
	rd, done, err := o.read(o.IO, true)
	if err != nil {
		return err
	}
	defer done()
	var w eventWriter
	var out *bufio.Writer
	switch o.Output {
	case "json", "jsonl":
		out = bufio.NewWriterSize(o.IO.Out, 64<<10)
		w = render.NewJSONEvents(o.jsonOut(out), o.Output, o.Redact, o.EventPath)
	default:
		width := o.IO.FitWidth(o.Output == "wide")
		out = bufio.NewWriterSize(text.FitLines(o.IO.Out, width), 64<<10)
		_, size := rd.Progress()
		w = render.NewTable(out, o.IO.Palette(), render.TableOptions{WithFile: len(o.Files) > 1, Redact: o.Redact, EventPath: o.EventPath, Width: width, Sized: o.IO.OutTTY, Live: liveInput(o.Files), Size: size})
	}
	matches := render.NewReasonMatches(o.FailOn)
	turns := render.NewTurnFinder(o.Turn, o.Session) // with --turn, where it is, to say so if nowhere
	// Flush whenever the run waits for input, so a live stream shows each
	// event as soon as its line has arrived.
	ropts := o.options()
	ropts.Idle = func() {
		if t, ok := w.(*render.Table); ok {
			t.Idle()
		}
		out.Flush()
	}
	sum, err := replay.Run(rd, ropts, func(res *replay.Result) error {
		matches.Observe(res)
		o.sniff.Observe(res)
		if o.Turn != "" {
			turns.Observe(res)
			if _, turn := render.SessionTurn(res); turn != o.Turn {
				return nil
			}
		}
		if o.Only != nil && !slices.Contains(o.Only, res.Reason) {
			return nil
		}
		return w.Event(res)
	})
	if err != nil {
		out.Flush()
		return &usageError{err}
	}
	if err := w.Summary(sum); err != nil {
		return err
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	if err := o.checkSelectors(sum.Input, sum.Counts, sum.SessionIDs(), o.Redact); err != nil {
		return err
	}
	if o.Turn != "" && !turns.Found() {
		return usageErrorf("%s", turns.NotFound())
	}
	return matches.Err()
}

package cmd

import (
	"bufio"
	"fmt"
	"io"

	"github.com/agentskit/snapctl/cmd/internal/help"
	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/render"
	"github.com/agentskit/snapctl/cmd/internal/report"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/inspect/lineage"
	"github.com/agentskit/snapctl/replay"
	"github.com/spf13/cobra"
)

// lineageOptions is everything `snapctl lineage` needs.
type lineageOptions struct {
	IO *iostreams.IOStreams
	captureFlags
	Output string
	Turn   string
	ASCII  bool
	Redact bool
}

// newCmdLineage builds `snapctl lineage`. runF replaces the run function
// in tests; nil means lineageRun.
func newCmdLineage(ios *iostreams.IOStreams, runF func(*lineageOptions) error) *cobra.Command {
	opts := &lineageOptions{IO: ios}
	c := &cobra.Command{
		Annotations: map[string]string{"pager": pageAlways},
		Use:         "lineage [FILE...]",
		Short:       "Draw which turn was retried, edited or regenerated, from what, and how it ended",
		Long:        help.Command("lineage"),
		Example: `  snapctl lineage capture.jsonl
  snapctl lineage --session session-7f3a --turn turn-12 capture.jsonl
  snapctl lineage -o mermaid --redact capture.jsonl >> incident-review.md
  snapctl lineage -o dot capture.jsonl | dot -Tsvg > lineage.svg
  snapctl lineage -o svg --redact capture.jsonl > lineage.svg
  snapctl lineage -o json capture.jsonl | jq '.sessions[].turns[] | select(.problems != [])'`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := opts.validateCapture(ios, c.Flags(), args); err != nil {
				return err
			}
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			if each, err := opts.eachCapture(ios, humanOutput(opts.Output), func(sub *iostreams.IOStreams, file string) error {
				o := *opts
				o.IO, o.Files = sub, []string{file}
				return o.finish(sub, lineageRun(&o))
			}); each {
				return err
			}
			return opts.finish(ios, lineageRun(opts))
		},
	}
	f := c.Flags()
	opts.register(f, "pin the trusted session `ID` (default: one tree per session)")
	f.StringVarP(&opts.Output, "output", "o", "tree", "output format: tree, wide (the tree, every value whole), mermaid, dot, svg, json, or jsonl (one session per line)")
	f.StringVar(&opts.Turn, "turn", "", "show only turn `ID`, its ancestors and its descendants")
	f.BoolVar(&opts.ASCII, "ascii", false, "draw the tree with plain ASCII connectors")
	registerRedact(f, &opts.Redact)
	_ = c.RegisterFlagCompletionFunc("output", fixedCompletion("tree", "wide", "mermaid", "dot", "svg", "json", "jsonl"))
	registerIDCompletion(c)
	return c
}

func (o *lineageOptions) validate() error {
	switch o.Output {
	case "tree", "wide", "mermaid", "dot", "svg", "json", "jsonl":
	default:
		return usageErrorf("-o must be tree, wide, mermaid, dot, svg, json or jsonl, not %q", o.Output)
	}
	if o.Each && o.Output == "svg" {
		// One SVG document a capture, one after another, is no SVG file.
		return usageErrorf("--each cannot write -o svg: an SVG file holds one picture; draw each capture on its own, or several as one without --each")
	}
	if o.Turn != "" {
		if err := checkIdent("--turn", o.Turn); err != nil {
			return err
		}
	}
	return nil
}

func lineageRun(o *lineageOptions) error {
	relaxGC()
	rd, done, err := o.read(o.IO, false)
	if err != nil {
		return err
	}
	defer done()
	// The inspector, in the same pass, gives each session's verdict for
	// its headline: the view takes it and re-derives no rule. The builder
	// shares its model, which observes each result once.
	in := inspect.New(inspect.Options{Session: o.Session, MaxLine: o.MaxLine, EventPath: o.EventPath, Sessions: o.budget, Window: o.window, Outcomes: true, Redact: o.Redact})
	b := lineage.NewBuilderOn(in.Model())
	// Neither keeps anything of a message (the builder clones its heads
	// and hashes its ids): the messages need not be copied out of the line.
	ropts := inspect.ReplayOptions(o.options())
	ropts.BorrowMessages = true
	turns := render.NewTurnFinder(o.Turn, o.Session) // where --turn is, to say so if not drawn
	sum, err := replay.Run(rd, ropts, func(res *replay.Result) error {
		b.AddStep(res, in.ObserveStep(res))
		if o.Turn != "" {
			turns.Observe(res)
		}
		o.sniff.Observe(res)
		return nil
	})
	if err != nil {
		return &usageError{err}
	}
	if err := o.checkSelectors(sum.Input, sum.Counts, sum.SessionIDs(), o.Redact); err != nil {
		return err
	}
	rep := in.Finish(sum)
	sessions := b.Finish()
	overviews := rep.Overview.Sessions
	if o.Turn != "" {
		all, allOverviews := sessions, overviews
		if sessions, overviews = render.SelectTurn(all, allOverviews, o.Turn); len(sessions)+len(overviews) == 0 {
			return usageErrorf("%s", turns.NotDrawn())
		}
	}
	if o.Redact {
		render.RedactSessions(sessions)
	}
	out := bufio.NewWriterSize(o.IO.Out, 64<<10)
	if err := writeLineage(out, o, sessions, rep.Verdicts(), overviews, sum.Input); err != nil {
		return err
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

func writeLineage(w io.Writer, o *lineageOptions, sessions []*lineage.Session, verdicts map[string]inspect.Verdict, overviews []inspect.SessionOverview, in replay.Stats) error {
	switch o.Output {
	case "json":
		return render.WriteLineageJSON(o.jsonOut(w), sessions, verdicts, overviews, o.Redact)
	case "jsonl":
		return render.WriteLineageJSONL(w, sessions, verdicts, overviews, o.Redact)
	case "mermaid":
		return render.WriteLineageMermaid(w, sessions, overviews)
	case "dot":
		return render.WriteLineageDot(w, sessions, overviews)
	case "svg":
		return report.WriteLineageSVG(w, sessions, verdicts, overviews)
	}
	return render.NewTree(w, o.IO.Palette(), o.IO.FitWidth(o.Output == "wide"), o.ASCII).Verdicts(verdicts).Overviews(overviews).Input(in).Write(sessions)
}

package cmd

import (
	"bufio"
	"errors"
	"fmt"

	"github.com/agentskit/snapctl/cmd/internal/help"
	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/render"
	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/diff"
	"github.com/agentskit/snapctl/replay"
	"github.com/spf13/cobra"
)

// diffOptions is everything `snapctl diff` needs.
type diffOptions struct {
	IO *iostreams.IOStreams
	captureFlags
	Turn     string
	Output   string
	Stat     bool
	Redact   bool
	Range    bool
	From, To snapshotRef
	// Only keeps the pairs it returns true for; nil keeps every pair.
	Only func(*diff.PairDiff) bool
}

// newCmdDiff builds `snapctl diff`. runF replaces the run function in
// tests; nil means diffRun.
func newCmdDiff(ios *iostreams.IOStreams, runF func(*diffOptions) error) *cobra.Command {
	opts := &diffOptions{IO: ios}
	var only string
	c := &cobra.Command{
		Annotations: map[string]string{"pager": pageFiles},
		Use:         "diff [FILE...]",
		Short:       "Show what changed between accepted snapshots: messages added, removed, changed",
		Long:        help.Command("diff"),
		Example: `  snapctl diff testdata/diff-vanished.jsonl
  snapctl diff --stat capture.jsonl
  snapctl diff --only unexplained,status capture.jsonl
  snapctl diff --session session-a --from 3 --to 9 capture.jsonl
  snapctl diff --from line:120 --to line:480 capture.jsonl
  snapctl diff --turn turn-2 -o jsonl capture.jsonl | jq '.messages.removed'
  curl -N "$URL" | snapctl diff --redact -`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := opts.validateCapture(ios, c.Flags(), args); err != nil {
				return err
			}
			from, to := c.Flags().Changed("from"), c.Flags().Changed("to")
			opts.Range = from || to
			if err := opts.validate(from, to); err != nil {
				return err
			}
			if only != "" {
				keep, err := parsePairFilter(only)
				if err != nil {
					return err
				}
				opts.Only = keep
			}
			if runF != nil {
				return runF(opts)
			}
			if each, err := opts.eachCapture(ios, humanOutput(opts.Output), func(sub *iostreams.IOStreams, file string) error {
				o := *opts
				o.IO, o.Files = sub, []string{file}
				return o.finish(sub, diffRun(&o))
			}); each {
				return err
			}
			return opts.finish(ios, diffRun(opts))
		},
	}
	f := c.Flags()
	opts.register(f, "pin the trusted session `ID` (default: one cursor per session)")
	f.StringVar(&opts.Turn, "turn", "", "keep only pairs whose newer snapshot belongs to turn `ID`")
	opts.From.flag, opts.To.flag = "--from", "--to"
	f.Var(&opts.From, "from", "compare the accepted snapshot at sequence `SEQ`, or at line:N (with --to)")
	f.Var(&opts.To, "to", "with the accepted snapshot at sequence `SEQ`, or at line:N, of the same session (with --from)")
	f.StringVarP(&opts.Output, "output", "o", "text", "output format: text, json or jsonl")
	f.BoolVar(&opts.Stat, "stat", false, "one line per pair with counts (text output)")
	f.StringVar(&only, "only", "", "show only pairs with these `CHANGES`, comma-separated: "+text.OrList(pairFilterNames())+" (the summary counts the pairs shown)")
	_ = c.RegisterFlagCompletionFunc("only", listCompletion(pairFilterNames()...))
	registerRedact(f, &opts.Redact)
	_ = c.RegisterFlagCompletionFunc("output", fixedCompletion("text", "json", "jsonl"))
	registerIDCompletion(c)
	return c
}

func (o *diffOptions) validate(fromSet, toSet bool) error {
	switch o.Output {
	case "text", "json", "jsonl":
	default:
		return usageErrorf("-o must be text, json or jsonl, not %q", o.Output)
	}
	if o.Stat && o.Output != "text" {
		return usageErrorf("--stat is a text format: it cannot go with -o %s", o.Output)
	}
	if o.Turn != "" {
		if err := checkIdent("--turn", o.Turn); err != nil {
			return err
		}
	}
	if fromSet != toSet {
		return usageErrorf("--from and --to go together: name both sequences")
	}
	if o.Range && o.From.line == 0 && o.To.line == 0 && o.From.seq >= o.To.seq {
		return usageErrorf("--from %d must be less than --to %d: accepted sequences only grow", o.From.seq, o.To.seq)
	}
	if o.Range && o.From.line > 0 && o.To.line > 0 && o.From.entry == o.To.entry && o.From.line >= o.To.line {
		return usageErrorf("--from %s must come before --to %s", o.From.String(), o.To.String())
	}
	return nil
}

// pairWriter writes the pairs of a diff in some format.
type pairWriter interface {
	Pair(p *diff.PairDiff) error
	Finish(in replay.Stats) error
}

func diffRun(o *diffOptions) error {
	relaxGC()
	rd, done, err := o.read(o.IO, true)
	if err != nil {
		return err
	}
	defer done()
	human := o.IO.Out
	if o.Output == "text" {
		human = text.FitLines(human, o.IO.FitWidth(false))
	}
	out := bufio.NewWriterSize(human, 64<<10)

	var w pairWriter
	switch {
	case o.Output == "json" || o.Output == "jsonl":
		w = render.NewDiffJSON(o.jsonOut(out), o.Output, o.Redact)
	default:
		w = render.NewDiffText(out, o.IO.Palette(), render.DiffTextOptions{Stat: o.Stat, Redact: o.Redact, WithFile: len(o.Files) > 1, Range: o.Range})
	}
	if o.Only != nil {
		w = onlyPairs{w, o.Only}
	}
	// Only the text output shows word diffs (--redact counts their words).
	d := diff.NewDiffer(diff.Options{Session: o.Session, Turn: o.Turn, Range: o.Range,
		From: o.From.seq, To: o.To.seq, FromLine: o.From.line, ToLine: o.To.line, FromEntry: o.From.entry, ToEntry: o.To.entry,
		NoWords: o.Output != "text" || o.Stat, Borrowed: true}, w.Pair)
	ropts := o.options()
	// The pairs are written as they come: the messages can be borrowed
	// from the lines, and the differ copies only what it keeps.
	ropts.Messages, ropts.BorrowMessages = true, true
	// Flush while waiting for input, so a live stream shows each pair
	// as soon as it is known.
	ropts.Idle = func() { out.Flush() }
	// Where --turn is, to say so when it has no accepted snapshot.
	turns := render.NewTurnFinder(o.Turn, o.Session)
	add := func(res *replay.Result) error {
		if o.Turn != "" {
			turns.Observe(res)
		}
		o.sniff.Observe(res)
		return d.Add(res)
	}
	sum, err := replay.Run(rd, ropts, add)
	if err != nil {
		out.Flush()
		return &usageError{err}
	}
	if err := o.checkSelectors(sum.Input, sum.Counts, sum.SessionIDs(), o.Redact); err != nil {
		out.Flush()
		return err
	}
	if o.Turn != "" && !turns.Accepted() {
		out.Flush()
		return usageErrorf("%s", turns.NotCompared())
	}
	if err := d.Finish(); err != nil {
		var re *diff.RangeError
		if errors.As(err, &re) {
			out.Flush()
			return &usageError{err}
		}
		return err
	}
	if err := w.Finish(sum.Input); err != nil {
		return err
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

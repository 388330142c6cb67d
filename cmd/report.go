package cmd

import (
	"crypto/sha256"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agentskit/snapctl/cmd/internal/help"
	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/report"
	"github.com/agentskit/snapctl/diff"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/inspect/lineage"
	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
	"github.com/spf13/cobra"
)

// reportOptions is everything `snapctl report` needs.
type reportOptions struct {
	IO *iostreams.IOStreams
	captureFlags
	// Output is the output format (-o), as in every command: html.
	Output string
	// Out is the file written (--out), "-" for standard output; Force
	// lets it replace a file that exists.
	Out       string
	Force     bool
	AllEvents bool
	Redact    bool
	// Now is the clock of the generated-at line.
	Now func() time.Time
}

// newCmdReport builds `snapctl report`. runF replaces the run function in
// tests; nil means reportRun.
func newCmdReport(ios *iostreams.IOStreams, runF func(*reportOptions) error) *cobra.Command {
	opts := &reportOptions{IO: ios, Now: time.Now}
	c := &cobra.Command{
		Use:   "report [FILE...]",
		Short: "Write a self-contained HTML incident report: findings, timelines, lineage, events and diffs",
		Long:  help.Command("report"),
		Example: `  snapctl report capture.jsonl
  snapctl report --out incident-4711.html --redact part1.jsonl part2.jsonl.gz
  snapctl report --out - capture.jsonl > page.html
  snapctl report --all-events --session session-7f3a capture.jsonl`,
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
			return opts.finish(ios, reportRun(opts))
		},
	}
	f := c.Flags()
	opts.registerOneStream(f, "pin the trusted session `ID` (default: one cursor per session)")
	f.StringVarP(&opts.Output, "output", "o", "html", "output format: html (the only one; name the file with --out)")
	f.StringVar(&opts.Out, "out", "report.html", "write the report to `FILE` (- for standard output)")
	f.BoolVar(&opts.Force, "force", false, "replace the --out file if it exists")
	_ = c.RegisterFlagCompletionFunc("output", fixedCompletion("html"))
	f.BoolVar(&opts.AllEvents, "all-events", false, "show every event in the tables, not only problems and their context")
	registerRedact(f, &opts.Redact)
	registerIDCompletion(c)
	return c
}

// validate checks -o and --out before any capture is read: a report is
// HTML, and an existing regular file is kept unless --force.
func (o *reportOptions) validate() error {
	switch {
	case o.Each:
		return usageErrorf("report draws one page of one stream of captures: --each is not supported (inspect --each -o jsonl triages many)")
	case o.Output == "html":
	case strings.Contains(o.Output, "."):
		// -o named the file before --out did: say what it is now.
		return usageErrorf("-o is the output format (html); name the file with --out %s", o.Output)
	default:
		return usageErrorf("a report is HTML only: -o must be html, not %q (name the file with --out FILE)", o.Output)
	}
	if o.Out == "" {
		return usageErrorf("--out needs a file name, or - for standard output")
	}
	if o.IO.IsStdout(o.Out) {
		o.Out = "-"
	}
	if o.Out != "-" {
		if err := o.IO.CheckOutNotInput(o.Out, o.Files); err != nil {
			return &usageError{err}
		}
		if err := iostreams.CheckOutFile(o.Out, o.Force); err != nil {
			return &usageError{err}
		}
	}
	return nil
}

func reportRun(o *reportOptions) error {
	// No relaxGC: what stays live is some 10 to 20 MB (the events the
	// collector holds, the inspector's state), and the collector's
	// default pace keeps the peak near the bound of every command (64
	// MiB + twice the longest line): 51 to 55 MB on a 347 MB capture,
	// where GOGC=200 took 69 to 79 MB for 7% less CPU, and 69 MB on one
	// session of 400,000 small snapshots, where it took 94 MB.
	rd, done, err := o.read(o.IO, false)
	if err != nil {
		return err
	}
	defer done()
	// Every capture is hashed as it is read, in the run's one pass.
	rd.HashStored(sha256.New)
	got, err := collectReport(o, rd, true)
	if err != nil {
		return err
	}
	// A page of nothing is no report: a flag that selected nothing is
	// bad usage here too, and no file is written.
	if err := o.checkSelectors(got.sum.Input, got.sum.Counts, got.sum.SessionIDs(), o.Redact); err != nil {
		return err
	}
	files := report.FilesOf(rd.Stored())
	page := report.BuildPage(report.PageOptions{Generated: o.Now(), Version: version(), Redact: o.Redact, AllEvents: o.AllEvents}, files, got.in.Finish(got.sum), got.lb.Finish(), got.col)
	return writeReportFile(o, page)
}

// reportInputs are what a report is built from: the inspector, the
// lineage builder and the collector after the run, and its summary.
type reportInputs struct {
	in  *inspect.Inspector
	lb  *lineage.Builder
	col *report.Collector
	sum replay.Summary
}

// collectReport reads the capture once through the inspector, the
// collector, and (for the sessions the collector keeps) the lineage
// builder and the differ. With borrow, the messages point into the lines
// (replay.Options.BorrowMessages): none of the four keeps a string of
// them but a copy of its own (the collector's cells, the differ's kept
// projection: diff.Options.Borrowed), and no line is copied whole.
func collectReport(o *reportOptions, rd *replay.Reader, borrow bool) (*reportInputs, error) {
	col := report.NewCollector(o.Redact, o.AllEvents, o.EventPath)
	in := inspect.New(inspect.Options{Session: o.Session, MaxLine: o.MaxLine, EventPath: o.EventPath, Sessions: o.budget, Window: o.window,
		MaxPositions: report.MaxPositions, Redact: o.Redact})
	lb := lineage.NewBuilder(o.Session)
	d := diff.NewDiffer(diff.Options{Session: o.Session, NoWords: true, Borrowed: borrow}, col.AddPair)
	ropts := o.options()
	ropts.Messages, ropts.Hash, ropts.BorrowMessages = true, true, borrow
	sum, err := replay.Run(rd, ropts, func(res *replay.Result) error {
		in.Observe(res)
		o.sniff.Observe(res)
		col.Add(res)
		// Lineage trees and diffs are drawn only for the sessions the
		// collector keeps, and the diffs are the costliest part of the
		// run: neither sees any other session's snapshots, unless one is
		// pinned, when every line counts against it.
		if o.Session == "" && res.Event != nil && !col.Keeps(res.Event.SessionID) {
			return nil
		}
		lb.Add(res)
		return d.Add(res)
	})
	if err != nil {
		return nil, &usageError{err}
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	lb.NoteWindow(sum)
	return &reportInputs{in: in, lb: lb, col: col, sum: sum}, nil
}

// writeReportFile writes the page to --out's file, or to standard
// output, and says on standard error which file it wrote.
func writeReportFile(o *reportOptions, page *report.Page) error {
	err := writeOutFile(o.IO, o.Out, o.Force, func(w io.Writer, _ bool) error { return report.WritePage(w, page) })
	if err == nil && o.Out != "-" {
		fmt.Fprintf(o.IO.ErrOut, "snapctl: wrote %s\n", termsafe.String(o.Out))
	}
	return err
}

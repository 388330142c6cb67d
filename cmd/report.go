package cmd

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"time"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/report"
	"github.com/agentskit/snapctl/diff"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/inspect/lineage"
	"github.com/agentskit/snapctl/replay"
	"github.com/spf13/cobra"
)

// reportOptions is everything `snapctl report` needs.
type reportOptions struct {
	IO *iostreams.IOStreams
	captureFlags
	// Output is the file written, "-" for standard output.
	Output    string
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
		Long: `Report reads captures like replay (NDJSON; "-" or no FILE reads standard
input; gzip and zstd are recognised), once, and writes one self-contained
HTML file to attach to an incident ticket: every style and picture inline,
no script, no request to any other host, printable.

It holds a header (the files with their size and SHA-256, when it was
generated, snapctl's version, whether --redact was given), the summary
counts, the findings of inspect worst first with links to the events they
cite, and per session: a timeline chart of sequences against the position
in the capture (accepted snapshots as a line, inert events as marks coloured
by reason, file boundaries as vertical rules), the lineage tree, the event
table (problems with a few rows of context, or every row with --all-events;
filterable by reason in the page) and the diffs of successive accepted
projections, per turn.

Sizes are bounded whatever the capture: the first 16 sessions get charts,
tables and diffs; a chart keeps at most 512 points (neighbouring events
are merged past that); the tables at most 2000 rows per session and 5000
in all (100,000 in all with --all-events); a turn's diff 40 changes; the
page lists 1000 findings and 1000 sessions. Every count covers the whole
capture, and the page says where a cap was reached.

Exit status: 0 done, 2 bad usage, an unreadable capture (no file is
written) or damaged input (the report is written, with a banner saying
where the input stopped). Nothing is printed when the report is written.

The page reads the same with scripts off, and prints (filters and switches
are hidden on paper; every table prints whole). Its first element is a
Content-Security-Policy that forbids script, connections and any load from
outside the page (see snapctl help hostile-input). In detail, top to bottom:
  - a header: each capture with its size as stored and its SHA-256
    (standard input is hashed as it is read), when the report was
    generated (UTC), the snapctl version (as --version prints it), the
    pinned session if any, and a banner that says whether --redact was
    given;
  - the summary: events, lines, accepted and inert, by reason, kind and
    decode code, with the damage and --max-line warnings of replay;
  - the findings of inspect, worst first, each linking to its session's
    section and to the rows of the lines it cites;
  - the sessions table, each with its verdict as inspect gives it (folded
    when there are more than 20 sessions);
  - the malformed lines, which belong to no session;
  - per session: a timeline chart (SVG): x is the position of each event
    in the capture, y its sequence; the accepted snapshots are one green
    line, inert events are marks coloured by reason (stale, duplicate,
    foreign-session, non-snapshot); the first event of the session in
    each new file (a reconnect) is a dashed vertical rule named after the
    file; events cited by an error or warning finding (a sequence
    collision, …) are ringed in red, every one (an aggregated point
    with one is ringed). A switch above the chart shows it
    against emittedAt instead (CSS only: it works with scripts off). When
    the sequences look like Unix-millisecond timestamps, the sequence axis
    is labelled in seconds from an instant named in its title. Each mark's
    tooltip names its line, and clicking it goes to its row;
  - the lineage tree (SVG, the same picture as lineage -o svg): an
    indented tree, one turn per row, the operation on each edge, the final
    outcome (how the turn ended for the client), sequences and tokens on
    each box, a turn not complete or with problems as a red dashed box,
    operation colours only in a session without problems; the box's
    tooltip has the whole description; then the turn list: each turn's
    outcome, the line that shows it, and where a cut-off reply was later
    shown complete;
  - the event table: by default the problems (stale, duplicate,
    foreign-session and malformed lines, and the sequence gaps inspect
    reports) and every line a finding cites, with two rows of
    context before and after each; --all-events shows every row.
    Checkboxes above the table hide the rows of a reason (CSS only). Rows
    are anchors: findings and chart points link to them;
  - the diffs of successive accepted projections, one collapsed line per
    turn (pairs, sequences, status change, messages added, removed — and
    how many no lineage explains — and changed), opening on the changes,
    each message with the head of its text; the turn's name links to its
    box in the lineage picture.
--redact hides message texts, submit inputs and the values quoted in
decode problems (a text becomes its length), as in the other commands; the
top of the page says so. How the page keeps capture text from running as
markup: snapctl help hostile-input.

Size and memory: the capture is read once; the report keeps only what the
page shows, so its size and memory are bounded whatever the capture's:
  sessions with a chart, a lineage tree, an event table and diffs
      the first 16, in order of appearance (the summary, the sessions
      table and the findings cover all)
  points per chart
      512: past it, neighbouring positions are merged into one point, a
      bar spanning their events' sequences, so no inert event disappears;
      an aggregated chart has no tooltips or links, and says so
  rows of the event tables
      2000 per session and 5000 in all (100,000 in all with --all-events)
  events held until the findings are known
      50,000 (the kept sessions' first events, a few strings each, about
      10 MB); past it, rows are chosen as events come (problems and their
      context), and a cited line may have no row: its position says so
  malformed lines listed
      500
  sessions in the sessions table
      1000
  findings listed
      1000, worst first, 20 positions each (inspect lists them all)
  lines findings cite
      every one, for the charts' rings: on a capture that cites nearly all
      its 200,001 lines, peak memory grew by about 30 MB
  turns drawn in a lineage tree
      500 (lineage -o svg draws them all)
  turns with diffs per session, changes per turn
      200, 40
  text in a cell, head of a message
      200, 160 runes
The page says which caps were reached. Without --session, only the
sessions the report draws go through the lineage builder and the differ
(the costliest part); the inspector sees every line. Files are hashed on a
goroutine beside the run (through the page cache); the measured sizes and
times are in scripts/README.md.`,
		Example: `  snapctl report capture.jsonl
  snapctl report -o incident-4711.html --redact part1.jsonl part2.jsonl.gz
  snapctl report --all-events --session session-7f3a capture.jsonl`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := opts.validateCapture(ios, c.Flags(), args); err != nil {
				return err
			}
			if opts.Output == "" {
				return usageErrorf("-o needs a file name, or - for standard output")
			}
			if runF != nil {
				return runF(opts)
			}
			return opts.finish(ios, reportRun(opts))
		},
	}
	f := c.Flags()
	opts.register(f, "pin the trusted session `ID` (default: one cursor per session)")
	f.StringVarP(&opts.Output, "output", "o", "report.html", "write the report to `FILE` (- for standard output)")
	f.BoolVar(&opts.AllEvents, "all-events", false, "show every event in the tables, not only problems and their context")
	registerRedact(f, &opts.Redact)
	registerIDCompletion(c)
	return c
}

func reportRun(o *reportOptions) error {
	relaxGC()
	// Standard input is hashed as it is read.
	var stdinHash hash.Hash
	var stdinSize byteCounter
	if o.IO.In != nil {
		stdinHash = sha256.New()
		o.IO.In = io.TeeReader(o.IO.In, io.MultiWriter(stdinHash, &stdinSize))
	}
	rd, done, err := o.read(o.IO, false)
	if err != nil {
		return err
	}
	defer done()
	hashed := report.HashBeside(o.Files)
	got, err := collectReport(o, rd)
	if err != nil {
		return err
	}
	files, err := hashed()
	if err != nil {
		return &usageError{err}
	}
	for i := range files {
		if files[i].Name == replay.StdinName && stdinHash != nil {
			files[i].Name, files[i].Size = "standard input", int64(stdinSize)
			files[i].SHA256 = hex.EncodeToString(stdinHash.Sum(nil))
		}
	}
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
// builder and the differ.
func collectReport(o *reportOptions, rd *replay.Reader) (*reportInputs, error) {
	col := report.NewCollector(o.Redact, o.AllEvents)
	in := inspect.New(inspect.Options{Session: o.Session, MaxLine: o.MaxLine, EventPath: o.EventPath, Sessions: o.budget, Window: o.window,
		MaxPositions: report.MaxPositions})
	lb := lineage.NewBuilder(o.Session)
	d := diff.NewDiffer(diff.Options{Session: o.Session, NoWords: true}, col.AddPair)
	ropts := o.options()
	ropts.Messages, ropts.Hash = true, true
	sum, err := replay.Run(rd, ropts, func(res *replay.Result) error {
		in.Observe(res)
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
	return &reportInputs{in: in, lb: lb, col: col, sum: sum}, nil
}

// byteCounter counts the bytes written to it.
type byteCounter int64

func (c *byteCounter) Write(p []byte) (int, error) {
	*c += byteCounter(len(p))
	return len(p), nil
}

// writeReportFile writes the page to -o's file, or to standard output.
func writeReportFile(o *reportOptions, page *report.Page) error {
	if o.Output == "-" {
		out := bufio.NewWriterSize(o.IO.Out, 64<<10)
		if err := report.WritePage(out, page); err != nil {
			return err
		}
		return out.Flush()
	}
	f, err := os.Create(o.Output)
	if err != nil {
		return &usageError{err}
	}
	out := bufio.NewWriterSize(f, 64<<10)
	err = report.WritePage(out, page)
	if err == nil {
		err = out.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(o.Output)
		return fmt.Errorf("writing %s: %w", o.Output, err)
	}
	return nil
}

package cmd

import (
	"bufio"
	"fmt"
	"slices"
	"strings"

	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/replay"
	"github.com/spf13/cobra"
)

// inspectOptions is everything `snapctl inspect` needs.
type inspectOptions struct {
	IO *iostreams
	captureFlags
	Output string
	// FailOn is the severity at or above which a finding exits 1; empty
	// means never.
	FailOn inspect.Severity
	// Line and EventID select lines to show up close instead of the report.
	Line    int
	EventID string
	// Redact hides the values and free-form keys of the lines shown up
	// close.
	Redact bool
}

// newCmdInspect builds `snapctl inspect`. runF replaces the run function
// in tests; nil means inspectRun.
func newCmdInspect(ios *iostreams, runF func(*inspectOptions) error) *cobra.Command {
	opts := &inspectOptions{IO: ios}
	var failOn string
	c := &cobra.Command{
		Annotations: map[string]string{"pager": pageAlways},
		Use:         "inspect [FILE...]",
		Short:       "Explain a capture: an overview and the server bugs it shows, with positions",
		Long: `Inspect reads captures as replay does (same reader, cursor, --session and
--max-line) and reports an overview of what they hold and findings: classes
of server bug the capture shows, each with the lines involved.

Findings:
` + checkList() + `
With --line N (one FILE) or --event-id ID, inspect shows those lines up
close instead: the event as indented JSON, every decode problem, the
cursor's verdict in the context of the whole capture, and the findings that
name the line. --redact shows only the envelope and the protocol's own
fields of those lines (ids, statuses, counts, lengths), and problems without
the values and keys they quote, for sharing outside the team.

Exit status: 0 done, 1 --fail-on matched, 2 bad usage or input.`,
		Example: `  snapctl inspect capture.jsonl
  snapctl inspect --session session-a -o json capture.jsonl | jq '.findings[].id'
  snapctl inspect --fail-on warning capture.jsonl.gz
  snapctl inspect --line 12 capture.jsonl
  snapctl inspect --event-id evt-turn-2-0 part1.jsonl part2.jsonl`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := opts.validateCapture(ios, c.Flags(), args); err != nil {
				return err
			}
			if err := opts.validate(failOn, c.Flags().Changed("line"), c.Flags().Changed("event-id")); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return opts.finish(ios, inspectRun(opts))
		},
	}
	f := c.Flags()
	opts.register(f, "pin the trusted session `ID` (default: one cursor per session)")
	f.StringVarP(&opts.Output, "output", "o", "table", "output format: table, wide (lines not wrapped) or json")
	f.StringVar(&failOn, "fail-on", "", "exit 1 when a finding of this `SEVERITY` or worse exists: "+orList(severityNames()))
	f.IntVar(&opts.Line, "line", 0, "show line `N` of the one FILE up close")
	f.StringVar(&opts.EventID, "event-id", "", "show every line with event id `ID` up close")
	registerRedact(f, &opts.Redact)
	_ = c.RegisterFlagCompletionFunc("output", fixedCompletion("table", "wide", "json"))
	_ = c.RegisterFlagCompletionFunc("fail-on", fixedCompletion(severityNames()...))
	registerIDCompletion(c)
	return c
}

// checkList is the findings table of the help text.
func checkList() string {
	var b strings.Builder
	for _, c := range inspect.Checks {
		fmt.Fprintf(&b, "  %-8s %-22s %s\n", c.Severity, c.ID, c.Summary)
	}
	return b.String()
}

// severityNames names inspect's severities, worst first.
func severityNames() []string {
	names := make([]string, len(inspect.Severities))
	for i, s := range inspect.Severities {
		names[i] = string(s)
	}
	return names
}

// orList writes names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// validate checks the flags; lineSet and idSet say whether --line and
// --event-id were given, so that --line 0 and an empty --event-id are refused
// rather than taken for the report.
func (o *inspectOptions) validate(failOn string, lineSet, idSet bool) error {
	switch o.Output {
	case "table", "wide", "json":
	default:
		return usageErrorf("-o must be table, wide or json, not %q", o.Output)
	}
	o.FailOn = inspect.Severity(failOn)
	if failOn != "" && !slices.Contains(inspect.Severities, o.FailOn) {
		return usageErrorf("--fail-on must be %s, not %q", orList(severityNames()), failOn)
	}
	if lineSet && o.Line < 1 {
		return usageErrorf("--line must be a line number from 1")
	}
	if lineSet && idSet {
		return usageErrorf("--line and --event-id cannot be used together")
	}
	if idSet {
		if err := checkIdent("--event-id", o.EventID); err != nil {
			return err
		}
	}
	if o.Line > 0 && len(o.Files) != 1 {
		return usageErrorf("--line needs exactly one FILE, not %d", len(o.Files))
	}
	return nil
}

func inspectRun(o *inspectOptions) error {
	relaxGC()
	rd, done, err := o.read(o.IO, false)
	if err != nil {
		return err
	}
	defer done()
	opts := inspect.Options{Session: o.Session, MaxLine: o.MaxLine, EventPath: o.EventPath, Sessions: o.budget}
	human := o.IO.Out
	if o.Output != "json" {
		human = fitLines(human, o.IO.FitWidth(o.Output == "wide"))
	}
	out := bufio.NewWriterSize(human, 64<<10)
	var rep inspect.Report
	if o.Line > 0 || o.EventID != "" {
		target := inspect.Target{File: o.Files[0], Line: o.Line, EventID: o.EventID}
		x, err := inspect.Examine(rd, opts, target)
		if err != nil {
			return &usageError{err}
		}
		if x.Matches == 0 {
			return noMatch(o, x.Report.Overview.Input)
		}
		rep = x.Report
		err = writeCloseups(out, o, x)
		if err != nil {
			return err
		}
	} else {
		rep, err = inspect.Run(rd, opts)
		if err != nil {
			return &usageError{err}
		}
		if o.Output == "json" {
			err = writeReportJSON(out, rep)
		} else {
			err = writeReportTable(out, o.IO.palette(), rep)
		}
		if err != nil {
			return err
		}
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	if o.FailOn != "" {
		for _, f := range rep.Findings {
			if f.Severity.AtLeast(o.FailOn) {
				return errMatched
			}
		}
	}
	return nil
}

// noMatch explains why a --line or --event-id target matched nothing.
func noMatch(o *inspectOptions, in replay.Stats) error {
	if o.EventID != "" {
		return usageErrorf("no line has event id %q", o.EventID)
	}
	if o.Line <= in.Lines {
		return usageErrorf("%s:%d is blank: not an event", o.Files[0], o.Line)
	}
	return usageErrorf("%s has %d lines, no line %d", o.Files[0], in.Lines, o.Line)
}

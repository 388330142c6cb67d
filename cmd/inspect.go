package cmd

import (
	"bufio"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/agentskit/snapctl/cmd/internal/help"
	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/render"
	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/replay"
	"github.com/spf13/cobra"
)

// inspectOptions is everything `snapctl inspect` needs.
type inspectOptions struct {
	IO *iostreams.IOStreams
	captureFlags
	Output string
	// FailOn is the severity at or above which a finding exits 1; empty
	// means never. FailOnIDs are finding ids and FailOnReasons reasons
	// that exit 1 too.
	FailOn        inspect.Severity
	FailOnIDs     []string
	FailOnReasons []replay.Reason
	// FailOnUnfinished is set by unfinished and problems: the turns the
	// verdict counts unfinished exit 1, as its other problems do.
	FailOnUnfinished bool
	// Line and EventID select lines to show up close instead of the
	// report; Entry, when set, keeps line Line of that HAR entry only.
	Line    int
	Entry   int
	EventID string
	// Redact hides the values and free-form keys of the lines shown up
	// close.
	Redact bool
}

// newCmdInspect builds `snapctl inspect`. runF replaces the run function
// in tests; nil means inspectRun.
func newCmdInspect(ios *iostreams.IOStreams, runF func(*inspectOptions) error) *cobra.Command {
	opts := &inspectOptions{IO: ios}
	var failOn string
	c := &cobra.Command{
		Annotations: map[string]string{"pager": pageAlways},
		Use:         "inspect [FILE...]",
		Short:       "Explain a capture: an overview and the server bugs it shows, with positions",
		Long:        strings.Replace(help.Command("inspect"), "{{checks}}", checkList(), 1),
		Example: `  snapctl inspect capture.jsonl
  snapctl inspect --session session-a -o json capture.jsonl | jq '.findings[].id'
  snapctl inspect --fail-on warning capture.jsonl.gz
  snapctl inspect --fail-on message-vanished,malformed capture.jsonl
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
			if each, err := opts.eachCapture(ios, humanOutput(opts.Output), func(sub *iostreams.IOStreams, file string) error {
				o := *opts
				o.IO, o.Files = sub, []string{file}
				return o.finish(sub, inspectRun(&o))
			}); each {
				return err
			}
			return opts.finish(ios, inspectRun(opts))
		},
	}
	f := c.Flags()
	opts.register(f, "pin the trusted session `ID` (default: one cursor per session)")
	f.StringVarP(&opts.Output, "output", "o", "table", "output format: table, wide (lines not wrapped), json, or jsonl (one finding, or one line up close, per line; with --each, one summary row per capture)")
	f.StringVar(&failOn, "fail-on", "", "exit 1 when any of these exist, comma-separated: a finding of a `SEVERITY` ("+text.OrList(severityNames())+") or worse, a finding id, unfinished turns, or events with a reason (as replay's --fail-on; problems: the verdict's too)")
	f.Var(lineFlag{opts}, "line", "show line `N` of the one FILE up close (in a HAR, \"entry E:line N\" for one entry's)")
	f.StringVar(&opts.EventID, "event-id", "", "show every line with event id `ID` up close")
	registerRedact(f, &opts.Redact)
	_ = c.RegisterFlagCompletionFunc("output", fixedCompletion("table", "wide", "json", "jsonl"))
	_ = c.RegisterFlagCompletionFunc("fail-on", listCompletion(append(append(severityNames(), checkIDs()...), append(reasonWords(), unfinishedWord)...)...))
	registerIDCompletion(c)
	return c
}

// checkIDs are the finding ids, in report order.
func checkIDs() []string {
	ids := make([]string, len(inspect.Checks))
	for i, c := range inspect.Checks {
		ids[i] = c.ID
	}
	return ids
}

// parseFailOn sorts the names of a --fail-on list into severities, of
// which the least severe counts, finding ids and reasons.
func (o *inspectOptions) parseFailOn(list string) error {
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		sev := inspect.Severity(name)
		if name == problemsWord || name == unfinishedWord {
			// problems is every problem of the verdict (error and warning
			// findings, unfinished turns) and of replay's reasons.
			o.FailOnUnfinished = true
			if name == unfinishedWord {
				continue
			}
			if w := inspect.SeverityWarning; o.FailOn == "" || w.Rank() > o.FailOn.Rank() {
				o.FailOn = w
			}
		}
		switch {
		case slices.Contains(inspect.Severities, sev):
			if o.FailOn == "" || sev.Rank() > o.FailOn.Rank() {
				o.FailOn = sev
			}
		case slices.Contains(checkIDs(), name):
			o.FailOnIDs = append(o.FailOnIDs, name)
		default:
			rs, ok := reasonsNamed(name)
			if !ok {
				return usageErrorf("--fail-on: %q is not a severity, finding id or reason (want %s; a finding id such as %s; %s; or a reason such as stale, malformed or problems)",
					name, text.OrList(severityNames()), inspect.MessageVanished, unfinishedWord)
			}
			o.FailOnReasons = append(o.FailOnReasons, rs...)
		}
	}
	return nil
}

// checkList is the findings table of the help text.
//
// It is drawn once a process: the catalogue does not change, and every
// command tree a test or fuzz target builds would draw it again (a third
// of a small capture's in-process run).
var checkList = sync.OnceValue(func() string {
	var b strings.Builder
	// A strings.Builder takes every write.
	_ = render.WriteCheckTable(&b, "  ")
	return b.String()
})

// severityNames names inspect's severities, worst first.
func severityNames() []string {
	names := make([]string, len(inspect.Severities))
	for i, s := range inspect.Severities {
		names[i] = string(s)
	}
	return names
}

// validate checks the flags; lineSet and idSet say whether --line and
// --event-id were given, so that --line 0 and an empty --event-id are refused
// rather than taken for the report.
func (o *inspectOptions) validate(failOn string, lineSet, idSet bool) error {
	switch o.Output {
	case "table", "wide", "json", "jsonl":
	default:
		return usageErrorf("-o must be table, wide, json or jsonl, not %q", o.Output)
	}
	if failOn != "" {
		if err := o.parseFailOn(failOn); err != nil {
			return err
		}
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
	reasons := render.NewReasonMatches(o.FailOnReasons)
	opts := inspect.Options{Session: o.Session, MaxLine: o.MaxLine, EventPath: o.EventPath, Sessions: o.budget, Window: o.window, Redact: o.Redact,
		Each: func(res *replay.Result) {
			reasons.Observe(res)
			o.sniff.Observe(res)
		}}
	human := o.IO.Out
	if o.Output != "json" && o.Output != "jsonl" {
		human = text.FitLines(human, o.IO.FitWidth(o.Output == "wide"))
	}
	out := bufio.NewWriterSize(human, 64<<10)
	var rep inspect.Report
	if o.Line > 0 || o.EventID != "" {
		target := inspect.Target{File: o.Files[0], Entry: o.Entry, Line: o.Line, EventID: o.EventID}
		x, err := inspect.Examine(rd, opts, target)
		if err != nil {
			return &usageError{err}
		}
		if err := o.checkSelectors(x.Report.Overview.Input, x.Report.Overview.Counts, x.Report.Overview.SessionIDs(), o.Redact); err != nil {
			return err
		}
		if x.Matches == 0 {
			return noMatch(o, x)
		}
		rep = x.Report
		if o.Output == "json" || o.Output == "jsonl" {
			err = render.WriteCloseupsJSON(o.jsonOut(out), o.Output, o.Redact, x)
		} else {
			err = render.WriteCloseups(out, render.CloseupOptions{Output: o.Output, Redact: o.Redact, Palette: o.IO.Palette()}, x)
		}
		if err != nil {
			return err
		}
	} else {
		rep, err = inspect.Run(rd, opts)
		if err != nil {
			return &usageError{err}
		}
		if err := o.checkSelectors(rep.Overview.Input, rep.Overview.Counts, rep.Overview.SessionIDs(), o.Redact); err != nil {
			return err
		}
		switch o.Output {
		case "json":
			err = render.WriteInspectJSON(o.jsonOut(out), rep)
		case "jsonl":
			if o.Each {
				err = render.WriteEachRow(out, o.Files[0], rep)
			} else {
				err = render.WriteFindingsJSONL(out, rep)
			}
		default:
			err = render.WriteInspectText(out, o.IO.Palette(), rep, o.IO.FitWidth(o.Output == "wide"))
		}
		if err != nil {
			return err
		}
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	var unfinished error
	if o.FailOnUnfinished {
		unfinished = render.UnfinishedMatch(rep.UnfinishedAt())
	}
	return render.JoinMatches(render.FindingMatch(rep.Findings, func(f inspect.Finding) bool {
		return (o.FailOn != "" && f.Severity.AtLeast(o.FailOn)) || slices.Contains(o.FailOnIDs, f.ID)
	}), unfinished, reasons.Err())
}

// noMatch explains why a --line or --event-id target matched nothing,
// saying what there is instead (render.TargetMatchesNothing).
func noMatch(o *inspectOptions, x inspect.Examination) error {
	return usageErrorf("%s", render.TargetMatchesNothing(o.Files[0], o.Entry, o.Line, o.EventID, x))
}

// lineFlag is the value of --line: a line number from 1, or a line of a
// HAR entry as positions print it, "entry E:line N" (entryLine, as diff's
// --from); refused with a sentence rather than strconv's words.
type lineFlag struct{ o *inspectOptions }

func (f lineFlag) Set(v string) error {
	if entry, line, is, ok := entryLine(v); is {
		if !ok {
			return &flagError{fmt.Sprintf("--line %q: give \"entry E:line N\" (or entry:E:line:N) with an entry and a line number from 1", v)}
		}
		f.o.Entry, f.o.Line = entry, line
		return nil
	}
	// Numbers below 1 are refused by validate, which knows --line was set.
	i, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return &flagError{fmt.Sprintf("--line %q is not a line number: give a number from 1, or \"entry E:line N\" in a HAR", v)}
	}
	f.o.Entry, f.o.Line = 0, i
	return nil
}

func (f lineFlag) String() string {
	if f.o == nil {
		return "0"
	}
	return text.Position("", f.o.Entry, f.o.Line)
}

func (f lineFlag) Type() string { return "line" }

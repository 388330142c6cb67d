package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/jsonout"
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
		Long: `Diff replays captures as "snapctl replay" does (same reader, cursor,
--session and --max-line) and compares each accepted snapshot with the
previous accepted snapshot of the same session. Every accepted snapshot is
a complete projection of the conversation, so a pair shows exactly what
appeared (+), disappeared (-) and changed (~), and which inert deliveries
came in between, counted by reason.

Messages are matched by id. A change of content that only extends the old
text shows the appended text; any other change is a word-level diff
([-removed-]{+added+}). A removed message is flagged when no lineage
(retry, edit or regenerate from an earlier message) explains it.

--only keeps the pairs that show one of the changes named: added,
removed, unexplained (a removal no lineage explains), changed, moved or
status.

--from and --to compare two accepted snapshots of one session directly,
each named by its sequence, as line:N, or in a HAR as "entry E:line N"
(line N of entry E's body, as positions print it); one that is not an accepted
snapshot is an error once the input is read, naming the nearest one. --turn keeps only
pairs whose newer snapshot belongs to that turn. --redact replaces every
text and value of a message, tool call, metadata or error by its length,
and every metadata and argument key by *.

Exit status: 0 done, 2 bad usage or input.

Parts, metadata and tool-call args are compared by JSON path ($.tags[1]).
Tool calls are matched by id. A message whose place among the others
changed is reported as moved.

Matching is by id: the k-th message with an id in one projection is the
k-th with that id in the other, so a projection that repeats an id and
loses one occurrence has a removal. A removal is explained when the newer
snapshot's lineage is a retry, edit or regenerate whose sourceMessageId is
that message or one before it (with --from/--to, also the lineage of any
snapshot accepted in between). inspect's message-vanished applies exactly
this rule, from the same code (inspect/model): the removals diff calls
unexplained are the messages inspect reports as vanished, on the same
lines (TestDiffAndInspectAgree).

Inert deliveries count for their own session (with --session, all count
for the pinned one). Malformed lines name no session, so they count in
every session's pair that spans them.

Matching is linear in the two projections; word diffs cover only the text
between the common prefix and suffix and stop at 2,000 edits or 256 KiB
(then the content is shown as rewritten), and are not computed for
-o json, -o jsonl or --stat. Memory holds at most one earlier projection
per session, kept compact past an 8 MiB budget (see snapctl help
hostile-input, many sessions and huge messages), whatever the length of
the capture. The -o json and -o jsonl records: snapctl help json-contract.`,
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
			if each, err := opts.eachCapture(ios, opts.Output == "text", func(sub *iostreams.IOStreams, file string) error {
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
	_ = c.RegisterFlagCompletionFunc("only", fixedCompletion(pairFilterNames()...))
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
	pair(p *diff.PairDiff) error
	finish() error
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
		w = newPairJSON(out, o.Output, o.Redact)
	default:
		w = newPairTextWriter(out, o.IO.Palette(), o)
	}
	if o.Only != nil {
		w = onlyPairs{w, o.Only}
	}
	// Only the text output shows word diffs (--redact counts their words).
	d := diff.NewDiffer(diff.Options{Session: o.Session, Turn: o.Turn, Range: o.Range,
		From: o.From.seq, To: o.To.seq, FromLine: o.From.line, ToLine: o.To.line, FromEntry: o.From.entry, ToEntry: o.To.entry,
		NoWords: o.Output != "text" || o.Stat}, w.pair)
	ropts := o.options()
	ropts.Messages = true
	// Flush while waiting for input, so a live stream shows each pair
	// as soon as it is known.
	ropts.Idle = func() { out.Flush() }
	// The turns of accepted snapshots, to name them when --turn matches none.
	var turns nameSet
	add := func(res *replay.Result) error {
		if o.Turn != "" && res.Verdict() == replay.Accepted {
			turns.add(res.Event.TurnID)
		}
		o.sniff.Observe(res)
		return d.Add(res)
	}
	sum, err := replay.Run(rd, ropts, add)
	if err != nil {
		out.Flush()
		return &usageError{err}
	}
	if err := o.checkWindow(sum.Input, sum.Counts); err != nil {
		out.Flush()
		return err
	}
	if err := o.checkSession(sessionIDs(sum.Sessions)); err != nil {
		out.Flush()
		return err
	}
	if o.Turn != "" && !turns.has(o.Turn) {
		out.Flush()
		return unknownName("--turn", o.Turn, "turn", turns.order)
	}
	if err := d.Finish(); err != nil {
		var re *diff.RangeError
		if errors.As(err, &re) {
			out.Flush()
			return &usageError{err}
		}
		return err
	}
	if err := w.finish(); err != nil {
		return err
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

// writePair writes the machine record of one pair: the stable contract
// documented in the README.
func writePair(e *jsonout.Encoder, p *diff.PairDiff, redact bool) {
	e.BeginObject()
	e.Key("sessionId")
	e.Str(p.SessionID)
	e.Key("turnId")
	e.Str(p.To.TurnID)
	e.Key("fromTurnId")
	e.Str(p.From.TurnID)
	e.Key("fromSequence")
	e.Int(p.From.Sequence)
	e.Key("toSequence")
	e.Int(p.To.Sequence)
	e.Key("fromFile")
	e.Str(p.From.File)
	e.Key("fromLine")
	e.Int(int64(p.From.Line))
	e.Key("toFile")
	e.Str(p.To.File)
	e.Key("toLine")
	e.Int(int64(p.To.Line))
	e.Key("status")
	writeFromTo(e, func() { e.Str(string(p.FromStatus)) }, func() { e.Str(string(p.ToStatus)) })
	e.Key("usage")
	if p.UsageCompared {
		writeUsage(e, p.Usage)
	} else {
		e.Null()
	}
	e.Key("messages")
	writeMessages(e, p, redact)
	e.Key("error")
	writeFromTo(e, func() { writeDiagnostic(e, p.Error.From, redact) }, func() { writeDiagnostic(e, p.Error.To, redact) })
	e.Key("lineage")
	writeFromTo(e, func() { writePairLineage(e, p.Lineage.From) }, func() { writePairLineage(e, p.Lineage.To) })
	e.Key("inertBetween")
	writeInert(e, p.Inert)
	e.Key("acceptedBetween")
	e.Int(int64(p.AcceptedBetween))
	e.EndObject()
}

// writeFromTo writes {"from": …, "to": …}.
func writeFromTo(e *jsonout.Encoder, from, to func()) {
	e.BeginObject()
	e.Key("from")
	from()
	e.Key("to")
	to()
	e.EndObject()
}

func writeUsage(e *jsonout.Encoder, u replay.Usage) {
	e.BeginObject()
	e.Key("promptTokens")
	e.Int(u.PromptTokens)
	e.Key("completionTokens")
	e.Int(u.CompletionTokens)
	e.Key("totalTokens")
	e.Int(u.TotalTokens)
	e.EndObject()
}

// writeInert writes the inert counts in the fixed order of the reasons.
func writeInert(e *jsonout.Encoder, m map[replay.Reason]int) {
	e.BeginObject()
	for _, r := range replay.Reasons {
		if n := m[r]; n > 0 {
			e.Key(string(r))
			e.Int(int64(n))
		}
	}
	e.EndObject()
}

// writeDiagnostic writes a payload error, or null when there is none.
func writeDiagnostic(e *jsonout.Encoder, d *replay.Diagnostic, redact bool) {
	if d == nil {
		e.Null()
		return
	}
	e.BeginObject()
	e.Key("code")
	e.Str(d.Code)
	if redact {
		e.Key("messageLength")
		e.Int(int64(utf8.RuneCountInString(d.Message)))
	} else {
		e.Key("message")
		e.Str(d.Message)
	}
	e.Key("retryable")
	e.Bool(d.Retryable)
	e.EndObject()
}

func writePairLineage(e *jsonout.Encoder, l replay.Lineage) {
	if l.Operation == "" {
		e.Null()
		return
	}
	e.BeginObject()
	e.Key("operation")
	e.Str(string(l.Operation))
	if l.Operation != replay.OpSubmit {
		e.Key("parentTurnId")
		e.Str(l.ParentTurnID)
		e.Key("sourceMessageId")
		e.Str(l.SourceMessageID)
	}
	e.EndObject()
}

func writeMessages(e *jsonout.Encoder, p *diff.PairDiff, redact bool) {
	e.BeginObject()
	e.Key("added")
	e.StringArray(len(p.Added), func(i int) string { return p.Added[i].ID })
	e.Key("removed")
	e.StringArray(len(p.Removed), func(i int) string { return p.Removed[i].Message.ID })
	var unexplained []string
	for _, r := range p.Removed {
		if !r.Explained {
			unexplained = append(unexplained, r.Message.ID)
		}
	}
	e.Key("unexplained")
	e.StringArray(len(unexplained), func(i int) string { return unexplained[i] })
	e.Key("changed")
	e.BeginArray()
	for i := range p.Changed {
		c := &p.Changed[i]
		e.BeginObject()
		e.Key("id")
		e.Str(c.ID)
		e.Key("fields")
		e.StringArray(len(c.Fields), func(j int) string { return string(c.Fields[j]) })
		if c.Grew {
			if redact {
				e.Key("appendedLength")
				e.Int(int64(utf8.RuneCountInString(c.Appended)))
			} else {
				e.Key("appended")
				e.Str(c.Appended)
			}
		}
		e.EndObject()
	}
	e.EndArray()
	e.Key("moved")
	e.StringArray(len(p.Moved), func(i int) string { return p.Moved[i].ID })
	e.EndObject()
}

// pairJSON writes pair records as JSON Lines, or as one document
// {"pairs": [...]} whose pairs are written as they come.
type pairJSON struct {
	jsonout.RecordStream
	redact bool
}

func newPairJSON(out io.Writer, format string, redact bool) *pairJSON {
	return &pairJSON{RecordStream: jsonout.NewRecordStream(out, format, "pairs"), redact: redact}
}

func (w *pairJSON) pair(p *diff.PairDiff) error {
	writePair(w.Enc, p, w.redact)
	return w.Done()
}

func (w *pairJSON) finish() error {
	if w.Lines {
		return nil
	}
	w.Enc.EndArray()
	w.Enc.EndObject()
	return w.Enc.End()
}

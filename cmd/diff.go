package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/agentskit/snapctl/diff"
	"github.com/agentskit/snapctl/replay"
	"github.com/spf13/cobra"
)

// DiffOptions is everything `snapctl diff` needs.
type DiffOptions struct {
	IO *IOStreams
	CaptureFlags
	Turn     string
	Output   string
	Stat     bool
	Redact   bool
	Range    bool
	From, To int64
}

// NewCmdDiff builds `snapctl diff`. runF replaces the run function in
// tests; nil means diffRun.
func NewCmdDiff(ios *IOStreams, runF func(*DiffOptions) error) *cobra.Command {
	opts := &DiffOptions{IO: ios}
	c := &cobra.Command{
		Use:   "diff [FILE...]",
		Short: "Show what changed between accepted snapshots: messages added, removed, changed",
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

--from and --to compare two accepted snapshots of one session directly;
an unknown sequence is an error once the input is read. --turn keeps only
pairs whose newer snapshot belongs to that turn. --redact replaces every
text and value of a message, tool call, metadata or error by its length,
and every metadata and argument key by *.

Exit status: 0 done, 2 bad usage or input.`,
		Example: `  snapctl diff testdata/diff-vanished.jsonl
  snapctl diff --stat capture.jsonl
  snapctl diff --session session-a --from 3 --to 9 capture.jsonl
  snapctl diff --turn turn-2 -o jsonl capture.jsonl | jq '.messages.removed'
  curl -N "$URL" | snapctl diff --redact -`,
		RunE: runE(ios, &opts.CaptureFlags, opts, func(c *cobra.Command) error {
			from, to := c.Flags().Changed("from"), c.Flags().Changed("to")
			opts.Range = from || to
			return opts.validate(from, to)
		}, runF, diffRun),
	}
	f := c.Flags()
	opts.register(f, "pin the trusted session `ID` (default: one cursor per session)")
	f.StringVar(&opts.Turn, "turn", "", "keep only pairs whose newer snapshot belongs to turn `ID`")
	f.Int64Var(&opts.From, "from", 0, "compare the accepted snapshot at `SEQ` (with --to)")
	f.Int64Var(&opts.To, "to", 0, "with the accepted snapshot at `SEQ` of the same session (with --from)")
	f.StringVarP(&opts.Output, "output", "o", "text", "output format: text, json or jsonl")
	f.BoolVar(&opts.Stat, "stat", false, "one line per pair with counts (text output)")
	registerRedact(f, &opts.Redact)
	_ = c.RegisterFlagCompletionFunc("output", fixedCompletion("text", "json", "jsonl"))
	return c
}

func (o *DiffOptions) validate(fromSet, toSet bool) error {
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
	if o.Range {
		if o.From < 0 || o.To < 0 {
			return usageErrorf("--from and --to must be sequences (non-negative integers)")
		}
		if o.From >= o.To {
			return usageErrorf("--from %d must be less than --to %d: accepted sequences only grow", o.From, o.To)
		}
	}
	return nil
}

// pairWriter writes the pairs of a diff in some format.
type pairWriter interface {
	pair(p *diff.PairDiff) error
	finish() error
}

func diffRun(o *DiffOptions) error {
	relaxGC()
	rd, done, err := o.read(o.IO, true)
	if err != nil {
		return err
	}
	defer done()
	out := bufio.NewWriterSize(o.IO.Out, 64<<10)

	var w pairWriter
	switch {
	case o.Output == "jsonl":
		w = &pairJSON{s: jsonStream{out: out}, redact: o.Redact}
	case o.Output == "json":
		w = &pairJSON{s: jsonStream{out: out, key: "pairs"}, redact: o.Redact}
	default:
		w = newPairTextWriter(out, o.IO.Palette(), o)
	}
	// Only the text output shows word diffs (--redact counts their words).
	d := diff.NewDiffer(diff.Options{Session: o.Session, Turn: o.Turn, Range: o.Range, From: o.From, To: o.To,
		NoWords: o.Output != "text" || o.Stat}, w.pair)
	ropts := o.options()
	ropts.Messages = true
	// Flush while waiting for input, so a live stream shows each pair
	// as soon as it is known.
	ropts.Idle = func() { out.Flush() }
	_, err = replay.Run(rd, ropts, d.Add)
	if err != nil {
		out.Flush()
		return &usageError{err}
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

// appendPair appends the machine record of one pair: the stable contract
// documented in the README.
func appendPair(b []byte, p *diff.PairDiff, redact bool) []byte {
	o := jsonObj{b: b}
	o.open()
	o.str("sessionId", p.SessionID)
	o.str("turnId", p.To.TurnID)
	o.str("fromTurnId", p.From.TurnID)
	o.int("fromSequence", p.From.Sequence)
	o.int("toSequence", p.To.Sequence)
	o.str("fromFile", p.From.File)
	o.int("fromLine", int64(p.From.Line))
	o.str("toFile", p.To.File)
	o.int("toLine", int64(p.To.Line))
	o.raw("status", appendFromTo(nil, appendJSONString(nil, string(p.FromStatus)), appendJSONString(nil, string(p.ToStatus))))
	o.key("usage")
	o.b = appendUsage(o.b, p.Usage)
	o.key("messages")
	o.b = appendMessagesJSON(o.b, p, redact)
	o.raw("error", appendFromTo(nil, appendDiagnostic(nil, p.Error.From, redact), appendDiagnostic(nil, p.Error.To, redact)))
	o.raw("lineage", appendFromTo(nil, appendLineage(nil, p.Lineage.From), appendLineage(nil, p.Lineage.To)))
	o.key("inertBetween")
	o.b = appendInert(o.b, p.Inert)
	o.int("acceptedBetween", int64(p.AcceptedBetween))
	o.close()
	return o.b
}

// appendFromTo appends {"from": from, "to": to}; both are JSON already.
func appendFromTo(b, from, to []byte) []byte {
	b = append(b, `{"from":`...)
	b = append(b, from...)
	b = append(b, `,"to":`...)
	b = append(b, to...)
	return append(b, '}')
}

func appendUsage(b []byte, u replay.Usage) []byte {
	o := jsonObj{b: b}
	o.open()
	o.int("promptTokens", u.PromptTokens)
	o.int("completionTokens", u.CompletionTokens)
	o.int("totalTokens", u.TotalTokens)
	o.close()
	return o.b
}

// appendInert appends the inert counts in the fixed order of the reasons.
func appendInert(b []byte, m map[replay.Reason]int) []byte {
	o := jsonObj{b: b}
	o.open()
	for _, r := range replay.Reasons {
		if n := m[r]; n > 0 {
			o.int(string(r), int64(n))
		}
	}
	o.close()
	return o.b
}

// appendDiagnostic appends a payload error, or null when there is none.
func appendDiagnostic(b []byte, d *replay.Diagnostic, redact bool) []byte {
	if d == nil {
		return append(b, "null"...)
	}
	o := jsonObj{b: b}
	o.open()
	o.str("code", d.Code)
	if redact {
		o.int("messageLength", int64(utf8.RuneCountInString(d.Message)))
	} else {
		o.str("message", d.Message)
	}
	o.bool("retryable", d.Retryable)
	o.close()
	return o.b
}

func appendLineage(b []byte, l replay.Lineage) []byte {
	if l.Operation == "" {
		return append(b, "null"...)
	}
	o := jsonObj{b: b}
	o.open()
	o.str("operation", string(l.Operation))
	if l.Operation != replay.OpSubmit {
		o.str("parentTurnId", l.ParentTurnID)
		o.str("sourceMessageId", l.SourceMessageID)
	}
	o.close()
	return o.b
}

func appendMessagesJSON(b []byte, p *diff.PairDiff, redact bool) []byte {
	o := jsonObj{b: b}
	o.open()
	ids := func(k string, n int, id func(int) string) {
		o.key(k)
		o.b = append(o.b, '[')
		for i := 0; i < n; i++ {
			if i > 0 {
				o.b = append(o.b, ',')
			}
			o.b = appendJSONString(o.b, id(i))
		}
		o.b = append(o.b, ']')
	}
	ids("added", len(p.Added), func(i int) string { return p.Added[i].ID })
	ids("removed", len(p.Removed), func(i int) string { return p.Removed[i].Message.ID })
	var unexplained []string
	for _, r := range p.Removed {
		if !r.Explained {
			unexplained = append(unexplained, r.Message.ID)
		}
	}
	ids("unexplained", len(unexplained), func(i int) string { return unexplained[i] })
	o.key("changed")
	o.b = append(o.b, '[')
	for i := range p.Changed {
		c := &p.Changed[i]
		if i > 0 {
			o.b = append(o.b, ',')
		}
		e := jsonObj{b: o.b}
		e.open()
		e.str("id", c.ID)
		e.key("fields")
		e.b = append(e.b, '[')
		for j, f := range c.Fields {
			if j > 0 {
				e.b = append(e.b, ',')
			}
			e.b = appendJSONString(e.b, string(f))
		}
		e.b = append(e.b, ']')
		if c.Grew {
			if redact {
				e.int("appendedLength", int64(utf8.RuneCountInString(c.Appended)))
			} else {
				e.str("appended", c.Appended)
			}
		}
		e.close()
		o.b = e.b
	}
	o.b = append(o.b, ']')
	ids("moved", len(p.Moved), func(i int) string { return p.Moved[i].ID })
	o.close()
	return o.b
}

// pairJSON writes pair records as JSON Lines or as {"pairs": [...]}.
type pairJSON struct {
	s      jsonStream
	redact bool
}

func (w *pairJSON) pair(p *diff.PairDiff) error {
	return w.s.record(func(b []byte) []byte { return appendPair(b, p, w.redact) })
}

func (w *pairJSON) finish() error { return w.s.close(nil) }

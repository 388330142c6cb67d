package cmd

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/agentskit/snapctl/cmd/internal/help"
	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/render"
	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/inspect/reduce"
	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
	"github.com/spf13/cobra"
)

// reduceOptions is everything `snapctl reduce` needs.
type reduceOptions struct {
	IO *iostreams.IOStreams
	captureFlags
	Finding   string
	Redact    bool
	RenameIDs bool
	// Out is the file written, "-" for standard output; a name ending in
	// .txtar gets a testscript archive.
	Out   string
	Force bool
	// archive is set when the name given ends in .txtar, which Out may
	// no longer be: standard output's own file is written as "-".
	archive bool
}

// newCmdReduce builds `snapctl reduce`. runF replaces the run function in
// tests; nil means reduceRun.
func newCmdReduce(ios *iostreams.IOStreams, runF func(*reduceOptions) error) *cobra.Command {
	opts := &reduceOptions{IO: ios}
	c := &cobra.Command{
		Use:   "reduce --out FILE [--finding NAME] [--session ID] [--redact] CAPTURE",
		Short: "Cut a capture down to the fewest lines that still show a finding, to hand to the server team",
		Long:  help.Command("reduce"),
		Example: `  snapctl reduce --finding message-vanished --out vanished.jsonl capture.jsonl
  snapctl reduce --session session-7f3a --redact --out share.jsonl capture.jsonl.gz
  snapctl reduce --redact --out regression.txtar capture.jsonl`,
		Args: argCount(0, 1, "reduce cuts one CAPTURE: name one file, or - for standard input"),
		RunE: func(c *cobra.Command, args []string) error {
			if opts.Out == "" {
				return usageErrorf("reduce writes a capture: name it with --out FILE (- for standard output)")
			}
			if opts.archive = strings.HasSuffix(opts.Out, ".txtar"); ios.IsStdout(opts.Out) {
				opts.Out = "-"
			}
			if err := opts.validateCapture(ios, c.Flags(), args); err != nil {
				return err
			}
			if opts.Out != "-" {
				// Before the capture is read and cut, which may take long.
				if err := ios.CheckOutNotInput(opts.Out, opts.Files); err != nil {
					return &usageError{err}
				}
				if err := iostreams.CheckOutFile(opts.Out, opts.Force); err != nil {
					return &usageError{err}
				}
			}
			if opts.Each {
				return usageErrorf("reduce cuts one capture: --each is not supported")
			}
			if opts.Format != replay.FormatAuto && opts.Format != replay.FormatNDJSON {
				return usageErrorf("reduce keeps NDJSON lines: --format %s is not supported", opts.Format)
			}
			if opts.URL != "" {
				return usageErrorf("reduce keeps NDJSON lines: --url is not supported (it applies to HAR captures only)")
			}
			if opts.Finding != "" {
				if _, ok := inspect.CheckByID(opts.Finding); !ok {
					return usageErrorf("%s", render.UnknownFinding("--finding", opts.Finding))
				}
			}
			if runF != nil {
				return runF(opts)
			}
			opts.rawLines = true
			return opts.finish(ios, reduceRun(opts))
		},
	}
	f := c.Flags()
	opts.registerOneStream(f, "pin the trusted session `ID`, and keep every finding of it when --finding is not given")
	f.StringVar(&opts.Finding, "finding", "", "keep the finding `NAME` (snapctl help findings)")
	_ = c.RegisterFlagCompletionFunc("finding", fixedCompletion(checkIDs()...))
	f.StringVar(&opts.Out, "out", "", "write the reduced capture to `FILE` (- for standard output; .txtar for a testscript archive)")
	f.BoolVar(&opts.Force, "force", false, "replace the --out file if it exists")
	registerRedact(f, &opts.Redact)
	f.BoolVar(&opts.RenameIDs, "rename-ids", false, "map every id of the protocol to e1, s1, t1, m1, c1… (the same id to the same name)")
	registerIDCompletion(c)
	return c
}

func reduceRun(o *reduceOptions) error {
	rd, done, err := o.read(o.IO, false)
	if err != nil {
		return err
	}
	defer done()
	lines, open, err := reduce.ReadLines(rd)
	if err != nil {
		return &usageError{err}
	}
	progress := func(int, int) {}
	if o.IO.ErrTTY {
		progress = func(tests, n int) {
			fmt.Fprintf(o.IO.ErrOut, "\rsnapctl: reduce: %s, %s left ", text.Plural(tests, "test"), text.Plural(n, "line"))
		}
	}
	r := reduce.New(lines, reduce.Options{Session: o.Session, MaxLine: o.MaxLine, EventPath: o.EventPath, Progress: progress, Unterminated: open})
	rep, err := r.Whole()
	if err != nil {
		return &usageError{err}
	}
	if err := o.checkSelectors(rep.Overview.Input, rep.Overview.Counts, rep.Overview.SessionIDs(), o.Redact); err != nil {
		return err
	}
	targets, err := reduce.Targets(rep, o.Finding, o.Session)
	if err != nil {
		return &usageError{err}
	}
	keep, err := r.Reduce(targets)
	if o.IO.ErrTTY {
		fmt.Fprint(o.IO.ErrOut, "\r\033[K")
	}
	if err != nil {
		return &usageError{err}
	}
	kept := make([][]byte, len(keep))
	rw := &render.Rewriter{Neutral: o.Redact, IDs: o.RenameIDs}
	for i, k := range keep {
		kept[i] = lines[k]
		if o.Redact || o.RenameIDs {
			kept[i] = rw.Line(lines[k])
		}
	}
	// The reduced capture as it is written, and what inspect says of it:
	// with --redact or --rename-ids, the proof that the rewriting kept the
	// finding (under the session's new name).
	session := o.Session
	if session != "" {
		session = rw.ID("s", session)
	}
	for i := range targets {
		if targets[i].SessionID != "" {
			targets[i].SessionID = rw.ID("s", targets[i].SessionID)
		}
	}
	open = open && len(keep) > 0 && keep[len(keep)-1] == len(lines)-1 // the last line kept is the cut one
	got, err := reduce.New(kept, reduce.Options{Session: session, MaxLine: o.MaxLine, EventPath: o.EventPath, Unterminated: open}).Whole()
	if err != nil {
		return &usageError{err}
	}
	if !reduce.Shows(got, targets) {
		return usageErrorf("rewriting the lines loses %s: the neutral values or new ids change what the cursor sees; reduce without --redact or --rename-ids and edit by hand", joinTargets(targets))
	}
	data := reduce.Join(kept, open)
	if o.archive {
		var want bytes.Buffer
		w := bufio.NewWriter(&want)
		if err := render.WriteInspectJSON(w, got); err != nil {
			return err
		}
		w.Flush()
		if data, err = reduce.Archive(data, want.Bytes(), targets, session, open); err != nil {
			return &usageError{err}
		}
	}
	write := func(w io.Writer, tty bool) error {
		if tty {
			// The capture's own bytes go to files and pipes; a
			// terminal (standard output, or --out /dev/tty) gets them
			// terminal-safe, as every other output.
			data = []byte(termsafe.Lines(string(data)))
		}
		_, err := w.Write(data)
		return err
	}
	if err := writeOutFile(o.IO, o.Out, o.Force, write); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "snapctl: reduced %s to %s (%s) keeping %s", text.Plural(len(lines), "line"),
		text.Plural(len(keep), "line"), text.Plural(r.Tests(), "test"), joinTargets(targets))
	if o.Out != "-" {
		fmt.Fprintf(o.IO.ErrOut, ": wrote %s", termsafe.String(o.Out))
	}
	fmt.Fprintln(o.IO.ErrOut)
	return nil
}

// joinTargets names the targets, terminal-safe, for a message.
func joinTargets(targets []reduce.Target) string {
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = termsafe.String(t.String())
	}
	return strings.Join(names, ", ")
}

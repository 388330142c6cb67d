package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/jsonout"
	"github.com/agentskit/snapctl/cmd/internal/render"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/internal/memlimit"
	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
	"github.com/spf13/pflag"
)

// captureFlags are the input flags every command shares: the captures, the
// trusted session, the line limit, and where the event sits in a wrapped
// line. Command options embed it, so the reader and cursor behave the same
// in every command.
type captureFlags struct {
	Files     []string
	Session   string
	MaxLine   int
	EventPath string
	Format    replay.Format
	URL       string
	win       windowFlags
	window    *replay.Window
	// Each makes every capture (every file under a directory argument)
	// its own run: see runEach. unreadable holds the directories under
	// an argument that could not be listed, each with its error.
	Each       bool
	unreadable map[string]error
	// oneStream: the command refuses --each (explore, reduce:
	// registerOneStream), so its help (the flag is hidden) and the
	// directory hint do not offer it.
	oneStream bool
	// rawLines: the command reads the capture's lines, not its events
	// (reduce), so sniff sees none and finish gives no hint of them.
	rawLines bool

	rd inputReport // set by read, for finish
	// sniff looks at malformed lines, for finish's hint; every command's
	// run passes it each result.
	sniff replay.Sniffer
}

// inputReport is what finish needs to know of a reader.
type inputReport interface {
	Warnings() []error
	Err() error
	Stats() replay.Stats
}

// register adds --session, --max-line, --event-path, --format, --url and
// --each to f.
func (c *captureFlags) register(f *pflag.FlagSet, sessionHelp string) {
	f.StringVar(&c.Session, "session", "", sessionHelp)
	c.MaxLine = replay.DefaultMaxLine
	f.Var((*lineSize)(&c.MaxLine), "max-line", "longest line to decode, in bytes or a `SIZE` with a unit like 512KiB, 64MiB or 1GiB (the maximum); longer lines are malformed")
	f.StringVar(&c.win.Lines, "lines", "", "read only these `LINES` of each file: N, N-M or N-, comma-separated (like 100-200)")
	f.StringVar(&c.win.Since, "since", "", "read only events emitted at or after `WHEN`: an instant (2026-07-11T03:00:00Z) or a duration from the capture's start (5m)")
	f.StringVar(&c.win.Until, "until", "", "read only events emitted at or before `WHEN`, as --since")
	f.StringVar(&c.EventPath, "event-path", "", "take the event from this gjson `PATH` of each line, for wrapped captures (a string value holding JSON is decoded)")
	c.Format = replay.FormatAuto
	f.BoolVar(&c.Each, "each", false, "treat every FILE as its own capture (a directory: every file under it), read in parallel, output in argument order")
	f.StringVar(&c.URL, "url", "", "HAR captures: read only the entries whose request URL contains `SUBSTRING`")
	f.Var((*formatFlag)(&c.Format), "format", "how the events are carried: `FORMAT` auto (recognise each capture), ndjson, sse, har, docker, cri, kubectl or record")
}

// registerOneStream is register for a command that reads one stream of
// captures (explore, reduce): it refuses --each, so the flag is hidden
// from its help and the directory hint does not offer it.
func (c *captureFlags) registerOneStream(f *pflag.FlagSet, sessionHelp string) {
	c.register(f, sessionHelp)
	c.oneStream = true
	_ = f.MarkHidden("each")
}

// jsonOut is w for a command's JSON: under --each, the writer of its
// capture's own document (jsonout.OfCapture), which names the capture.
func (c *captureFlags) jsonOut(w io.Writer) io.Writer {
	if !c.Each {
		return w
	}
	return jsonout.OfCapture(w, c.Files[0])
}

// formatFlag is the value of --format.
type formatFlag replay.Format

func (v *formatFlag) Set(s string) error {
	f, err := replay.ParseFormat(s)
	if err != nil {
		return &flagError{"--format: " + err.Error()}
	}
	*v = formatFlag(f)
	return nil
}

func (v *formatFlag) String() string { return string(*v) }

func (v *formatFlag) Type() string { return "format" }

// validateCapture checks the shared flags and takes the FILE arguments,
// first thing in every command's RunE. A --session given explicitly must
// be a safe identifier, even when empty: the reference refuses to create
// a cursor for it.
func (c *captureFlags) validateCapture(ios *iostreams.IOStreams, f *pflag.FlagSet, args []string) (err error) {
	c.Files = args
	if f.Changed("session") {
		if err := checkIdent("--session", c.Session); err != nil {
			return err
		}
		if fi, err := os.Stat(c.Session); len(args) == 0 && err == nil && fi.Mode().IsRegular() {
			return usageErrorf("--session took the file %s for its ID, leaving no FILE: give the session ID, then the capture (or - for standard input)", c.Session)
		}
	}
	if f.Changed("url") {
		if c.URL == "" {
			return usageErrorf("--url needs a SUBSTRING of the request URLs to keep")
		}
		if c.Format != replay.FormatAuto && c.Format != replay.FormatHAR {
			return usageErrorf("--url applies to HAR captures only: --format %s has no URLs", c.Format)
		}
	}
	if !plainPath(c.EventPath) {
		return usageErrorf("--event-path %q: only plain paths are supported (keys and indexes joined by dots, such as frame or data.event), without @modifiers, | pipes, # queries, multipaths or ..", c.EventPath)
	}
	w, err := c.win.window()
	if err != nil {
		return err
	}
	c.window = w
	c.sniff.Known = inspect.KnownMalformed(c.EventPath)
	if err := resolveFiles(ios, &c.Files); err != nil {
		return err
	}
	if c.Each {
		c.Files, c.unreadable = replay.CapturesUnder(c.Files)
	}
	if err := ios.CheckNotInput(c.Files); err != nil {
		return &usageError{err}
	}
	return nil
}

// humanOutput says whether -o output is one for people (a table, a tree
// or diff text, wrapped or wide), which --each heads with each capture's
// name; JSON, JSON Lines and the graph formats are not.
func humanOutput(output string) bool {
	switch output {
	case "table", "tree", "text", "wide":
		return true
	}
	return false
}

// eachCapture runs run for every capture on its own under --each, and
// reports whether it did. Human output (human) gets each capture's name
// above its own.
func (c *captureFlags) eachCapture(ios *iostreams.IOStreams, human bool, run func(sub *iostreams.IOStreams, file string) error) (bool, error) {
	if !c.Each {
		return false, nil
	}
	return true, runEach(ios, c.Files, human, func(sub *iostreams.IOStreams, file string) error {
		if err := c.unreadable[file]; err != nil {
			return &usageError{err}
		}
		return run(sub, file)
	})
}

// plainPath reports whether p is a plain gjson path: keys and array
// indexes joined by single dots, with * and ? wildcards and \ escapes.
// Modifiers, pipes, queries and multipaths run gjson's own recursive code
// over capture content, which a deeply nested line overflows, and
// select values that are not one event.
func plainPath(p string) bool {
	if p == "" {
		return true
	}
	if p[0] == '.' || p[len(p)-1] == '.' || strings.Contains(p, "..") {
		return false
	}
	return !strings.ContainsAny(p, "@|#[]{}()!=<>%,")
}

// checkIdent refuses a flag value that is not a safe identifier: no event
// can carry it.
func checkIdent(flag, value string) error {
	if !replay.IsSafeIdentifier(value) {
		return usageErrorf("%s %q is not a safe identifier (%s)", flag, value, replay.SafeIdentifierPattern)
	}
	return nil
}

// options are the replay options these flags ask for.
func (c *captureFlags) options() replay.Options {
	return replay.Options{Session: c.Session, MaxLine: c.MaxLine, EventPath: c.EventPath, Sessions: c.budget,
		RawMalformed: true, Window: c.window}
}

// budget raises the memory limit for n sessions (see memlimit.Limit).
func (c *captureFlags) budget(n int) { memlimit.Limit(c.MaxLine, n) }

// read opens the captures, failing with an input error (exit 2), and
// shows progress while they are read (see StartProgress; streaming is for
// commands that write rows as they go). done stops the progress line and
// closes the captures.
//
// When the run stops before its end (iostreams.Stop), the reader stops at
// once, even while it waits on a quiet standard input, and the capture
// it was reading counts as damaged by the cause.
func (c *captureFlags) read(ios *iostreams.IOStreams, streaming bool) (rd *replay.Reader, done func(), err error) {
	in := ios.In
	var stdin *iostreams.StoppableReader
	if in != nil && ios.Context() != nil {
		stdin = iostreams.NewStoppableReader(in)
		in = stdin
	}
	rd, err = replay.Open(c.Files, in, c.MaxLine)
	if err != nil {
		return nil, nil, &usageError{directoryHint(c.Files, err, c.oneStream)}
	}
	if err := replay.DistinctFiles(c.Files, ios.In); err != nil {
		return nil, nil, &usageError{err}
	}
	if err := rd.SetFormat(c.Format); err != nil {
		return nil, nil, &usageError{err}
	}
	rd.SetURLFilter(c.URL)
	memlimit.Limit(c.MaxLine, 0)
	c.rd = rd
	unhook := func() bool { return true }
	if ios.Context() != nil {
		unhook = context.AfterFunc(ios.Context(), func() {
			rd.Stop(ios.Stopped())
			if stdin != nil {
				stdin.Release() // after Stop: the failed read is the stop
			}
		})
	}
	stop := ios.StartProgress(rd, streaming)
	return rd, func() { unhook(); stop(); rd.Close() }, nil
}

// finish reports, once a command has written its output, what the reader
// met on the way: warnings on standard error, and damaged input as an
// input error (exit 2), unless the command failed otherwise first. Every
// command's output thus shows every line read before the damage.
func (c *captureFlags) finish(ios *iostreams.IOStreams, err error) error {
	if c.rd == nil {
		return err
	}
	if ios.OutputGone() {
		return err // nobody sees the output: the rest is noise
	}
	for _, w := range c.rd.Warnings() {
		fmt.Fprintf(ios.ErrOut, "snapctl: warning: %s\n", strings.ReplaceAll(termsafe.String(w.Error()), "\n", " "))
	}
	if h := c.sniff.Hint(c.EventPath); h != nil {
		fmt.Fprintf(ios.ErrOut, "snapctl: hint: %s\n", termsafe.String(render.HintText(h)))
	}
	// A --url that kept nothing says so in its error: the capture is
	// not empty.
	// Nor is a capture that gave an event: a HAR cut off inside an entry
	// has no line, but its damage is one.
	if h := render.EmptyHint(c.Files, c.rd.Stats()); h != "" && c.sniff.Events() == 0 && c.checkURL(c.rd.Stats(), false) == nil {
		fmt.Fprintf(ios.ErrOut, "snapctl: hint: %s\n", termsafe.String(h))
	}
	if h := render.NoEventHint(c.Files, c.rd.Stats()); h != "" && !c.rawLines && err == nil && c.sniff.Events() == 0 {
		fmt.Fprintf(ios.ErrOut, "snapctl: hint: %s\n", termsafe.String(h))
	}
	damage := c.rd.Err()
	var ue *usageError
	if damage != nil && (err == nil || errors.Is(err, errMatched) || errors.As(err, &ue)) {
		return &usageError{damage}
	}
	return err
}

// directoryHint adds to the error of a capture that is a directory what
// to do: --each reads every capture under it, where it is not refused.
func directoryHint(files []string, err error, oneStream bool) error {
	for _, f := range files {
		if fi, serr := os.Stat(f); serr == nil && fi.IsDir() {
			if oneStream {
				return fmt.Errorf("%w: name the capture files in it", err)
			}
			return fmt.Errorf("%w: pass --each to read every capture under it, each on its own", err)
		}
	}
	return err
}

// resolveFiles turns no FILE into standard input, unless that is a
// terminal, where waiting for input would only confuse.
func resolveFiles(ios *iostreams.IOStreams, files *[]string) error {
	if len(*files) > 0 {
		return nil
	}
	if ios.InTTY {
		return usageErrorf("no capture given: name a FILE, or - for standard input")
	}
	*files = []string{replay.StdinName}
	return nil
}

// relaxGC lets the heap grow to three times the live data between
// collections (GOGC=200) in the commands that decode every message: they
// allocate a projection per snapshot, and collecting half as often saves
// about a tenth of their time for some 15 MB of memory. An explicit GOGC
// in the environment wins.
func relaxGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
}

// lineSize is the value of --max-line: a number of bytes, written plain
// or with a unit, from 1 byte to replay.MaxLineLimit.
type lineSize int

// sizeUnits are the units a size may carry, matched without regard to
// case: binary (KiB) and decimal (KB).
var sizeUnits = []struct {
	name string
	mult int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"b", 1},
}

// flagError is a flag value refused with a message of its own, shown
// instead of pflag's "invalid argument" wrapping.
type flagError struct{ msg string }

func (e *flagError) Error() string { return e.msg }

func (s *lineSize) Set(v string) error {
	n, err := parseSize(v)
	if err != nil {
		return err
	}
	*s = lineSize(n)
	return nil
}

func (s *lineSize) String() string { return formatSize(int64(*s)) }

func (s *lineSize) Type() string { return "size" }

// parseSize parses a --max-line value. Each message says what is wanted,
// never strconv's own words; a long run of digits is over the maximum.
func parseSize(v string) (int64, error) {
	digits, unit := strings.TrimSpace(v), int64(1)
	lower := strings.ToLower(digits)
	for _, u := range sizeUnits {
		if strings.HasSuffix(lower, u.name) {
			digits, unit = strings.TrimSpace(digits[:len(digits)-len(u.name)]), u.mult
			break
		}
	}
	if strings.HasPrefix(digits, "-") {
		return 0, errNotPositive
	}
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, &flagError{fmt.Sprintf("--max-line %q is not a size: give bytes, or a number with a unit such as 512KiB, 64MiB or 1GiB", v)}
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n > replay.MaxLineLimit/unit {
		return 0, &flagError{fmt.Sprintf("--max-line %s is over the maximum, %s (%d bytes)", v, formatSize(replay.MaxLineLimit), replay.MaxLineLimit)}
	}
	if n == 0 {
		return 0, errNotPositive
	}
	return n * unit, nil
}

var errNotPositive = &flagError{"--max-line must be a positive number of bytes"}

// formatSize writes n in the largest binary unit that divides it.
func formatSize(n int64) string {
	for _, u := range []struct {
		name string
		mult int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.mult && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

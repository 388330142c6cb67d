package cmd

import (
	"os"
	"runtime/debug"
	"strings"

	"github.com/agentskit/snapctl/replay"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// runE is every command's RunE: the shared capture flags, then the
// command's own checks, then its run function, or runF in tests.
func runE[O any](ios *IOStreams, cf *CaptureFlags, opts *O, check func(*cobra.Command) error, runF, run func(*O) error) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		if err := cf.validate(ios, c.Flags(), args); err != nil {
			return err
		}
		if err := check(c); err != nil {
			return err
		}
		if runF != nil {
			return runF(opts)
		}
		return run(opts)
	}
}

// CaptureFlags are the input flags every command shares: the captures, the
// trusted session, the line limit, and where the event sits in a wrapped
// line. Command options embed it, so the reader and cursor behave the same
// in every command.
type CaptureFlags struct {
	Files     []string
	Session   string
	MaxLine   int
	EventPath string
}

// register adds --session, --max-line and --event-path to f.
func (c *CaptureFlags) register(f *pflag.FlagSet, sessionHelp string) {
	f.StringVar(&c.Session, "session", "", sessionHelp)
	f.IntVar(&c.MaxLine, "max-line", replay.DefaultMaxLine, "longest line in `BYTES` to decode; longer lines are malformed")
	f.StringVar(&c.EventPath, "event-path", "", "take the event from this gjson `PATH` of each line, for wrapped captures (a string value holding JSON is decoded)")
}

// validate checks the shared flags and takes the FILE arguments. A
// --session given explicitly must be a safe identifier, even when empty:
// the reference refuses to create a cursor for it.
func (c *CaptureFlags) validate(ios *IOStreams, f *pflag.FlagSet, args []string) error {
	c.Files = args
	if f.Changed("session") {
		if err := checkIdent("--session", c.Session); err != nil {
			return err
		}
	}
	if c.MaxLine <= 0 {
		return usageErrorf("--max-line must be a positive number of bytes")
	}
	// Modifiers (@pretty, @valid, …) and pipes run gjson's own recursive
	// code over capture content, which a deeply nested line overflows.
	if strings.ContainsAny(c.EventPath, "@|") {
		return usageErrorf("--event-path %q: only plain paths are supported, without @modifiers or | pipes", c.EventPath)
	}
	return resolveFiles(ios, &c.Files)
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
func (c *CaptureFlags) options() replay.Options {
	return replay.Options{Session: c.Session, MaxLine: c.MaxLine, EventPath: c.EventPath}
}

// read opens the captures, failing with an input error (exit 2), and
// shows progress while they are read (see startProgress; streaming is for
// commands that write rows as they go). done stops the progress line and
// closes the captures.
func (c *CaptureFlags) read(ios *IOStreams, streaming bool) (rd *replay.Reader, done func(), err error) {
	rd, err = replay.Open(c.Files, ios.In, c.MaxLine)
	if err != nil {
		return nil, nil, &usageError{err}
	}
	stop := startProgress(ios, rd, streaming)
	return rd, func() { stop(); rd.Close() }, nil
}

// resolveFiles turns no FILE into standard input, unless that is a
// terminal, where waiting for input would only confuse.
func resolveFiles(ios *IOStreams, files *[]string) error {
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

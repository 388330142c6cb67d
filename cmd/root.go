// Package cmd is snapctl's command layer: flags, tables, JSON and colour.
// The work itself is done by the replay, inspect and diff packages.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/agentskit/snapctl/cmd/internal/buildinfo"
	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/render"
	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Version is set at build time with -ldflags "-X .../cmd.Version=v1.2.3";
// otherwise the module version from the build info is used.
var Version = ""

func version() string {
	bi, _ := debug.ReadBuildInfo()
	return buildinfo.Read(Version, bi).String()
}

// newRootCmd builds the snapctl command tree on the given streams.
func newRootCmd(ios *iostreams.IOStreams) *cobra.Command {
	var jq string
	root := &cobra.Command{
		Use:   "snapctl",
		Short: "Replay and explain agentskit.chat.turn v1 captures",
		Long: `snapctl runs captured agentskit.chat.turn v1 transports (NDJSON, one event
per line) through the monotonic snapshot cursor of ADR-0010 and explains
what the cursor did with every line and why.`,
		Example: `  snapctl replay capture.jsonl
  curl -N "$URL" | snapctl replay -
  snapctl replay --fail-on stale,malformed -o jsonl capture.jsonl
  snapctl lineage -o mermaid --redact capture.jsonl
  snapctl diff --stat capture.jsonl
  snapctl inspect --fail-on warning capture.jsonl.gz`,
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(c *cobra.Command, args []string) error {
			switch ios.ColorMode {
			case "auto", "always", "never":
			default:
				return usageErrorf("--color must be auto, always or never, not %q", ios.ColorMode)
			}
			if wantsPager(c, ios, args) {
				ios.StartPager(iostreams.PagerCommand(os.Getenv))
			}
			return setupJQ(c, ios, jq)
		},
	}
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	root.SetVersionTemplate("snapctl {{.Version}}\n")
	root.PersistentFlags().StringVar(&ios.ColorMode, "color", "auto", "colour output: auto (terminal only, not with NO_COLOR), always or never")
	_ = root.RegisterFlagCompletionFunc("color", fixedCompletion("auto", "always", "never"))
	root.PersistentFlags().BoolVar(&ios.NoProgress, "no-progress", false, "never show progress on standard error (shown only on a terminal, for inputs over 64 MiB)")
	root.PersistentFlags().BoolVar(&ios.NoPager, "no-pager", false, "never page output (paged only on a terminal: $SNAPCTL_PAGER, else $PAGER, else less -FRX)")
	root.PersistentFlags().StringVar(&jq, "jq", "", "filter JSON output with a jq `EXPRESSION`: with -o jsonl on each record as it comes; with -o json on the whole document, which is then written only once complete; without -o, implies jsonl (replay, diff) or json")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		var fe *flagError
		if errors.As(err, &fe) {
			err = fe // its message names the flag already
		} else {
			var names []string
			c.Flags().VisitAll(func(f *pflag.Flag) {
				if !f.Hidden {
					names = append(names, f.Name)
				}
			})
			return usageErrorf("%s", render.UnknownFlag(err.Error(), c.CommandPath(), names))
		}
		return &usageError{err}
	})
	root.AddCommand(newCmdReplay(ios, nil))
	root.AddCommand(newCmdDiff(ios, nil))
	root.AddCommand(newCmdLineage(ios, nil))
	root.AddCommand(newCmdInspect(ios, nil))
	root.AddCommand(newCmdReport(ios, nil))
	root.AddCommand(newCmdExplain(ios, nil))
	root.AddCommand(newCmdExplore(ios, nil))
	root.AddCommand(newCmdReduce(ios, nil))
	root.AddCommand(newCmdRecord(ios, nil))
	root.AddCommand(newCmdMan(root))
	root.AddCommand(newCmdVersion(ios))
	completeBashAlone(root)
	addHelpTopics(root, ios)
	return root
}

// Execute runs snapctl with the process's arguments and returns its exit
// status.
func Execute() int {
	ios := iostreams.System()
	ios.Stoppable()
	defer ios.StopOnSignals()()
	return run(ios, os.Args[1:])
}

func run(ios *iostreams.IOStreams, args []string) int {
	ios.Stoppable()
	out := &errWriter{w: ios.Out, failed: ios.Stop}
	ios.Out = out
	root := newRootCmd(ios)
	root.SetArgs(args)
	err := unknownCommand(root, args, root.Execute())
	// -o json's document is filtered by --jq once complete; a failed
	// expression outweighs what the command made of the failed write.
	// A pager that failed after the command's own error is said after it.
	jerr := ios.Close()
	var pager *iostreams.PagerError
	if !errors.As(jerr, &pager) || err == nil || errors.Is(err, iostreams.ErrPagerQuit) {
		pager = nil
		if jerr != nil {
			err = jerr
		}
	}
	if errors.Is(err, iostreams.ErrPagerQuit) {
		err = nil // the user quit the pager before the end
	}
	var sig *iostreams.SignalError
	switch stop := ios.Stopped(); {
	case errors.As(stop, &sig):
		// A signal outweighs everything; the error that says where the
		// reading stopped is kept.
		var d *replay.DamageError
		if !errors.As(err, &d) || !d.Stopped {
			err = sig
		}
	case out.err != nil && brokenPipe(out.err):
		return exitPipe // | head: nothing to say
	case out.err != nil:
		// Lost output outweighs a --fail-on match or any later error;
		// help, version and completion ignore write errors themselves.
		err = &iostreams.WriteError{Err: out.err}
	}
	if fm := (*render.FailOnMatch)(nil); errors.As(err, &fm) {
		for _, l := range fm.Lines() {
			fmt.Fprintf(ios.ErrOut, "snapctl: %s\n", l)
		}
	}
	if err != nil && !errors.Is(err, errMatched) {
		msg := strings.ReplaceAll(termsafe.String(err.Error()), "\n", " ")
		fmt.Fprintf(ios.ErrOut, "snapctl: %s\n", msg)
	}
	if sig != nil {
		return 128 + int(sig.Sig)
	}
	if pager != nil {
		fmt.Fprintf(ios.ErrOut, "snapctl: %s\n", termsafe.String(pager.Error()))
		return exitUsage
	}
	return exitStatus(err)
}

// errWriter remembers the first error of the writer it wraps and fails
// every write after it, so that a command whose output was lost exits
// non-zero even where the writing code (cobra's help) ignores errors;
// failed is told of that error, to stop the run at once.
type errWriter struct {
	w      io.Writer
	err    error
	failed context.CancelCauseFunc
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	if err != nil {
		e.err = err
		if e.failed != nil {
			e.failed(&iostreams.WriteError{Err: err})
		}
	}
	return n, err
}

package cmd

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/replay"
	"github.com/spf13/cobra"
)

// Completion reads the captures named on the command line for at most
// completionTime and completionBytes (as stored, and again after
// decompression, every pass over a HAR counted), holds no line over
// completionMaxLine, and offers at most completionMax values: a shell
// waits for it.
const (
	completionTime    = 500 * time.Millisecond
	completionBytes   = 16 << 20
	completionMaxLine = 8 << 20
	completionMax     = 500
)

// registerIDCompletion completes the --session, --turn and --format c has.
func registerIDCompletion(c *cobra.Command) {
	_ = c.RegisterFlagCompletionFunc("format", fixedCompletion(formatNames()...))
	if c.Flags().Lookup("session") != nil {
		_ = c.RegisterFlagCompletionFunc("session", idCompletion(false))
	}
	if c.Flags().Lookup("turn") != nil {
		_ = c.RegisterFlagCompletionFunc("turn", idCompletion(true))
	}
}

// fixedCompletion completes a flag with values, and never with file
// names: the flag takes one of them.
func fixedCompletion(values ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// listCompletion completes a flag that takes a comma-separated list of
// values: the word after the last comma (text.ListCandidates).
func listCompletion(values ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return text.ListCandidates(values, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// formatNames are the values --format takes, in replay's order.
func formatNames() []string {
	names := make([]string, len(replay.Formats))
	for i, f := range replay.Formats {
		names[i] = string(f)
	}
	return names
}

// idCompletion completes --session or --turn (turns) from the captures
// named on the command line: every session (or turn, of the --session
// given, if any) of a decoded line, in the order they first appear, with
// their number of events.
func idCompletion(turns bool) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(c *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		q := idQuery{turns: turns, prefix: prefix}
		q.session, _ = c.Flags().GetString("session")
		q.eventPath, _ = c.Flags().GetString("event-path")
		budget := replay.Budget{Bytes: completionBytes, Deadline: time.Now().Add(completionTime)}
		ids, _ := completeIDs(args, q, budget)
		return ids, cobra.ShellCompDirectiveNoFileComp
	}
}

// idQuery is what an id completion looks for.
type idQuery struct {
	turns                      bool
	session, eventPath, prefix string
}

// completeIDs reads, within budget, the regular files among names:
// standard input, fifos and devices are never opened, since a shell
// cannot wait for their writer, and /dev/zero never ends. It returns the
// ids found with their counts, and what the reader read.
func completeIDs(names []string, q idQuery, budget replay.Budget) ([]string, replay.Stats) {
	files := slices.DeleteFunc(slices.Clone(names), func(f string) bool {
		fi, err := os.Stat(f)
		return f == replay.StdinName || err != nil || !fi.Mode().IsRegular()
	})
	if len(files) == 0 {
		return nil, replay.Stats{}
	}
	rd, err := replay.Open(files, nil, completionMaxLine)
	if err != nil {
		return nil, replay.Stats{}
	}
	defer rd.Close()
	rd.SetBudget(budget)
	var order []string
	counts := map[string]int{}
	// KeepRaw decodes on this goroutine, so that the budget is checked
	// between two reads of it.
	_, _ = replay.Run(rd, replay.Options{EventPath: q.eventPath, KeepRaw: true, MaxLine: completionMaxLine}, func(res *replay.Result) error {
		ev := res.Event
		if ev == nil {
			return nil
		}
		id := ev.SessionID
		if q.turns {
			if id = ev.TurnID; q.session != "" && ev.SessionID != q.session {
				return nil
			}
		}
		if id == "" || !strings.HasPrefix(id, q.prefix) {
			return nil
		}
		if counts[id] == 0 {
			if len(order) == completionMax {
				return nil
			}
			order = append(order, id)
		}
		counts[id]++
		return nil
	})
	out := make([]string, len(order))
	for i, id := range order {
		out[i] = fmt.Sprintf("%s\t%s", id, text.Plural(counts[id], "event"))
	}
	return out, rd.Stats()
}

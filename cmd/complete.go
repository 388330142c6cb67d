package cmd

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentskit/snapctl/replay"
	"github.com/spf13/cobra"
)

// Completion reads the captures named on the command line for at most
// completionTime and completionBytes, and offers at most completionMax
// values: a shell waits for it.
const (
	completionTime  = 500 * time.Millisecond
	completionBytes = 64 << 20
	completionMax   = 500
)

var errEnough = errors.New("read enough to complete")

// registerIDCompletion completes the --session and --turn flags c has.
func registerIDCompletion(c *cobra.Command) {
	if c.Flags().Lookup("session") != nil {
		_ = c.RegisterFlagCompletionFunc("session", idCompletion(false))
	}
	if c.Flags().Lookup("turn") != nil {
		_ = c.RegisterFlagCompletionFunc("turn", idCompletion(true))
	}
}

// idCompletion completes --session or --turn (turns) from the captures
// named on the command line: every session (or turn, of the --session
// given, if any) of a decoded line, in the order they first appear, with
// their number of events. Standard input is never read.
func idCompletion(turns bool) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(c *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		files := slices.DeleteFunc(slices.Clone(args), func(f string) bool { return f == replay.StdinName })
		if len(files) == 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		session, _ := c.Flags().GetString("session")
		eventPath, _ := c.Flags().GetString("event-path")
		rd, err := replay.Open(files, nil, replay.DefaultMaxLine)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		defer rd.Close()
		deadline := time.Now().Add(completionTime)
		var order []string
		counts := map[string]int{}
		read := 0
		// KeepRaw decodes on this goroutine, line by line, and tells the
		// size of each.
		_, _ = replay.Run(rd, replay.Options{EventPath: eventPath, KeepRaw: true}, func(res *replay.Result) error {
			if read += len(res.Raw) + 1; read > completionBytes || time.Now().After(deadline) {
				return errEnough
			}
			ev := res.Event
			if ev == nil {
				return nil
			}
			id := ev.SessionID
			if turns {
				if id = ev.TurnID; session != "" && ev.SessionID != session {
					return nil
				}
			}
			if id == "" || !strings.HasPrefix(id, prefix) {
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
			out[i] = fmt.Sprintf("%s\t%s", id, plural(counts[id], "event"))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

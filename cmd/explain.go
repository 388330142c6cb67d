package cmd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentskit/snapctl/cmd/internal/help"
	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/render"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
	"github.com/spf13/cobra"
)

// explainOptions is everything `snapctl explain` needs.
type explainOptions struct {
	IO    *iostreams.IOStreams
	Query string
	Rules []replay.Rule
}

// newCmdExplain builds `snapctl explain`. runF replaces the run function
// in tests; nil means explainRun.
func newCmdExplain(ios *iostreams.IOStreams, runF func(*explainOptions) error) *cobra.Command {
	opts := &explainOptions{IO: ios}
	c := &cobra.Command{
		Use:   "explain [FINDING|RULE|CODE|REASON|WORD...]",
		Short: "Print what a finding means, or the rule of the wire contract behind a verdict, code or detail",
		Long:  help.Command("explain"),
		Example: `  snapctl explain
  snapctl explain sequence-gap
  snapctl explain cut-off
  snapctl explain createdAt
  snapctl explain PROTOCOL_UNKNOWN_EVENT
  snapctl explain stale
  snapctl explain record.max-depth
  snapctl explain 'is nested deeper than 32 levels'`,
		Args: cobra.ArbitraryArgs,
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp // the words of a detail
			}
			ids := checkIDs()
			ids = append(ids, render.TermNames()...)
			// The reasons replay prints, but foreign-session once.
			ids = append(ids, slices.DeleteFunc(reasonNames(), func(r string) bool { return slices.Contains(ids, r) })...)
			for _, r := range replay.ProtocolRules() {
				ids = append(ids, r.ID)
			}
			return ids, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.Query = strings.TrimSpace(strings.Join(args, " "))
			opts.Rules = replay.ProtocolRules()
			if runF != nil {
				return runF(opts)
			}
			return explainRun(opts)
		},
	}
	return c
}

// maxShown is how many matching rules are printed in full; more are listed.
const maxShown = 3

func explainRun(opts *explainOptions) error {
	out := opts.IO.Out
	if opts.Query == "" {
		render.ListRules(out, opts.Rules)
		return nil
	}
	if c, ok := inspect.CheckByID(strings.ToLower(opts.Query)); ok {
		render.PrintFinding(out, opts.IO.Palette(), c)
		// A finding named like a reason (foreign-session) has its rule too.
		printNamedRules(opts)
		return nil
	}
	if render.PrintTerm(out, opts.IO.Palette(), opts.Query) {
		// The outcome of a turn or a lineage problem, as lineage and
		// inspect word it, and the rule of the same name (snapshot.error).
		printNamedRules(opts)
		return nil
	}
	// A server error body's detail, as replay's table words it.
	if ids := render.ErrorBodyChecks(opts.Query); ids != nil {
		for i, id := range ids {
			c, _ := inspect.CheckByID(id)
			if i > 0 {
				fmt.Fprintln(out)
			}
			render.PrintFinding(out, opts.IO.Palette(), c)
		}
		return nil
	}
	found := render.MatchRules(opts.Rules, opts.Query)
	switch {
	case len(found) == 0:
		if close := append(render.CloseFindings(opts.Query), render.CloseRules(opts.Rules, opts.Query)...); len(close) > 0 {
			return usageErrorf("no rule matches %q; close matches: %s (snapctl explain lists every rule)", opts.Query, strings.Join(close, ", "))
		} else if s := render.ServerCode(opts.Query); s != "" {
			return usageErrorf("%s", s)
		}
		return usageErrorf("no rule matches %q (snapctl explain lists every rule)", opts.Query)
	case len(found) > maxShown:
		fmt.Fprintf(out, "%d rules match %q; snapctl explain ID prints one:\n\n", len(found), termsafe.String(opts.Query))
		render.ListRules(out, found)
		return nil
	}
	for i, r := range found {
		if i > 0 {
			fmt.Fprintln(out)
		}
		render.PrintRule(out, opts.IO.Palette(), r)
	}
	return nil
}

// printNamedRules prints, after a finding or an outcome, the rules whose
// last name is the query's.
func printNamedRules(opts *explainOptions) {
	for _, r := range opts.Rules {
		if _, last, _ := strings.Cut(r.ID, "."); render.FoldName(last) == render.FoldName(opts.Query) {
			fmt.Fprintln(opts.IO.Out)
			render.PrintRule(opts.IO.Out, opts.IO.Palette(), r)
		}
	}
}

package cmd

import (
	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/jsonout"
	"github.com/spf13/cobra"
)

// jqFormats is the -o that --jq implies, when -o is not given, in each
// command that writes JSON: JSON Lines for the commands that stream
// records (replay, diff), so that a live stream stays live, and one
// document for the others.
var jqFormats = map[string]string{"replay": "jsonl", "diff": "jsonl", "inspect": "json", "lineage": "json", "version": "json"}

// setupJQ puts a --jq filter between the command's JSON and standard
// output; the expression is checked before any input is read. Without
// -o, --jq implies the command's JSON output (jqFormats).
func setupJQ(c *cobra.Command, ios *iostreams.IOStreams, expr string) error {
	if expr == "" {
		return nil
	}
	implied := jqFormats[c.Name()]
	if implied == "" {
		return usageErrorf("--jq filters JSON output: %s writes none", c.CommandPath())
	}
	format := ""
	if f := c.Flags().Lookup("output"); f != nil {
		if !f.Changed {
			if err := f.Value.Set(implied); err != nil {
				return err
			}
		}
		format = f.Value.String()
	}
	if format != "json" && format != "jsonl" {
		return usageErrorf("--jq filters JSON output: it needs -o json or -o jsonl")
	}
	code, err := jsonout.CompileJQ(expr)
	if err != nil {
		return &usageError{err}
	}
	ios.Filter(jsonout.NewJQWriter(ios.Out, code, format == "jsonl", ios.OutTTY))
	return nil
}

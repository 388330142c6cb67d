package cmd

import (
	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/jsonout"
	"github.com/spf13/cobra"
)

// setupJQ puts a --jq filter between the command's JSON and standard
// output; the expression is checked before any input is read.
func setupJQ(c *cobra.Command, ios *iostreams.IOStreams, expr string) error {
	if expr == "" {
		return nil
	}
	format := ""
	if f := c.Flags().Lookup("output"); f != nil {
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

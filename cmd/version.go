package cmd

import (
	"fmt"
	"runtime/debug"

	"github.com/agentskit/snapctl/cmd/internal/buildinfo"
	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/jsonout"
	"github.com/spf13/cobra"
)

// newCmdVersion builds `snapctl version`, which says what --version does,
// or with -o json the same as a record, as gh and kubectl have.
func newCmdVersion(ios *iostreams.IOStreams) *cobra.Command {
	var output string
	c := &cobra.Command{
		Use:   "version",
		Short: "Print snapctl's version, commit and Go version",
		Long: `Version prints what snapctl --version prints: the version, and what the
build knows of the commit it was built from and the Go version. With -o
json, the same as one JSON object: version, goVersion, commit and
commitTime (when the build knows them) and modified.`,
		Example: `  snapctl version
  snapctl version -o json --jq .commit`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			bi, _ := debug.ReadBuildInfo()
			switch output {
			case "text":
				_, err := fmt.Fprintf(ios.Out, "snapctl %s\n", buildinfo.Read(Version, bi).String())
				return err
			case "json":
				e := jsonout.NewEncoder(ios.Out, jsonout.Document)
				if err := e.Value(buildinfo.Read(Version, bi)); err != nil {
					return err
				}
				return e.End()
			}
			return usageErrorf("-o must be text or json, not %q", output)
		},
	}
	c.Flags().StringVarP(&output, "output", "o", "text", "output format: text or json")
	_ = c.RegisterFlagCompletionFunc("output", fixedCompletion("text", "json"))
	return c
}

package cmd

import (
	"fmt"
	"runtime/debug"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/jsonout"
	"github.com/spf13/cobra"
)

// versionInfo is what snapctl knows of its own build: -o json of snapctl
// version, and the parts of --version's line.
type versionInfo struct {
	// Version is the version set at build time, else the module version
	// (go install …@v1.2.3, or the one go build derives from the
	// checkout), else "dev".
	Version   string `json:"version"`
	GoVersion string `json:"goVersion"`
	// Commit, CommitTime and Modified are what the build info says of
	// the checkout it was built from, when it was one.
	Commit     string `json:"commit,omitempty"`
	CommitTime string `json:"commitTime,omitempty"`
	Modified   bool   `json:"modified"`
}

// versionOf reads the version set at build time and the build info (nil
// when there is none).
func versionOf(set string, bi *debug.BuildInfo) versionInfo {
	v := versionInfo{Version: set}
	if v.Version == "" && bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v.Version = bi.Main.Version
	}
	if v.Version == "" {
		v.Version = "dev"
	}
	if bi == nil {
		return v
	}
	v.GoVersion = bi.GoVersion
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.CommitTime = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

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
				_, err := fmt.Fprintf(ios.Out, "snapctl %s\n", versionString(Version, bi))
				return err
			case "json":
				e := jsonout.NewEncoder(ios.Out, jsonout.Document)
				if err := e.Value(versionOf(Version, bi)); err != nil {
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

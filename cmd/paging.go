package cmd

import (
	"slices"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/spf13/cobra"
)

// Values of a command's "pager" annotation: page its output on a
// terminal always, or only when every input is a file (replay and diff
// follow a live standard input row by row, which a pager would hold).
const (
	pageAlways = "always"
	pageFiles  = "files"
)

// wantsPager says whether c's output goes through a pager: standard
// output is a terminal, --no-pager is not given, and c pages its output
// (for replay and diff, only when no input is standard input).
func wantsPager(c *cobra.Command, ios *iostreams.IOStreams, args []string) bool {
	if !ios.OutTTY || ios.NoPager {
		return false
	}
	switch c.Annotations["pager"] {
	case pageAlways:
		return true
	case pageFiles:
		return len(args) > 0 && !slices.Contains(args, "-")
	}
	return false
}

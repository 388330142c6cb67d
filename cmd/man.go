package cmd

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// newCmdMan builds `snapctl man DIR`, which writes a man page per command
// with cobra's generator, from the same help text as -h.
func newCmdMan(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write snapctl's man pages (section 1) to DIR",
		Long: `Man writes one man page per command (snapctl.1, snapctl-replay.1, …) to
DIR, creating it if needed, from the same text as --help. Install them where
man looks, for example:

  snapctl man ~/.local/share/man/man1

SOURCE_DATE_EPOCH, when set, dates the pages (for reproducible builds).`,
		Args: cobra.ExactArgs(1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveFilterDirs
		},
		RunE: func(c *cobra.Command, args []string) error {
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return &usageError{err}
			}
			root.DisableAutoGenTag = true
			header := &doc.GenManHeader{Title: "SNAPCTL", Section: "1", Source: "snapctl " + version(), Manual: "snapctl manual"}
			if err := doc.GenManTree(root, header, dir); err != nil {
				return fmt.Errorf("writing man pages: %w", err)
			}
			return nil
		},
	}
}

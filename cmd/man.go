package cmd

import (
	"fmt"
	"os"
	"strings"

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
			for _, c := range commands(root) {
				c.Long = manText(c.Long)
			}
			header := &doc.GenManHeader{Title: "SNAPCTL", Section: "1", Source: "snapctl " + version(), Manual: "snapctl manual"}
			if err := doc.GenManTree(root, header, dir); err != nil {
				return fmt.Errorf("writing man pages: %w", err)
			}
			return nil
		},
	}
}

// commands is c and every command under it.
func commands(c *cobra.Command) []*cobra.Command {
	all := []*cobra.Command{c}
	for _, sub := range c.Commands() {
		all = append(all, commands(sub)...)
	}
	return all
}

// manText keeps the indented blocks of a help text (the tables of
// reasons, findings and problems, examples) as they are in a man page:
// the generator reads the text as Markdown, which would fill them as
// paragraphs, so each block becomes a code block.
func manText(long string) string {
	lines := strings.Split(long, "\n")
	var out []string
	inBlock := false
	for _, l := range lines {
		indented := strings.HasPrefix(l, "  ")
		switch {
		case indented && !inBlock:
			if len(out) > 0 && out[len(out)-1] != "" {
				out = append(out, "")
			}
			inBlock = true
		case !indented && inBlock && l != "":
			out = append(out, "")
			inBlock = false
		}
		if indented {
			l = "  " + l
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentskit/snapctl/cmd/internal/help"
	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// newCmdMan builds `snapctl man DIR`, which writes a man page per command
// with cobra's generator, from the same help text as -h.
func newCmdMan(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write snapctl's man pages (section 1) to DIR",
		Long: `Man writes one man page per command (snapctl.1, snapctl-replay.1, …) and
one per help topic (snapctl-formats.1, …) to DIR, creating it if needed,
from the same text as --help and snapctl help TOPIC. Install them where man
looks, for example:

  snapctl man ~/.local/share/man/man1

SOURCE_DATE_EPOCH, when set, dates the pages (for reproducible builds).`,
		Args: argCount(1, 1, "man takes the one DIR to write the pages to, for example: snapctl man ~/.local/share/man/man1"),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveFilterDirs
		},
		RunE: func(c *cobra.Command, args []string) error {
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return &usageError{err}
			}
			root.DisableAutoGenTag = true
			header := &doc.GenManHeader{Section: "1", Source: "snapctl " + version(), Manual: "snapctl manual"}
			// cobra's generator skips help topics: each gets its page here.
			for _, c := range root.Commands() {
				if c.IsAdditionalHelpTopicCommand() {
					if err := writeTopicPage(c, *header, dir); err != nil {
						return fmt.Errorf("writing man pages: %w", err)
					}
				}
			}
			root.Long += "\n\n" + topicPages(root)
			for _, c := range commands(root) {
				c.Long = help.ManText(c.Long)
			}
			if err := doc.GenManTree(root, header, dir); err != nil {
				return fmt.Errorf("writing man pages: %w", err)
			}
			return nil
		},
	}
}

// writeTopicPage writes the page snapctl-TOPIC.1 of a help topic. Its
// text is already laid out for 80 columns, so the page shows it as it is,
// in one block; the page is built on a command of its own, with no flags,
// so that it lists none.
func writeTopicPage(topic *cobra.Command, header doc.GenManHeader, dir string) error {
	page := &cobra.Command{Use: topic.Name(), Short: topic.Short,
		Long: "```\n" + strings.TrimSuffix(topic.Long, "\n") + "\n```"}
	page.Flags().BoolP("help", "h", false, "")
	_ = page.Flags().MarkHidden("help")
	parent := &cobra.Command{Use: "snapctl", DisableAutoGenTag: true}
	parent.AddCommand(page)
	f, err := os.Create(filepath.Join(dir, "snapctl-"+topic.Name()+".1"))
	if err != nil {
		return err
	}
	err = doc.GenMan(page, &header, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// commands is c and every command under it.
func commands(c *cobra.Command) []*cobra.Command {
	all := []*cobra.Command{c}
	for _, sub := range c.Commands() {
		all = append(all, commands(sub)...)
	}
	return all
}

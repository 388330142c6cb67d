package cmd

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/agentskit/snapctl/cmd/internal/help"
	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// addHelpTopics adds the help topics to root, as gh does: commands with no
// Run, listed under "Additional help topics", each printing its text, and
// a help command that knows them and fails on a word it does not know.
func addHelpTopics(root *cobra.Command, ios *iostreams.IOStreams) {
	for _, t := range help.Topics() {
		c := &cobra.Command{Use: t.Name, Short: t.Short, Long: t.Text}
		c.SetHelpFunc(func(c *cobra.Command, _ []string) {
			_, _ = io.WriteString(c.OutOrStdout(), c.Long)
		})
		root.AddCommand(c)
	}
	root.SetHelpCommand(newCmdHelp(root, ios))
	wrapHelp(root, ios)
}

// helpWidthKey is the root annotation that holds the width help is
// wrapped at: the terminal's, or 0 off a terminal (one line per flag,
// for grep).
const helpWidthKey = "helpWidth"

// wrapHelp fits every command's help to the terminal: cobra lays flags
// out on one line each, whatever their length, so the terminal broke
// them mid-word ("per se" / "ssion"); the flags are wrapped under their
// descriptions, the paragraphs of Long filled again when the terminal is
// narrower than they are, and the rest (examples) wrapped at spaces.
func wrapHelp(root *cobra.Command, ios *iostreams.IOStreams) {
	width := ios.FitWidth(false)
	if root.Annotations == nil {
		root.Annotations = map[string]string{}
	}
	root.Annotations[helpWidthKey] = strconv.Itoa(width)
	addTemplateFuncs.Do(func() {
		cobra.AddTemplateFunc("wrappedFlagUsages", func(f *pflag.FlagSet, c *cobra.Command) string {
			w, _ := strconv.Atoi(c.Root().Annotations[helpWidthKey])
			return f.FlagUsagesWrapped(w)
		})
	})
	tmpl := root.UsageTemplate()
	for _, set := range []string{"LocalFlags", "InheritedFlags"} {
		tmpl = strings.Replace(tmpl, "{{."+set+".FlagUsages", "{{wrappedFlagUsages ."+set+" $", 1)
	}
	root.SetUsageTemplate(tmpl)
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		if width > 0 {
			long := c.Long
			defer func() { c.Long = long }()
			c.Long = text.Reflow(long, width)
			c.SetOut(text.FitLines(c.OutOrStdout(), width))
		}
		help(c, args)
	})
}

// addTemplateFuncs registers snapctl's template functions with cobra,
// whose table of them is the process's.
var addTemplateFuncs sync.Once

// newCmdHelp builds `snapctl help [COMMAND|TOPIC]`. Unlike cobra's, an
// unknown word is bad usage (exit 2) naming the topics and commands there
// are, and the help goes through the pager on a terminal.
func newCmdHelp(root *cobra.Command, ios *iostreams.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:         "help [COMMAND|TOPIC]",
		Short:       "Help about any command or topic",
		Long:        `Help prints the help of a command (as --help does) or a help topic.`,
		Annotations: map[string]string{"pager": pageAlways},
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []cobra.Completion
			for _, sub := range root.Commands() {
				if (sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand()) && strings.HasPrefix(sub.Name(), toComplete) {
					names = append(names, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 || target == nil {
				return usageErrorf("unknown help topic %q: the topics are %s; the commands are %s",
					strings.Join(args, " "), strings.Join(helpNames(root, true), ", "), strings.Join(helpNames(root, false), ", "))
			}
			root.SetOut(ios.Out) // the pager, when one was started
			target.InitDefaultHelpFlag()
			return target.Help()
		},
	}
}

// helpNames lists root's help topics, or its commands.
func helpNames(root *cobra.Command, topics bool) []string {
	var names []string
	for _, c := range root.Commands() {
		if c.IsAdditionalHelpTopicCommand() == topics && (topics || c.IsAvailableCommand()) {
			names = append(names, c.Name())
		}
	}
	return names
}

// topicPages is the text snapctl man adds to the root page: where the
// topics' pages are.
func topicPages(root *cobra.Command) string {
	var pages []string
	for _, name := range helpNames(root, true) {
		pages = append(pages, fmt.Sprintf("snapctl-%s(1)", name))
	}
	return "Help topics, also `snapctl help TOPIC`: " + strings.Join(pages, ", ") + "."
}

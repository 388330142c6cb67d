package cmd

import (
	"io"

	"github.com/agentskit/snapctl/cmd/internal/help"
	"github.com/spf13/cobra"
)

// completeBashAlone makes `snapctl completion bash` work without the
// bash-completion package, by putting help.BashWordsShim before cobra's
// script; `snapctl completion WORD` is a usage error (cobra's help, exit
// 0, was not).
func completeBashAlone(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	if comp, _, err := root.Find([]string{"completion"}); err == nil && comp.Name() == "completion" {
		comp.Args = cobra.ArbitraryArgs
		comp.RunE = func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErrorf("completion: unknown shell %q: give bash, fish, powershell or zsh", args[0])
			}
			return c.Help()
		}
	}
	bash, _, err := root.Find([]string{"completion", "bash"})
	if err != nil || bash.Name() != "bash" {
		return
	}
	bash.RunE = func(c *cobra.Command, args []string) error {
		noDesc, _ := c.Flags().GetBool("no-descriptions")
		out := c.OutOrStdout()
		if _, err := io.WriteString(out, help.BashWordsShim); err != nil {
			return err
		}
		return c.Root().GenBashCompletionV2(out, !noDesc)
	}
}

package cmd

import (
	"io"
	"strings"

	"github.com/agentskit/snapctl/cmd/internal/help"
	"github.com/spf13/cobra"
)

// completeBashAlone makes `snapctl completion bash` work without the
// bash-completion package, by putting help.BashWordsShim before cobra's
// script, and says so in its help. `snapctl completion WORD` is a usage
// error (cobra printed the help and exited 0).
func completeBashAlone(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	if comp, _, err := root.Find([]string{"completion"}); err == nil && comp.Name() == "completion" {
		comp.Args = argCount(0, 0, "completion takes a shell: bash, fish, powershell or zsh")
		comp.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	}
	bash, _, err := root.Find([]string{"completion", "bash"})
	if err != nil || bash.Name() != "bash" {
		return
	}
	bash.Long = strings.Replace(bash.Long, "This script depends on the 'bash-completion' package.\nIf it is not installed already, you can install it via your OS's package manager.", "This script works with or without the 'bash-completion' package.", 1)
	bash.RunE = func(c *cobra.Command, args []string) error {
		noDesc, _ := c.Flags().GetBool("no-descriptions")
		out := c.OutOrStdout()
		if _, err := io.WriteString(out, help.BashWordsShim); err != nil {
			return err
		}
		return c.Root().GenBashCompletionV2(out, !noDesc)
	}
}

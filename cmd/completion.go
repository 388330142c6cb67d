package cmd

import (
	"io"

	"github.com/spf13/cobra"
)

// bashWordsShim is a minimal _get_comp_words_by_ref, defined only when the
// bash-completion package has not defined it: cobra's bash script needs
// it, and without it `source <(snapctl completion bash)` fails at the
// first TAB. It splits words as bash does (at COMP_WORDBREAKS, so
// --flag=value completes as two words).
const bashWordsShim = `# snapctl: a minimal _get_comp_words_by_ref for a bash without the
# bash-completion package.
if ! declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
_get_comp_words_by_ref() {
    while [ $# -gt 0 ]; do
        case $1 in
        -n) shift ;;
        cur) cur=${COMP_WORDS[COMP_CWORD]} ;;
        prev) prev=${COMP_WORDS[COMP_CWORD-1]} ;;
        words) words=("${COMP_WORDS[@]}") ;;
        cword) cword=$COMP_CWORD ;;
        esac
        shift
    done
}
fi

`

// completeBashAlone makes `snapctl completion bash` work without the
// bash-completion package, by putting bashWordsShim before cobra's script;
// `snapctl completion WORD` is a usage error (cobra's help, exit 0, was not).
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
		if _, err := io.WriteString(out, bashWordsShim); err != nil {
			return err
		}
		return c.Root().GenBashCompletionV2(out, !noDesc)
	}
}

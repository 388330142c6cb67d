package cmd

import (
	"github.com/spf13/pflag"
)

// redactHelp is the --redact flag's help, the same in every command.
const redactHelp = "hide every value and key that came from a message, tool call, metadata, error or submit input: ids, statuses, counts and lengths only"

// registerRedact adds --redact to f.
func registerRedact(f *pflag.FlagSet, redact *bool) {
	f.BoolVar(redact, "redact", false, redactHelp)
}

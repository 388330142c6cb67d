package cmd

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/agentskit/snapctl/cmd/internal/render"
	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/spf13/cobra"
)

// Exit statuses.
const (
	exitOK    = 0 // done
	exitMatch = 1 // --fail-on matched
	exitUsage = 2 // bad usage or unreadable input
)

// usageError is bad usage or unreadable input: exit status 2.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// errMatched makes the process exit 1: a --fail-on condition held
// (render.FailOnMatch says what).
var errMatched = render.ErrMatched

// exitStatus maps a command's error to the process exit status.
func exitStatus(err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errMatched):
		return exitMatch
	}
	return exitUsage
}

// exitPipe is the status of a run whose standard output was a pipe that
// its reader closed (| head): 128 plus SIGPIPE's 13, as when SIGPIPE
// kills a process, whichever command it was and however far it got.
const exitPipe = 128 + 13

// brokenPipe says whether err is a write to a pipe nobody reads.
func brokenPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }

// unknownCommand puts cobra's error for a word that names no command in
// one line with what to type instead (cobra's own ends in a suggestion on
// lines of their own), or names the unknown flag before the word that took
// the command for its value (snapctl --no-color replay FILE). Other errors
// are returned as they are.
func unknownCommand(root *cobra.Command, args []string, err error) error {
	const prefix = "unknown command "
	if err == nil || !strings.HasPrefix(err.Error(), prefix) {
		return err
	}
	rest := strings.TrimPrefix(err.Error(), prefix)
	word, err2 := strconv.QuotedPrefix(rest)
	if err2 != nil {
		return err
	}
	name, _ := strconv.Unquote(word)
	if !strings.HasPrefix(rest[len(word):], fmt.Sprintf(" for %q", root.Name())) {
		return err // an argument to a command that takes none
	}
	if i := slices.Index(args, name); i > 0 {
		if ferr := root.Flags().Parse(args[:i]); ferr != nil {
			return &usageError{ferr}
		}
	}
	if s := root.SuggestionsFor(name); len(s) > 0 {
		return usageErrorf("unknown command %q; did you mean %s?", name, text.OrList(s))
	}
	return usageErrorf("unknown command %q: the commands are %s (snapctl help lists them)", name, strings.Join(helpNames(root, false), ", "))
}

// argCount checks the number of arguments, from lo to hi, saying msg
// when it is wrong: cobra's "accepts 1 arg(s), received 0" names neither
// the argument nor what to give.
func argCount(lo, hi int, msg string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) < lo || len(args) > hi {
			return usageErrorf("%s", msg)
		}
		return nil
	}
}

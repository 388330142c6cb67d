package cmd

import (
	"errors"
	"fmt"
	"syscall"
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

// errMatched makes the process exit 1: a --fail-on condition held. The
// commands return it wrapped in a failOnMatch, which says what matched.
var errMatched = errors.New("fail-on matched")

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

package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// A run stops before its end when it is interrupted (SIGINT, SIGTERM) or
// when its output is gone (a write to standard output failed): the
// captures stop being read at once, and what was read is written as a
// partial run (complete: false), whose exit status is the signal's or
// the write error's. iostreams.ctx carries the stop; its cause says why.

// signalError is a signal that stopped the run: exit status 128 plus its
// number, as a shell reports a process the signal killed.
type signalError struct{ sig syscall.Signal }

func (e *signalError) Error() string {
	switch e.sig {
	case syscall.SIGINT:
		return "interrupted (SIGINT)"
	case syscall.SIGTERM:
		return "terminated (SIGTERM)"
	}
	return fmt.Sprintf("stopped by signal %d", int(e.sig))
}

// writeError is output that could not be written.
type writeError struct{ err error }

func (e *writeError) Error() string { return "writing output: " + e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }

// exitPipe is the status of a run whose standard output was a pipe that
// its reader closed (| head): 128 plus SIGPIPE's 13, as when SIGPIPE
// kills a process, whichever command it was and however far it got.
const exitPipe = 128 + 13

// brokenPipe says whether err is a write to a pipe nobody reads.
func brokenPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }

// stopOnSignals makes SIGINT and SIGTERM stop the run of ios (see above)
// instead of killing the process; a second one kills it as usual. It also
// makes a write to a closed pipe on standard output fail with EPIPE
// instead of killing the process, so that every command ends the same
// way (exitPipe). The function returned undoes it.
func stopOnSignals(ios *iostreams) func() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGPIPE)
	go func() {
		for s := range ch {
			sig, ok := s.(syscall.Signal)
			if !ok || sig == syscall.SIGPIPE {
				continue // the write fails with EPIPE
			}
			signal.Reset(os.Interrupt, syscall.SIGTERM)
			ios.stop(&signalError{sig})
		}
	}()
	return func() { signal.Stop(ch) }
}

// stopped returns why the run must stop before its end, nil while it
// need not.
func (s *iostreams) stopped() error {
	if s.ctx == nil {
		return nil
	}
	return context.Cause(s.ctx)
}

// outputGone says whether the run stopped because its output failed:
// anything more said about it on standard error is noise.
func (s *iostreams) outputGone() bool {
	var we *writeError
	return errors.As(s.stopped(), &we)
}

// errStopped is what a read of standard input returns once the run is
// stopped.
var errStopped = errors.New("stopped")

// stoppableReader reads r on a goroutine of its own, so that a read
// blocked on a quiet standard input (a pipe that stays open) can be
// given up: once release is called, Read returns errStopped at once, and
// what the abandoned read gets is dropped.
type stoppableReader struct {
	r       io.Reader
	done    chan struct{}
	res     chan stoppableRead
	buf     []byte
	pending bool
}

type stoppableRead struct {
	n   int
	err error
}

func newStoppableReader(r io.Reader) *stoppableReader {
	return &stoppableReader{r: r, done: make(chan struct{}), res: make(chan stoppableRead, 1)}
}

func (s *stoppableReader) Read(p []byte) (int, error) {
	select {
	case <-s.done:
		return 0, errStopped
	default:
	}
	if !s.pending {
		if len(s.buf) < len(p) {
			s.buf = make([]byte, len(p))
		}
		buf := s.buf[:len(p)]
		s.pending = true
		go func() {
			n, err := s.r.Read(buf)
			s.res <- stoppableRead{n, err}
		}()
	}
	select {
	case r := <-s.res:
		s.pending = false
		return copy(p, s.buf[:r.n]), r.err
	case <-s.done:
		return 0, errStopped
	}
}

// release makes every Read from now on return errStopped; it must be
// called once.
func (s *stoppableReader) release() { close(s.done) }

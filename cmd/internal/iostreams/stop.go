package iostreams

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
// the write error's. IOStreams.Context carries the stop; its cause says
// why.

// SignalError is a signal that stopped the run: exit status 128 plus its
// number, as a shell reports a process the signal killed.
type SignalError struct{ Sig syscall.Signal }

// Error names the signal as a shell would.
func (e *SignalError) Error() string {
	switch e.Sig {
	case syscall.SIGINT:
		return "interrupted (SIGINT)"
	case syscall.SIGTERM:
		return "terminated (SIGTERM)"
	}
	return fmt.Sprintf("stopped by signal %d", int(e.Sig))
}

// WriteError is output that could not be written.
type WriteError struct{ Err error }

// Error says that the output could not be written, and why.
func (e *WriteError) Error() string { return "writing output: " + e.Err.Error() }

// Unwrap returns the write's own error.
func (e *WriteError) Unwrap() error { return e.Err }

// StopOnSignals makes SIGINT and SIGTERM stop the run on s (see above)
// instead of killing the process; a second one kills it as usual. It also
// makes a write to a closed pipe on standard output fail with EPIPE
// instead of killing the process, so that every command ends the same
// way (exit status 141). The function returned undoes it. s must be
// Stoppable.
func (s *IOStreams) StopOnSignals() func() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGPIPE)
	go func() {
		for got := range ch {
			sig, ok := got.(syscall.Signal)
			if !ok || sig == syscall.SIGPIPE {
				continue // the write fails with EPIPE
			}
			signal.Reset(os.Interrupt, syscall.SIGTERM)
			s.Stop(&SignalError{sig})
		}
	}()
	return func() { signal.Stop(ch) }
}

// Stoppable makes the run on s stoppable: from now on Context ends when
// Stop is called. It keeps a context s has already.
func (s *IOStreams) Stoppable() {
	if s.ctx == nil {
		s.ctx, s.stop = context.WithCancelCause(context.Background())
	}
}

// Context ends when the run must stop before its end; it is nil until
// Stoppable is called.
func (s *IOStreams) Context() context.Context { return s.ctx }

// Stop stops the run with cause (the first cause is kept); before
// Stoppable it does nothing.
func (s *IOStreams) Stop(cause error) {
	if s.stop != nil {
		s.stop(cause)
	}
}

// Stopped returns why the run must stop before its end, nil while it
// need not.
func (s *IOStreams) Stopped() error {
	if s.ctx == nil {
		return nil
	}
	return context.Cause(s.ctx)
}

// OutputGone says whether the run stopped because its output failed:
// anything more said about it on standard error is noise.
func (s *IOStreams) OutputGone() bool {
	var we *WriteError
	return errors.As(s.Stopped(), &we)
}

// errStopped is what a read of standard input returns once the run is
// stopped.
var errStopped = errors.New("stopped")

// StoppableReader reads r on a goroutine of its own, so that a read
// blocked on a quiet standard input (a pipe that stays open) can be
// given up: once Release is called, Read returns errStopped at once, and
// what the abandoned read gets is dropped.
type StoppableReader struct {
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

// NewStoppableReader returns a StoppableReader of r.
func NewStoppableReader(r io.Reader) *StoppableReader {
	return &StoppableReader{r: r, done: make(chan struct{}), res: make(chan stoppableRead, 1)}
}

// Read reads from r, or returns errStopped once Release was called,
// even while a read of r is still waiting.
func (s *StoppableReader) Read(p []byte) (int, error) {
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

// Release makes every Read from now on return errStopped; it must be
// called once.
func (s *StoppableReader) Release() { close(s.done) }

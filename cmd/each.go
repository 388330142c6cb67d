package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/render"
	"github.com/agentskit/snapctl/internal/termsafe"
)

// eachError is the captures that failed under --each, each already
// reported on standard error: exit status 2.
type eachError struct{ failed, total int }

func (e *eachError) Error() string {
	return fmt.Sprintf("%d of %d captures failed (see above)", e.failed, e.total)
}

// eachResult is the output of one capture, held until the captures
// before it are written.
type eachResult struct {
	out, errOut bytes.Buffer
	err         error
	done        chan struct{}
}

// runEach runs run on every capture of files as its own capture, on all
// cores, and writes their output in argument order as soon as each one's
// turn comes; at most one capture per core is held in memory ahead. A
// capture's error is reported on standard error under its output; the
// exit status is the worst: 2 when any failed, 1 when any --fail-on
// matched. With headings, each capture's output is under its name, as
// head(1) shows several files: "==> FILE <==".
func runEach(ios *iostreams.IOStreams, files []string, headings bool, run func(sub *iostreams.IOStreams, file string) error) error {
	slots := make(chan struct{}, runtimeProcs())
	results := make([]*eachResult, len(files))
	for i := range results {
		results[i] = &eachResult{done: make(chan struct{})}
	}
	go func() {
		for i, file := range files {
			if !acquire(ios, slots) {
				// Stopped: the captures not begun are not read.
				for _, r := range results[i:] {
					r.err = errNotRead
					close(r.done)
				}
				return
			}
			go func(r *eachResult, file string) {
				defer close(r.done)
				sub := *ios
				sub.Out, sub.ErrOut, sub.NoProgress = &r.out, &r.errOut, true
				r.err = run(&sub, file)
			}(results[i], file)
		}
	}()
	matched, failed := false, 0
	var werr error
	for i, r := range results {
		<-r.done
		if r.err == errNotRead {
			break
		}
		if headings && werr == nil {
			sep := ""
			if i > 0 {
				sep = "\n"
			}
			_, werr = fmt.Fprintf(ios.Out, "%s==> %s <==\n", sep, termsafe.String(files[i]))
		}
		if werr == nil {
			_, werr = r.out.WriteTo(ios.Out)
		}
		if werr != nil {
			break // the output is gone: stop, with its error alone
		}
		r.errOut.WriteTo(ios.ErrOut)
		switch {
		case r.err == nil:
		case errors.Is(r.err, errMatched):
			matched = true
			// Each capture says what matched in it, as a single run does
			// (its positions name the capture).
			if fm := (*render.FailOnMatch)(nil); errors.As(r.err, &fm) {
				for _, l := range fm.Lines() {
					fmt.Fprintf(ios.ErrOut, "snapctl: %s\n", termsafe.String(l))
				}
			}
		default:
			failed++
			fmt.Fprintf(ios.ErrOut, "snapctl: %s\n", strings.ReplaceAll(termsafe.String(render.CaptureError(files[i], r.err)), "\n", " "))
		}
		r.out, r.errOut = bytes.Buffer{}, bytes.Buffer{}
		<-slots
	}
	switch {
	case werr != nil:
		return fmt.Errorf("writing output: %w", werr)
	case failed > 0:
		return &eachError{failed: failed, total: len(files)}
	case matched:
		return errMatched
	}
	return nil
}

// errNotRead marks the captures runEach did not begin before the run
// was stopped.
var errNotRead = errors.New("not read")

// acquire takes one of slots, waiting for it, unless the run on s is
// stopped first; it reports whether it took one.
func acquire(s *iostreams.IOStreams, slots chan struct{}) bool {
	var stopped <-chan struct{}
	if s.Context() != nil {
		stopped = s.Context().Done()
	}
	select {
	case <-stopped:
		return false
	default:
	}
	select {
	case slots <- struct{}{}:
		return true
	case <-stopped:
		return false
	}
}

// runtimeProcs is how many captures runEach reads at once.
func runtimeProcs() int { return runtime.GOMAXPROCS(0) }

package iostreams

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// defaultPager is the pager when neither SNAPCTL_PAGER nor PAGER is set:
// less that quits when the output fits a screen (-F), passes colour
// through (-R) and leaves the output on the screen (-X), as git's.
const defaultPager = "less -FRX"

// ErrPagerQuit is a write to a pager that was closed: the user quit it
// before the end, which is no failure.
var ErrPagerQuit = errors.New("pager quit")

// PagerCommand is the pager to run: the first of SNAPCTL_PAGER and PAGER
// that is not empty, else less -FRX; "" (no pager) when that is cat.
func PagerCommand(getenv func(string) string) string {
	cmd := defaultPager
	for _, name := range []string{"SNAPCTL_PAGER", "PAGER"} {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			cmd = v
			break
		}
	}
	if cmd == "cat" {
		return ""
	}
	if cmd == defaultPager {
		if _, err := exec.LookPath("less"); err != nil {
			return "" // no less here: no pager rather than no output
		}
	}
	return cmd
}

// pager is a running pager: standard output goes to its input.
type pager struct {
	cmd *exec.Cmd
	in  io.WriteCloser
}

// StartPager sends Out to the pager command line, run with the shell as
// git does, its output on this process's standard output (the terminal
// itself, so that the pager knows it); "" runs none. The pager starts with
// the first write: a command that fails before any output (bad usage, an
// unreadable capture) says so in one line, with no pager drawing on the
// terminal first.
func (s *IOStreams) StartPager(cmdline string) {
	if cmdline != "" {
		s.Out = &lazyPager{s: s, cmdline: cmdline, out: s.Out}
	}
}

// lazyPager starts the pager at the first write, then writes to it.
type lazyPager struct {
	s       *IOStreams
	cmdline string
	out     io.Writer // where Out went before: the pager's output
	w       io.Writer // the pager's input, once started
}

func (l *lazyPager) Write(b []byte) (int, error) {
	if l.w == nil {
		// A pager that cannot start: no pager rather than no output.
		var err error
		if l.w, err = l.s.runPager(l.cmdline, l.out); err != nil {
			l.w = l.out
		}
	}
	return l.w.Write(b)
}

// runPager starts the pager, its output on out (or the process's standard
// output), and returns the writer of its input.
func (s *IOStreams) runPager(cmdline string, out io.Writer) (io.Writer, error) {
	cmd := exec.Command("sh", "-c", cmdline)
	cmd.Stdout, cmd.Stderr = out, s.ErrOut
	if s.stdout != nil {
		cmd.Stdout = s.stdout
	}
	cmd.Env = os.Environ()
	if _, ok := os.LookupEnv("LESS"); !ok {
		cmd.Env = append(cmd.Env, "LESS=FRX")
	}
	if _, ok := os.LookupEnv("LV"); !ok {
		cmd.Env = append(cmd.Env, "LV=-c")
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s.pager = &pager{cmd: cmd, in: in}
	return &pagerWriter{w: in, quit: s.Stop}, nil
}

// stopPager closes the pager's input and waits for the user to quit it.
func (s *IOStreams) stopPager() {
	if s.pager == nil {
		return
	}
	_ = s.pager.in.Close()
	_ = s.pager.cmd.Wait()
	s.pager = nil
}

// pagerWriter writes to a pager; once the pager is gone, a write fails
// with ErrPagerQuit, and quit, when set, stops the run: nobody reads on.
type pagerWriter struct {
	w    io.Writer
	quit func(error)
}

func (p *pagerWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	if err != nil && (errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed)) {
		err = ErrPagerQuit
	}
	if err != nil && p.quit != nil {
		p.quit(&WriteError{err})
	}
	return n, err
}

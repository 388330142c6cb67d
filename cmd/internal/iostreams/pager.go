package iostreams

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
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
	cmd     *exec.Cmd
	in      io.WriteCloser
	cmdline string
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
		// A pager that cannot start: no pager rather than no output, and
		// a line that says why, as git does (the exit status is the
		// command's).
		var err error
		if l.w, err = l.s.runPager(l.cmdline, l.out); err != nil {
			fmt.Fprintf(l.s.ErrOut, "snapctl: cannot run the pager %s; output goes to the terminal\n", err)
			l.w = l.out
		}
	}
	return l.w.Write(b)
}

// runPager starts the pager, its output on out (or the process's standard
// output), and returns the writer of its input.
func (s *IOStreams) runPager(cmdline string, out io.Writer) (io.Writer, error) {
	if err := findPager(cmdline); err != nil {
		return nil, err
	}
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
		return nil, fmt.Errorf("%q: sh: %w", cmdline, startReason(err))
	}
	s.pager = &pager{cmd: cmd, in: in, cmdline: cmdline}
	return &pagerWriter{w: in, quit: s.Stop}, nil
}

// findPager checks, of a pager command line that is plain words (no
// quote, expansion, redirection or operator: what the shell runs as it
// reads it), that its command can run, so that a missing one falls back
// to the terminal. The shell starts whatever the line names and says
// only "not found" when it cannot run it: the output would be lost. A
// line the shell must read first is left to it.
func findPager(cmdline string) error {
	if strings.ContainsAny(cmdline, shellOperators) {
		return nil
	}
	words := strings.Fields(cmdline)
	if len(words) == 0 || strings.ContainsAny(words[0], shellSpecial) {
		return nil
	}
	name := words[0]
	_, err := exec.LookPath(name)
	if err == nil || errors.Is(err, exec.ErrDot) {
		return nil // the shell runs what is in the current directory
	}
	// Not a file: it may be the shell's own (exec less, command less),
	// whose names have no slash.
	if !strings.Contains(name, "/") && exec.Command("sh", "-c", `command -v -- "$1" >/dev/null`, "sh", name).Run() == nil {
		return nil
	}
	return fmt.Errorf("%q: %w", name, startReason(err))
}

// shellOperators are the characters that, anywhere in a command line,
// can make the shell run another command than its first word: operators,
// and the quotes and expansions that could hide one.
const shellOperators = "|&;<>()$`\\\"'\n"

// shellSpecial are the characters that make the shell read a first word
// as another command (a glob, a tilde, an assignment VAR=value before
// the command, a reserved word); in a later word they change only the
// pager's arguments (less --wheel-lines=3 ~/x), not what runs.
const shellSpecial = shellOperators + "*?[]#~=%{}!^"

// startReason is why a command could not start, without the name the
// message already gives.
func startReason(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		err = ee.Err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err
}

// stopPager closes the pager's input and waits for the user to quit it.
// A pager that failed (a status other than 0: less quit by the user
// exits 0) may not have shown the output, or not all of it: that is a
// *PagerError, not the quit of a user who had seen enough.
func (s *IOStreams) stopPager() error {
	if s.pager == nil {
		return nil
	}
	_ = s.pager.in.Close()
	err := s.pager.cmd.Wait()
	cmdline := s.pager.cmdline
	s.pager = nil
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return &PagerError{Cmdline: cmdline, Err: err}
	}
	return nil
}

// PagerError is a pager that ran and failed: the output written to it
// may not have been shown.
type PagerError struct {
	Cmdline string
	Err     error
}

func (e *PagerError) Error() string {
	return fmt.Sprintf("the pager %q failed (%v), so the output may not have been shown in full: --no-pager, or SNAPCTL_PAGER=cat, shows it without one", e.Cmdline, e.Err)
}

func (e *PagerError) Unwrap() error { return e.Err }

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

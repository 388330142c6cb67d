package text

import (
	"bytes"
	"io"
	"strings"
)

// FitLines returns a writer that wraps every line longer than width, for
// human text that is not a table (summaries, findings, close-ups, diffs);
// with width 0 (not a terminal, or -o wide) it returns w, and lines stay
// whole.
func FitLines(w io.Writer, width int) io.Writer {
	if width <= 0 {
		return w
	}
	return &lineWrapper{w: w, width: width}
}

// lineWrapper wraps lines at spaces, going on with the line's own
// indentation and two more spaces; a word longer than the room is
// broken. Escape sequences (colours: capture text is made terminal-safe
// before) take no room. The whole lines of each Write are written at
// once, in one write, so a live stream shows each as it comes and a
// buffered one costs a write per buffer, not per line.
type lineWrapper struct {
	w     io.Writer
	width int
	line  []byte // the unfinished line
	out   []byte // the whole lines of a Write, wrapped
}

func (l *lineWrapper) Write(p []byte) (int, error) {
	n := len(p)
	l.out = l.out[:0]
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.line = append(l.line, p...)
			break
		}
		line := p[:i]
		if len(l.line) > 0 {
			l.line = append(l.line, line...)
			line = l.line
		}
		if fits(line, l.width) {
			l.out = append(append(l.out, line...), '\n')
		} else {
			l.out = append(l.out, WrapLine(string(line), l.width)...)
		}
		l.line = l.line[:0]
		p = p[i+1:]
	}
	if len(l.out) > 0 {
		if _, err := l.w.Write(l.out); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// fits says whether line takes at most width cells. A line of no more
// bytes than width fits unmeasured: no character takes more cells than
// it has bytes (the wide ones have three or four).
func fits(line []byte, width int) bool {
	return len(line) <= width || Width(string(line)) <= width
}

// WrapLine lays s out in lines of at most width cells, each with its
// newline, the lines after the first indented two more than s.
func WrapLine(s string, width int) string { return wrapLine(s, width, 2) }

// Reflow fits help text to width: each paragraph (a run of lines that
// are not indented) is joined and filled again, so it reads as prose and
// not as lines cut in two, and every other line (an indented table or
// example) is wrapped as WrapLine does. Text that fits is returned as it
// is.
func Reflow(s string, width int) string {
	lines := strings.Split(s, "\n")
	fits := true
	for _, l := range lines {
		fits = fits && Width(l) <= width
	}
	if fits || width <= 0 {
		return s
	}
	var b strings.Builder
	var para []string
	flush := func() {
		if len(para) > 0 {
			b.WriteString(wrapLine(strings.Join(para, " "), width, 0))
			para = para[:0]
		}
	}
	for _, l := range lines {
		if l != "" && !strings.HasPrefix(l, " ") {
			para = append(para, l)
			continue
		}
		flush()
		b.WriteString(WrapLine(l, width))
	}
	flush()
	return strings.TrimSuffix(b.String(), "\n")
}

// wrapLine is WrapLine with the lines after the first indented extra
// cells more than s.
func wrapLine(s string, width, extra int) string {
	if Width(s) <= width {
		return s + "\n"
	}
	indent := len(s) - len(strings.TrimLeft(s, " "))
	cont := strings.Repeat(" ", min(indent+extra, width/2))
	var b strings.Builder
	cur, curW, empty := s[:indent], indent, true
	flush := func() {
		b.WriteString(strings.TrimRight(cur, " "))
		b.WriteByte('\n')
		cur, curW, empty = cont, len(cont), true
	}
	for _, word := range strings.Split(s[indent:], " ") {
		ww := Width(word)
		if !empty && curW+1+ww > width {
			flush()
		}
		if !empty {
			cur += " "
			curW++
		}
		for curW+ww > width {
			head, rest := split(word, width-curW)
			if head == "" {
				break // not one cell of room: let it overflow rather than loop
			}
			cur += head
			flush()
			word, ww = rest, Width(rest)
		}
		cur += word
		curW += ww
		empty = false
	}
	b.WriteString(strings.TrimRight(cur, " "))
	b.WriteByte('\n')
	return b.String()
}

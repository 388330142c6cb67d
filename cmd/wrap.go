package cmd

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// fitLines returns a writer that wraps every line longer than width, for
// human text that is not a table (summaries, findings, close-ups, diffs);
// with width 0 (not a terminal, or -o wide) it returns w, and lines stay
// whole.
func fitLines(w io.Writer, width int) io.Writer {
	if width <= 0 {
		return w
	}
	return &lineWrapper{w: w, width: width}
}

// lineWrapper wraps lines at spaces, going on with the line's own
// indentation and two more spaces; a word longer than the room is
// broken. Colour escapes (SGR, snapctl's own: capture text is made
// terminal-safe before) take no room. Whole lines are written at once,
// so a live stream shows each as it comes.
type lineWrapper struct {
	w     io.Writer
	width int
	line  []byte
}

func (l *lineWrapper) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := strings.IndexByte(string(p), '\n')
		if i < 0 {
			l.line = append(l.line, p...)
			break
		}
		l.line = append(l.line, p[:i]...)
		if _, err := io.WriteString(l.w, wrapLine(string(l.line), l.width)); err != nil {
			return 0, err
		}
		l.line = l.line[:0]
		p = p[i+1:]
	}
	return n, nil
}

// wrapLine lays s out in lines of at most width cells, each with its
// newline.
func wrapLine(s string, width int) string {
	if visibleWidth(s) <= width {
		return s + "\n"
	}
	indent := len(s) - len(strings.TrimLeft(s, " "))
	cont := strings.Repeat(" ", min(indent+2, width/2))
	var b strings.Builder
	cur, curW, empty := s[:indent], indent, true
	flush := func() {
		b.WriteString(strings.TrimRight(cur, " "))
		b.WriteByte('\n')
		cur, curW, empty = cont, len(cont), true
	}
	for _, word := range strings.Split(s[indent:], " ") {
		ww := visibleWidth(word)
		if !empty && curW+1+ww > width {
			flush()
		}
		if !empty {
			cur += " "
			curW++
		}
		for curW+ww > width {
			head, rest := breakAt(word, width-curW)
			if head == "" {
				break // not one cell of room: let it overflow rather than loop
			}
			cur += head
			flush()
			word, ww = rest, visibleWidth(rest)
		}
		cur += word
		curW += ww
		empty = false
	}
	b.WriteString(strings.TrimRight(cur, " "))
	b.WriteByte('\n')
	return b.String()
}

// visibleWidth is the width of s on a terminal, colour escapes excluded.
func visibleWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if e := escapeLen(s[i:]); e > 0 {
			i += e
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		n += runewidth.RuneWidth(r)
		i += size
	}
	return n
}

// breakAt splits s after at most room cells, never inside an escape.
func breakAt(s string, room int) (string, string) {
	n := 0
	for i := 0; i < len(s); {
		if e := escapeLen(s[i:]); e > 0 {
			i += e
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if n+runewidth.RuneWidth(r) > room {
			return s[:i], s[i:]
		}
		n += runewidth.RuneWidth(r)
		i += size
	}
	return s, ""
}

// escapeLen is the length of the CSI escape sequence s starts with, or 0.
func escapeLen(s string) int {
	if len(s) < 2 || s[0] != 0x1b || s[1] != '[' {
		return 0
	}
	for i := 2; i < len(s); i++ {
		if c := s[i]; c >= 0x40 && c <= 0x7e {
			return i + 1
		}
	}
	return 0
}

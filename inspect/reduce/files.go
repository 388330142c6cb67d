package reduce

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
	"github.com/rogpeppe/go-internal/txtar"
)

// ReadLines holds every event line of the capture rd reads, once, in one
// buffer, blank lines left out. Lines of another format than NDJSON, or
// over the reader's line limit, cannot be kept as they are, so they stop
// the reduction with an error that says why. unterminated says that no
// newline ends the last line, as in a capture cut inside it.
func ReadLines(rd *replay.Reader) (lines [][]byte, unterminated bool, err error) {
	var buf []byte
	var ends []int
	for {
		l, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, false, err
		}
		switch {
		case l.Origin != nil:
			return nil, false, fmt.Errorf("%s is not NDJSON (its events are carried in another format): reduce keeps a capture's lines as they are, so it reads NDJSON only", termsafe.String(l.File))
		case l.TooLong:
			return nil, false, fmt.Errorf("%s:%d is longer than --max-line: raise --max-line to keep it", termsafe.String(l.File), l.Num)
		case len(bytes.TrimSpace(l.Data)) == 0:
			continue
		}
		buf = append(buf, l.Data...)
		ends = append(ends, len(buf))
		unterminated = l.Unterminated
	}
	if err := rd.Err(); err != nil {
		return nil, false, err
	}
	lines = make([][]byte, len(ends))
	start := 0
	for i, end := range ends {
		lines[i] = buf[start:end:end]
		start = end
	}
	return lines, unterminated, nil
}

// Join is the capture of lines: each followed by a newline, but for the
// last one when unterminated is set, as a capture cut inside its last
// line has it (capture-cut).
func Join(lines [][]byte, unterminated bool) []byte {
	var b bytes.Buffer
	for i, l := range lines {
		b.Write(l)
		if !unterminated || i < len(lines)-1 {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// Archive is a testscript archive: the reduced capture, want (what
// `snapctl inspect -o json` says of it on standard input, with --session
// when one is pinned) and the script comparing the two. A capture line
// can read as a txtar file marker ("-- /tmp/x --" is a garbage line a
// capture may hold, and keep for unusable-input): the archive would then
// name a file of the capture's choosing, which testscript writes, at an
// absolute path too, and cut the capture there. Such a capture is stored
// quoted (each line after a ">") and the script unquotes it first; one
// that cannot be quoted, not being UTF-8, is refused; so is a capture
// whose last line has no newline (unterminated), which an archive's file
// cannot hold.
func Archive(capture, want []byte, targets []Target, session string, unterminated bool) ([]byte, error) {
	args := "inspect -o json"
	if session != "" {
		args += " --session " + session
	}
	var comment strings.Builder
	comment.WriteString("# Reduced by snapctl reduce: the capture still shows")
	for _, t := range targets {
		fmt.Fprintf(&comment, " %s;", termsafe.String(t.String()))
	}
	comment.WriteString("\n# run with testscript and snapctl on PATH.\n\n")
	// Format ends the file with a newline if it has none, which makes a
	// last line "-- name --" a marker that NeedsQuote, seeing no newline,
	// does not count: it is asked about the capture as it is stored.
	stored := capture
	if n := len(capture); n > 0 && capture[n-1] != '\n' {
		if unterminated {
			return nil, errors.New("the capture's last line has no newline (it is cut inside it), which a testscript archive cannot keep: write it with --out FILE.jsonl instead")
		}
		stored = append(capture[:n:n], '\n')
	}
	if txtar.NeedsQuote(stored) {
		quoted, err := txtar.Quote(capture)
		if err != nil {
			return nil, fmt.Errorf("a kept line reads as a testscript file marker and the capture cannot be quoted (%v): write it with --out FILE.jsonl instead", err)
		}
		capture = quoted
		comment.WriteString("# A line of the capture reads as a file marker: it is quoted.\nunquote capture.jsonl\n")
	}
	fmt.Fprintf(&comment, "stdin capture.jsonl\nexec snapctl %s -\ncmp stdout expected.json\n", args)
	return txtar.Format(&txtar.Archive{Comment: []byte(comment.String()), Files: []txtar.File{
		{Name: "capture.jsonl", Data: capture},
		{Name: "expected.json", Data: want},
	}}), nil
}

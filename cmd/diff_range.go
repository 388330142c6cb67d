package cmd

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentskit/snapctl/cmd/internal/text"
)

// snapshotRef is the value of --from and --to: an accepted snapshot named
// by its sequence, by its line as line:N, or by its line within a HAR
// entry as positions print it, "entry E:line N" (or entry:E:line:N, which
// needs no quotes).
type snapshotRef struct {
	flag  string
	seq   int64
	line  int
	entry int
}

// entryLine reads a line of a HAR entry as positions print it, "entry
// E:line N" (or entry:E:line:N): is says whether v is meant as one, ok
// whether it is one, with an entry and a line from 1. --from, --to and
// inspect's --line take it.
func entryLine(v string) (entry, line int, is, ok bool) {
	rest, is := strings.CutPrefix(v, "entry")
	if !is || rest == "" || rest[0] != ' ' && rest[0] != ':' {
		return 0, 0, false, false
	}
	e, l, found := strings.Cut(rest[1:], ":line")
	entry, err1 := strconv.Atoi(e)
	line, err2 := 0, error(nil)
	if found && l != "" && (l[0] == ' ' || l[0] == ':') {
		line, err2 = strconv.Atoi(l[1:])
	}
	if !found || err1 != nil || err2 != nil || entry < 1 || line < 1 {
		return 0, 0, true, false
	}
	return entry, line, true, true
}

func (r *snapshotRef) Set(v string) error {
	if entry, line, is, ok := entryLine(v); is {
		if !ok {
			return &flagError{fmt.Sprintf("%s %q: give \"entry E:line N\" (or entry:E:line:N) with an entry and a line number from 1", r.flag, v)}
		}
		r.seq, r.line, r.entry = 0, line, entry
		return nil
	}
	if n, ok := strings.CutPrefix(v, "line:"); ok {
		line, err := strconv.Atoi(n)
		if err != nil || line < 1 {
			return &flagError{fmt.Sprintf("%s %q: line:N needs a line number from 1", r.flag, v)}
		}
		r.seq, r.line, r.entry = 0, line, 0
		return nil
	}
	seq, err := strconv.ParseInt(v, 10, 64)
	if err != nil || seq < 0 {
		return &flagError{fmt.Sprintf("%s %q is not a sequence: give a non-negative integer, line:N for the snapshot at line N, or \"entry E:line N\" for line N of HAR entry E", r.flag, v)}
	}
	r.seq, r.line, r.entry = seq, 0, 0
	return nil
}

func (r *snapshotRef) String() string {
	if r.entry > 0 {
		return text.Position("", r.entry, r.line)
	}
	if r.line > 0 {
		return "line:" + strconv.Itoa(r.line)
	}
	return strconv.FormatInt(r.seq, 10)
}

func (r *snapshotRef) Type() string { return "snapshot" }

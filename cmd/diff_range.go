package cmd

import (
	"fmt"
	"strconv"
	"strings"
)

// snapshotRef is the value of --from and --to: an accepted snapshot named
// by its sequence, or by its line as line:N.
type snapshotRef struct {
	flag string
	seq  int64
	line int
}

func (r *snapshotRef) Set(v string) error {
	if n, ok := strings.CutPrefix(v, "line:"); ok {
		line, err := strconv.Atoi(n)
		if err != nil || line < 1 {
			return &flagError{fmt.Sprintf("%s %q: line:N needs a line number from 1", r.flag, v)}
		}
		r.seq, r.line = 0, line
		return nil
	}
	seq, err := strconv.ParseInt(v, 10, 64)
	if err != nil || seq < 0 {
		return &flagError{fmt.Sprintf("%s %q is not a sequence: give a non-negative integer, or line:N for the snapshot at line N", r.flag, v)}
	}
	r.seq, r.line = seq, 0
	return nil
}

func (r *snapshotRef) String() string {
	if r.line > 0 {
		return "line:" + strconv.Itoa(r.line)
	}
	return strconv.FormatInt(r.seq, 10)
}

func (r *snapshotRef) Type() string { return "snapshot" }

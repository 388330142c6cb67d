package text

import "strconv"

// Position writes where a line of a capture is, in the one form every
// view uses: FILE:LINE, or FILE:entry E:line L for line L of the body of
// HAR entry E (whose lines count from 1 in each body, so a line number
// alone names a line of every entry). An empty file leaves out "FILE:".
// The file is written as given: making it safe for a terminal is the
// caller's work, as for any text from a capture.
func Position(file string, entry, line int) string {
	s := strconv.Itoa(line)
	if entry > 0 {
		s = "entry " + strconv.Itoa(entry) + ":line " + s
	}
	if file != "" {
		s = file + ":" + s
	}
	return s
}

package render

import (
	"fmt"
	"strings"

	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/replay"
)

// EmptyHint says, when the whole input held no line or only blank ones,
// that the capture was empty, so that "0 events" or "no findings" is not
// read as a clean capture; "" otherwise. The exit status stays what it
// is: an empty capture is no error, and --fail-on decides as ever.
func EmptyHint(files []string, st replay.Stats) string {
	if !st.Complete() || st.Stopped || st.Lines > st.Blank {
		return ""
	}
	what := capturesAre(files)
	if st.Lines == 0 && st.Bytes > 0 {
		// A HAR is read for the entries that carry turn events: one
		// with none has bytes but no line. (A --url that keeps none is
		// an error of its own, and no hint is given then.)
		subject, holds, its := holdsWords(what)
		return fmt.Sprintf("%s%s no event: %s %d bytes carry no line of turn events (no HAR entry carries them)", subject, holds, its, st.Bytes)
	}
	if st.Lines == 0 {
		return what + " empty (0 bytes): it holds no event"
	}
	return fmt.Sprintf("%s empty but for %s: it holds no event", what, text.Plural(st.Blank, "blank line"))
}

// capturesAre is the subject of a hint on files, with its verb: "the
// capture is", "NAME is", "standard input is", "the N captures are".
func capturesAre(files []string) string {
	switch {
	case len(files) == 1 && files[0] == replay.StdinName:
		return "standard input is"
	case len(files) == 1:
		return files[0] + " is"
	case len(files) > 1:
		return fmt.Sprintf("the %d captures are", len(files))
	}
	return "the capture is"
}

// NoEventHint says, when the whole input had lines that are not blank
// but gave no event, that they carried none in the format they were read
// in (an NDJSON capture read with --format sse, a stream of SSE comments
// only), so that "0 events" is not read as a clean capture; "" otherwise.
// The caller knows that no event came of them.
func NoEventHint(files []string, st replay.Stats) string {
	if !st.Complete() || st.Stopped || st.Lines <= st.Blank || len(st.Formats) == 0 {
		return ""
	}
	what := capturesAre(files)
	subject, holds, its := holdsWords(what)
	formats := make([]string, len(st.Formats))
	for i, f := range st.Formats {
		formats[i] = string(f)
	}
	return fmt.Sprintf("%s%s no event: %s %s carry none as %s (snapctl help formats)", subject, holds, its,
		text.Plural(st.Lines-st.Blank, "non-blank line"), strings.Join(formats, ", "))
}

// holdsWords turns "X is" or "the N captures are" into the subject of
// "holds", with its verb and possessive.
func holdsWords(what string) (subject, holds, its string) {
	subject, plural := strings.CutSuffix(what, " are")
	if plural {
		return subject, " hold", "their"
	}
	return strings.TrimSuffix(what, " is"), " holds", "its"
}

// HintText puts a hint in one sentence: how much was malformed, what it
// looks like (with the first line looked at), and what to do.
func HintText(h *replay.Hint) string {
	return fmt.Sprintf("%d of %d lines are malformed and look like %s (%s:%d): %s",
		h.Malformed, h.Events, h.Format, h.File, h.Line, h.Advice)
}

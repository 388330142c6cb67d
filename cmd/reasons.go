package cmd

import (
	"slices"
	"strings"

	"github.com/agentskit/snapctl/cmd/internal/render"
	"github.com/agentskit/snapctl/replay"
)

// problemsWord names, in --only and --fail-on, every reason but the
// ordinary ones: initial, advanced and non-snapshot.
const problemsWord = "problems"

// unfinishedWord names, in inspect's --fail-on, the turns its verdict
// counts unfinished; problems includes them there.
const unfinishedWord = "unfinished"

// reasonWords are the names --only and --fail-on take for reasons: each
// reason, each verdict (its reasons), and problems.
func reasonWords() []string {
	return append(reasonNames(), string(replay.Accepted), string(replay.Inert), problemsWord)
}

// reasonsNamed returns the reasons one name stands for, or false.
func reasonsNamed(name string) ([]replay.Reason, bool) {
	var out []replay.Reason
	for _, r := range replay.Reasons {
		switch name {
		case string(r), string(r.Verdict()):
			out = append(out, r)
		case problemsWord:
			if r != replay.ReasonInitial && r != replay.ReasonAdvanced && r != replay.ReasonNonSnapshot {
				out = append(out, r)
			}
		}
	}
	return out, len(out) > 0
}

// parseReasonList parses a comma-separated list of reasons, verdicts and
// problems, as --only and --fail-on take it, into reasons in replay's
// order, each once.
func parseReasonList(flag, list string) ([]replay.Reason, error) {
	var want []replay.Reason
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		rs, ok := reasonsNamed(name)
		if !ok {
			return nil, usageErrorf("%s", render.UnknownReason(flag, name, reasonWords()))
		}
		want = append(want, rs...)
	}
	var out []replay.Reason
	for _, r := range replay.Reasons {
		if slices.Contains(want, r) {
			out = append(out, r)
		}
	}
	return out, nil
}

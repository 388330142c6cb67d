package render

import (
	"fmt"
	"strings"

	"github.com/agentskit/snapctl/replay"
)

// reasonHelp says in a few words what each reason means.
var reasonHelp = map[replay.Reason]string{
	replay.ReasonInitial:        "first valid snapshot: the reconnect state",
	replay.ReasonAdvanced:       "a greater sequence than the accepted one",
	replay.ReasonMalformed:      "the line does not decode (with code and detail)",
	replay.ReasonNonSnapshot:    "a submit or diagnostic event",
	replay.ReasonForeignSession: "another session than the pinned one",
	replay.ReasonDuplicate:      "the same sequence as the accepted one",
	replay.ReasonStale:          "a lower sequence than the accepted one",
}

// ReasonTable is the reasons table of replay's help text, in replay's order.
func ReasonTable() string {
	var b strings.Builder
	for _, r := range replay.Reasons {
		fmt.Fprintf(&b, "  %-9s %-16s %s\n", r.Verdict(), r, reasonHelp[r])
	}
	return b.String()
}

package render

import (
	"strconv"
	"strings"

	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/inspect"
)

// VerdictWords is a session's verdict (inspect.Verdict) in words, the same
// in every view: "no problems" only for a clean verdict, else the problems
// counted by kind, "2 problems (1 error, 1 unfinished turn)"; info
// findings follow as notes.
func VerdictWords(v inspect.Verdict) string {
	var s string
	if v.Clean() {
		s = "no problems"
	} else {
		var parts []string
		for _, sev := range []inspect.Severity{inspect.SeverityError, inspect.SeverityWarning} {
			if n := v.Count(sev); n > 0 {
				parts = append(parts, severityCount(n, sev))
			}
		}
		if v.Unfinished > 0 {
			parts = append(parts, text.Plural(int(v.Unfinished), "unfinished turn"))
		}
		s = text.Plural(v.Problems(), "problem") + " (" + strings.Join(parts, ", ") + ")"
	}
	if n := v.Notes(); n > 0 {
		s += ", " + strconv.Itoa(n) + " info"
	}
	return s
}

// verdictJSON is a session's verdict in -o json, the same object in
// inspect's sessions and lineage's.
type verdictJSON struct {
	Clean      bool    `json:"clean"`
	Problems   int     `json:"problems"`
	Worst      *string `json:"worst"`
	Errors     int     `json:"errors"`
	Warnings   int     `json:"warnings"`
	Info       int     `json:"info"`
	Unfinished int     `json:"unfinished"`
}

func verdictToJSON(v inspect.Verdict) verdictJSON {
	return verdictJSON{Clean: v.Clean(), Problems: v.Problems(), Worst: optString(string(v.Worst())),
		Errors: v.Count(inspect.SeverityError), Warnings: v.Count(inspect.SeverityWarning),
		Info: v.Notes(), Unfinished: int(v.Unfinished)}
}

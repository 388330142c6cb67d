package render

import (
	"strconv"
	"strings"

	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/internal/termsafe"
)

// CompactPositions writes positions, in capture order, as compact ranges
// per file and HAR entry: "a.jsonl:2,4-8,10-120 b.jsonl:3", and
// "x.har:entry 13:line 1-3,7 x.har:entry 14:line 2" (text.Position, the
// one form of a position). total is how many lines are involved, listed
// or not; those past the listed ones, and those that would take the text
// past width runes (0: no limit), are counted at the end as "(+N)".
func CompactPositions(ps []inspect.Position, total, width int) string {
	var b strings.Builder
	shown := 0
	for i := 0; i < len(ps); {
		// One run of consecutive lines of one file and entry.
		j := i + 1
		for j < len(ps) && ps[j].File == ps[i].File && ps[j].Entry == ps[i].Entry && ps[j].Line == ps[j-1].Line+1 {
			j++
		}
		var part string
		switch {
		case i > 0 && ps[i].File == ps[i-1].File && ps[i].Entry == ps[i-1].Entry:
			part = "," + strconv.Itoa(ps[i].Line)
		case i > 0:
			part = " " + text.Position(termsafe.String(ps[i].File), ps[i].Entry, ps[i].Line)
		default:
			part = text.Position(termsafe.String(ps[i].File), ps[i].Entry, ps[i].Line)
		}
		if j-i > 1 {
			part += "-" + strconv.Itoa(ps[j-1].Line)
		}
		// Keep room for the " (+N)" that ends a cut list.
		if width > 0 && shown > 0 && text.Width(b.String())+text.Width(part)+len(" (+"+strconv.Itoa(total)+")") > width {
			break
		}
		b.WriteString(part)
		shown += j - i
		i = j
	}
	if more := total - shown; more > 0 {
		b.WriteString(" (+" + strconv.Itoa(more) + ")")
	}
	return b.String()
}

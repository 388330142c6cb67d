package render

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentskit/snapctl/replay"
)

// An SSE id stays in effect for every event after it, and may be as long
// as a line: the table shows its start, not the whole id on every row (a
// 10 MB id on 200 events once took 19 s to print).
func TestOriginDetailShortensID(t *testing.T) {
	for _, tc := range []struct {
		id, want string
	}{
		{"7", "id 7"},
		{strings.Repeat("a", maxEnvelopeCell), "id " + strings.Repeat("a", maxEnvelopeCell)},
		{strings.Repeat("a", 10<<20), "id " + strings.Repeat("a", maxEnvelopeCell-1) + "…"},
		{"\x1b[31m" + strings.Repeat("b", 1000), `id \x1b[31m` + strings.Repeat("b", maxEnvelopeCell-len(`\x1b[31m`)-1) + "…"},
	} {
		got := OriginDetail(&replay.Origin{LastEventID: tc.id})
		if got != tc.want {
			t.Errorf("id of %d bytes: got %q (%d runes), want %q", len(tc.id), got, utf8.RuneCountInString(got), tc.want)
		}
	}
}

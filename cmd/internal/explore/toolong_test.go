package explore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/internal/samples"
	"github.com/agentskit/snapctl/replay"
)

// TestTooLongRowKeepsItsLength checks that the row of a line over
// --max-line keeps the line's real length (Result.Size is Line.Len for
// it, not the length of the text never held), which the decode error of
// the row judged again names, on both feeds.
func TestTooLongRowKeepsItsLength(t *testing.T) {
	b := samples.Read(t, "reconnect.jsonl")
	first, _, _ := strings.Cut(string(b), "\n")
	long := `{"pad":"` + strings.Repeat("x", 5000) + `"}`
	name := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(name, []byte(first+"\n"+long+"\n"+first+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, every := range []bool{false, true} {
		x := indexOf(t, []string{name}, replay.Options{MaxLine: 1000}, every, 4)
		if x.len() != 3 || !x.rows.at(1).tooLong() {
			t.Fatalf("every core %v: %d rows, the second too long %v", every, x.len(), x.len() > 1 && x.rows.at(1).tooLong())
		}
		if got := x.rows.at(1).size; got != uint32(len(long)) {
			t.Errorf("every core %v: the row of a line of %d bytes over --max-line has size %d", every, len(long), got)
		}
	}
}

package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/inspect/lineage"
	"github.com/agentskit/snapctl/replay"
)

// graphsOf runs a capture through inspect and the lineage builder.
func graphsOf(t *testing.T, name string) ([]*lineage.Session, map[string]inspect.Verdict) {
	t.Helper()
	rd, err := replay.Open([]string{name}, nil, replay.DefaultMaxLine)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	in := inspect.New(inspect.Options{MaxLine: replay.DefaultMaxLine})
	lb := lineage.NewBuilder("")
	sum, err := replay.Run(rd, replay.Options{Messages: true}, func(res *replay.Result) error {
		in.Observe(res)
		lb.Add(res)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rep := in.Finish(sum)
	return lb.Finish(), rep.Verdicts()
}

// TestLineageSVGHeadsWithVerdict checks that the picture heads a session
// with inspect's verdict: a session whose messages vanished, with no
// lineage problem, never reads "no problems"; one without a verdict
// states its lineage problems only.
func TestLineageSVGHeadsWithVerdict(t *testing.T) {
	graphs, verdicts := graphsOf(t, "../../../testdata/diff-vanished.jsonl")
	if v := verdicts["session-support"]; v.Clean() || graphs[0].Problems() != 0 {
		t.Fatalf("the capture's verdict %+v, %d lineage problems: the test proves nothing", v, graphs[0].Problems())
	}
	heads := func(verdicts map[string]inspect.Verdict) string {
		var b bytes.Buffer
		if err := WriteLineageSVG(&b, graphs, verdicts, nil); err != nil {
			t.Fatal(err)
		}
		i := strings.Index(b.String(), `<text class="head"`)
		return b.String()[i : i+strings.Index(b.String()[i:], "</text>")]
	}
	if h := heads(verdicts); strings.Contains(h, "no problems") || !strings.Contains(h, "(1 error") {
		t.Errorf("heading %q, want the error finding", h)
	}
	if h := heads(nil); !strings.HasSuffix(h, ", no lineage problems") {
		t.Errorf("heading without verdicts %q", h)
	}
}

package replay_test

import (
	"reflect"
	"testing"

	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/inspect/lineage"
	"github.com/agentskit/snapctl/internal/samples"
	"github.com/agentskit/snapctl/replay"
)

// TestDecoderSumsChangeNothing checks that the decoder's sums of a
// snapshot (IDsHash, TailRunes, TailHash), which let the model and the
// lineage builder skip reading messages, give the report and the graphs
// they give without them, on every capture in testdata and a long one.
func TestDecoderSumsChangeNothing(t *testing.T) {
	captures := append(samples.All(t), samples.Long(t))
	run := func(name string, sums bool) (inspect.Report, []*lineage.Session) {
		rd, err := replay.Open([]string{name}, nil, replay.DefaultMaxLine)
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		in := inspect.New(inspect.Options{Outcomes: true})
		b := lineage.NewBuilderOn(in.Model())
		opts := inspect.ReplayOptions(replay.Options{})
		opts.BorrowMessages = true
		sum, err := replay.Run(rd, opts, func(res *replay.Result) error {
			if !sums && res.Event != nil {
				s := &res.Event.Snapshot
				s.IDsHash, s.TailRunes, s.TailHash = 0, 0, 0
			}
			b.AddStep(res, in.ObserveStep(res))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return in.Finish(sum), b.Finish()
	}
	for _, c := range captures {
		wr, wg := run(c, false)
		gr, gg := run(c, true)
		if !reflect.DeepEqual(gr, wr) {
			t.Errorf("%s: report differs with sums:\n got %+v\nwant %+v", c, gr.Findings, wr.Findings)
		}
		if !reflect.DeepEqual(gg, wg) {
			t.Errorf("%s: lineage differs with sums", c)
		}
	}
}

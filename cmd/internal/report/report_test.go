package report

import (
	"slices"
	"testing"

	"github.com/agentskit/snapctl/replay"
)

func TestChartAggregates(t *testing.T) {
	var c chartData
	for x := int64(0); x < 10*chartBuckets; x++ {
		reason := replay.ReasonAdvanced
		if x%7 == 0 {
			reason = replay.ReasonStale
		}
		c.add(x, x, 1000*x, reason, linePos{Line: int(x) + 1}, ordKey{0, 0, int(x) + 1})
	}
	if len(c.Buckets) > chartBuckets {
		t.Errorf("%d buckets, over %d", len(c.Buckets), chartBuckets)
	}
	if c.W != 16 {
		t.Errorf("%d events per bucket, want 16", c.W)
	}
	var sparse chartData
	for x := int64(0); x < 4*chartBuckets; x++ {
		sparse.add(20*x, x, 0, replay.ReasonAdvanced, linePos{Line: int(x) + 1}, ordKey{0, 0, int(x) + 1})
	}
	if len(sparse.Buckets) > chartBuckets {
		t.Errorf("sparse: %d buckets, over %d", len(sparse.Buckets), chartBuckets)
	}
	first := c.Buckets[0]
	if !first.HasAcc || first.Acc != [2]int64{1, 15} || first.Inert[0].N != 3 {
		t.Errorf("first bucket %+v", first)
	}
}

// TestCollectorPastHeld checks the rows chosen as events come, once the
// collector holds as many events as it may: the same problems, each once,
// in capture order, with their context.
func TestCollectorPastHeld(t *testing.T) {
	lines := func(heldCap int) []int {
		rd, err := replay.Open([]string{"../../../testdata/reconnect.jsonl"}, nil, replay.DefaultMaxLine)
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		c := NewCollector(false, false, "")
		c.heldCap = heldCap
		if _, err := replay.Run(rd, replay.Options{}, func(res *replay.Result) error {
			c.Add(res)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		c.finish(func(linePos) bool { return false })
		var out []int
		for _, r := range c.sessions[0].Rows {
			out = append(out, r.At.Line)
		}
		return out
	}
	want := []int{5, 6, 8, 9, 10, 11, 12, 13}
	for _, heldCap := range []int{0, 3, 9, 100} {
		if got := lines(heldCap); !slices.Equal(got, want) {
			t.Errorf("holding %d: rows of lines %v, want %v", heldCap, got, want)
		}
	}
}

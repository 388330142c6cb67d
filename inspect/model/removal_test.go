package model

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/agentskit/snapctl/replay"
)

// ids is an IDSeq of literal ids.
type ids []string

func (l ids) Len() int        { return len(l) }
func (l ids) ID(i int) string { return l[i] }

func TestMatch(t *testing.T) {
	tests := []struct {
		name         string
		old, new     ids
		removed      []int
		added, pairs string
	}{
		{"same", ids{"a", "b"}, ids{"a", "b"}, nil, "", "0-0 1-1 "},
		{"grew", ids{"a"}, ids{"a", "b"}, nil, "1 ", "0-0 "},
		{"gone", ids{"a", "b", "c"}, ids{"a", "c"}, []int{1}, "", "0-0 2-1 "},
		{"moved", ids{"a", "b", "c"}, ids{"c", "a", "b"}, nil, "", "2-0 0-1 1-2 "},
		// The k-th occurrence matches the k-th: a repeated id that loses
		// one occurrence loses its last one, which a set of ids would miss.
		{"repeated id", ids{"a", "b", "a"}, ids{"a", "b"}, []int{2}, "", "0-0 1-1 "},
		{"all new", ids{"a"}, ids{"b"}, []int{0}, "0 ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var added, pairs string
			removed := Match(tt.old, tt.new, func(i, j int) { pairs += fmt.Sprintf("%d-%d ", i, j) },
				func(j int) { added += fmt.Sprintf("%d ", j) })
			if !reflect.DeepEqual(removed, tt.removed) || added != tt.added || pairs != tt.pairs {
				t.Errorf("Match = %v, added %q, pairs %q; want %v, %q, %q", removed, added, pairs, tt.removed, tt.added, tt.pairs)
			}
		})
	}
}

func TestRemovals(t *testing.T) {
	old := ids{"u1", "a1", "u2", "a2"}
	lin := func(op replay.Operation, src string) replay.Lineage {
		return replay.Lineage{Operation: op, ParentTurnID: "t", SourceMessageID: src}
	}
	tests := []struct {
		name      string
		new       ids
		lin       replay.Lineage
		explained []bool
	}{
		{"no lineage", ids{"u1"}, replay.Lineage{}, []bool{false, false, false}},
		{"regenerate from a2", ids{"u1", "a1", "u2", "a3"}, lin(replay.OpRegenerate, "a2"), []bool{true}},
		{"edit from u2 explains what follows", ids{"u1", "a1", "u3"}, lin(replay.OpEdit, "u2"), []bool{true, true}},
		{"retry from a2 does not explain a1", ids{"u1", "u2"}, lin(replay.OpRetry, "a2"), []bool{false, true}},
		{"submit explains nothing", ids{"u1", "a1"}, lin(replay.OpSubmit, "u2"), []bool{false, false}},
		{"unknown source explains nothing", ids{"u1", "a1"}, lin(replay.OpEdit, "zz"), []bool{false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := Removals(old, tt.new, tt.lin)
			var got []bool
			for _, r := range rs {
				got = append(got, r.Explained)
				want := replay.Lineage{}
				if r.Explained {
					want = tt.lin
				}
				if r.By != want {
					t.Errorf("removal %d: explained %v by %+v", r.Index, r.Explained, r.By)
				}
			}
			if !reflect.DeepEqual(got, tt.explained) {
				t.Errorf("explained = %v, want %v (%+v)", got, tt.explained, rs)
			}
		})
	}
}

// TestSkippedExplain checks the binary search against applying each
// lineage in turn, on every small case.
func TestSkippedExplain(t *testing.T) {
	x := uint32(1)
	rnd := func(n int) int { x = x*1103515245 + 12345; return int(x>>8) % n }
	old := make(ids, 13)
	for i := range old {
		old[i] = fmt.Sprint(i)
	}
	for it := 0; it < 2000; it++ {
		var rs []Removal
		for i := 0; i < 12; i++ {
			if rnd(2) == 0 {
				rs = append(rs, Removal{Index: i, Explained: rnd(5) == 0})
			}
		}
		want := append([]Removal(nil), rs...)
		var s Skipped
		for src := 12; src >= 0; src-- {
			if rnd(4) == 0 {
				lin := replay.Lineage{Operation: replay.OpRetry, SourceMessageID: fmt.Sprint(src)}
				s.Add(old, lin)
				Explain(want, old, lin)
			}
		}
		s.Explain(rs)
		if !reflect.DeepEqual(rs, want) {
			t.Fatalf("got %+v, want %+v", rs, want)
		}
	}
}

// The lineages Skipped keeps stay bounded by the older projection,
// however many snapshots alternate between rewrites from different
// messages.
func TestSkippedStaysBounded(t *testing.T) {
	old := ids{"m1", "m2"}
	var s Skipped
	for i := 0; i < 2000; i++ {
		s.Add(old, replay.Lineage{Operation: replay.OpRegenerate, ParentTurnID: "t0", SourceMessageID: old[1-i%2]})
	}
	if n := len(s.rws); n > 2 {
		t.Fatalf("%d lineages kept for a projection of 2 messages", n)
	}
}

package model

import (
	"testing"
	"unsafe"

	"github.com/agentskit/snapctl/replay"
)

func msgs(ids ...string) []replay.Message {
	ms := make([]replay.Message, len(ids))
	for i, id := range ids {
		ms[i].ID = id
	}
	return ms
}

// TestIDsOf checks that idsOf gives the ids newIDs gives, and keeps the
// previous projection's copy only when its ids are the same, in order:
// ids that concatenate alike but split otherwise are not the same.
func TestIDsOf(t *testing.T) {
	prev := newIDs(msgs("a", "bc", "d"))
	for _, tt := range []struct {
		ids  []string
		same bool
	}{
		{[]string{"a", "bc", "d"}, true},
		{[]string{"ab", "c", "d"}, false},
		{[]string{"a", "bc", "e"}, false},
		{[]string{"a", "bc"}, false},
		{[]string{"a", "bc", "d", ""}, false},
		{[]string{"a", "bc", "dd"}, false},
		{[]string{}, false},
	} {
		got := idsOf(msgs(tt.ids...), prev)
		if got.Len() != len(tt.ids) {
			t.Fatalf("%q: %d ids", tt.ids, got.Len())
		}
		for i, id := range tt.ids {
			if got.ID(i) != id {
				t.Errorf("%q: id %d is %q", tt.ids, i, got.ID(i))
			}
		}
		if same := unsafe.StringData(got.buf) == unsafe.StringData(prev.buf); same != tt.same {
			t.Errorf("%q: kept the previous copy: %v, want %v", tt.ids, same, tt.same)
		}
	}
	if got := idsOf(nil, IDs{}); got.Len() != 0 {
		t.Errorf("no ids: %d", got.Len())
	}
}

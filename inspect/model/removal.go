package model

import (
	"sort"

	"github.com/agentskit/snapctl/replay"
)

// key names the k-th message with one id, so that a projection that
// repeats an id still matches one to one.
type key struct {
	id string
	k  int
}

// Match pairs the messages of two projections by id: the k-th message
// with an id in old matches the k-th with the same id in new, in time
// linear in the two. It calls both, when not nil, with the indexes of each
// match in new's order, and added with the index of each message of new
// that matches none; it returns the indexes of the messages of old that
// match none, ascending: the removed ones. This is the only place that
// decides which messages two projections share.
func Match(old, new IDSeq, both func(i, j int), added func(j int)) []int {
	// Snapshots mostly repeat the previous projection and add to its end:
	// a common prefix of ids is matched by position, without maps. Its
	// occurrences of each id are the same on both sides, so matching the
	// rest by occurrence within the rest is matching by occurrence overall.
	pre := 0
	for pre < old.Len() && pre < new.Len() && old.ID(pre) == new.ID(pre) {
		if both != nil {
			both(pre, pre)
		}
		pre++
	}
	if pre == old.Len() {
		if added != nil {
			for j := pre; j < new.Len(); j++ {
				added(j)
			}
		}
		return nil
	}
	oldAt := make(map[key]int, old.Len()-pre)
	nth := make(map[string]int, old.Len()-pre)
	for i := pre; i < old.Len(); i++ {
		id := old.ID(i)
		oldAt[key{id, nth[id]}] = i
		nth[id]++
	}
	clear(nth)
	matched := make([]bool, old.Len()-pre)
	for j := pre; j < new.Len(); j++ {
		id := new.ID(j)
		i, ok := oldAt[key{id, nth[id]}]
		nth[id]++
		switch {
		case ok:
			matched[i-pre] = true
			if both != nil {
				both(i, j)
			}
		case added != nil:
			added(j)
		}
	}
	var removed []int
	for i, m := range matched {
		if !m {
			removed = append(removed, pre+i)
		}
	}
	return removed
}

// Removal is a message of an older projection that a newer one lacks.
// Index is its place in the older projection. Explained says whether a
// lineage accounts for it, and By is that lineage.
type Removal struct {
	Index     int
	Explained bool
	By        replay.Lineage
}

// Removals is the rule for a pair of projections: the messages of old
// that new lacks (Match), each explained when new's lineage rewrites the
// conversation from a message at or before it (Explain).
func Removals(old, new IDSeq, lin replay.Lineage) []Removal {
	idx := Match(old, new, nil, nil)
	if len(idx) == 0 {
		return nil
	}
	rs := make([]Removal, len(idx))
	for k, i := range idx {
		rs[k].Index = i
	}
	Explain(rs, old, lin)
	return rs
}

// rewrites reports whether an operation rewrites the conversation from
// its source message on: a retry, an edit or a regenerate.
func rewrites(op replay.Operation) bool {
	return op == replay.OpRetry || op == replay.OpEdit || op == replay.OpRegenerate
}

// source is the index in old of the message lin rewrites from, or -1
// when lin rewrites nothing of old: messages from there on may
// legitimately disappear.
func source(old IDSeq, lin replay.Lineage) int {
	if !rewrites(lin.Operation) {
		return -1
	}
	for i := 0; i < old.Len(); i++ {
		if old.ID(i) == lin.SourceMessageID {
			return i
		}
	}
	return -1
}

// Explain marks the removals from old that lin accounts for: a retry,
// edit or regenerate explains its source message and every message after
// it.
func Explain(rs []Removal, old IDSeq, lin replay.Lineage) {
	if len(rs) == 0 {
		return
	}
	src := source(old, lin)
	if src < 0 {
		return
	}
	for i := range rs {
		if r := &rs[i]; !r.Explained && r.Index >= src {
			r.Explained, r.By = true, lin
		}
	}
}

// Skipped collects the lineages of snapshots accepted between two
// projections compared directly (diff's range), which may explain
// removals from the older one. Each kept lineage starts from an earlier
// message of it than the one before, so there are never more than it has
// messages, however many snapshots there are.
type Skipped struct {
	rws []rewrite
}

// rewrite is a lineage with the index of its source message.
type rewrite struct {
	source int
	lin    replay.Lineage
}

// Add notes the lineage of a snapshot accepted after old. A later
// rewrite from the same or a later message explains nothing an earlier
// one does not.
func (s *Skipped) Add(old IDSeq, lin replay.Lineage) {
	src := source(old, lin)
	if src >= 0 && (len(s.rws) == 0 || src < s.rws[len(s.rws)-1].source) {
		s.rws = append(s.rws, rewrite{source: src, lin: lin})
	}
}

// Explain marks the removals the noted lineages explain, as Explain for
// each in turn would, in O(n log r) for n removals and r lineages: their
// sources decrease, so a removal is explained by the first whose source
// is at or before it.
func (s *Skipped) Explain(rs []Removal) {
	for i := range rs {
		r := &rs[i]
		if r.Explained {
			continue
		}
		if k := sort.Search(len(s.rws), func(k int) bool { return s.rws[k].source <= r.Index }); k < len(s.rws) {
			r.Explained, r.By = true, s.rws[k].lin
		}
	}
}

package cmd

import (
	"slices"
	"strings"

	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/diff"
)

// pairFilters are the names diff's --only takes: each keeps the pairs
// that show that kind of change.
var pairFilters = []struct {
	name string
	keep func(p *diff.PairDiff) bool
}{
	{"added", func(p *diff.PairDiff) bool { return len(p.Added) > 0 }},
	{"removed", func(p *diff.PairDiff) bool { return len(p.Removed) > 0 }},
	{"unexplained", func(p *diff.PairDiff) bool {
		return slices.ContainsFunc(p.Removed, func(r diff.Removal) bool { return !r.Explained })
	}},
	{"changed", func(p *diff.PairDiff) bool { return len(p.Changed) > 0 }},
	{"moved", func(p *diff.PairDiff) bool { return len(p.Moved) > 0 }},
	{"status", func(p *diff.PairDiff) bool { return p.FromStatus != p.ToStatus }},
}

func pairFilterNames() []string {
	names := make([]string, len(pairFilters))
	for i, f := range pairFilters {
		names[i] = f.name
	}
	return names
}

// parsePairFilter parses diff's --only list into one test that keeps a
// pair when any named filter does.
func parsePairFilter(list string) (func(*diff.PairDiff) bool, error) {
	var keeps []func(*diff.PairDiff) bool
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		i := slices.IndexFunc(pairFilters, func(f struct {
			name string
			keep func(p *diff.PairDiff) bool
		}) bool {
			return f.name == name
		})
		if i < 0 {
			return nil, usageErrorf("--only: unknown change %q (want %s)", name, text.OrList(pairFilterNames()))
		}
		keeps = append(keeps, pairFilters[i].keep)
	}
	return func(p *diff.PairDiff) bool {
		for _, k := range keeps {
			if k(p) {
				return true
			}
		}
		return false
	}, nil
}

// onlyPairs passes to w the pairs keep keeps.
type onlyPairs struct {
	pairWriter
	keep func(*diff.PairDiff) bool
}

func (o onlyPairs) Pair(p *diff.PairDiff) error {
	if !o.keep(p) {
		return nil
	}
	return o.pairWriter.Pair(p)
}

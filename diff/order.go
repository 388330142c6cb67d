package diff

// moved returns the fewest messages whose move explains the new order.
// common lists the messages present on both sides in the new order, with
// their old indexes; the ones on a longest increasing run of old indexes
// kept their places, the rest moved. Patience sorting keeps this
// O(n log n).
func moved(common []Move) []Move {
	if len(common) < 2 {
		return nil
	}
	// Mostly nothing moved: no run to build.
	sorted := true
	for i := 1; i < len(common) && sorted; i++ {
		sorted = common[i-1].From < common[i].From
	}
	if sorted {
		return nil
	}
	// tails[l] is the index in common of the smallest tail of an
	// increasing run of length l+1; prev links each element to its
	// predecessor on its run.
	tails := make([]int, 0, 16)
	prev := make([]int, len(common))
	for i, c := range common {
		lo, hi := 0, len(tails)
		for lo < hi {
			mid := (lo + hi) / 2
			if common[tails[mid]].From < c.From {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		prev[i] = -1
		if lo > 0 {
			prev[i] = tails[lo-1]
		}
		if lo == len(tails) {
			tails = append(tails, i)
		} else {
			tails[lo] = i
		}
	}
	if len(tails) == len(common) {
		return nil
	}
	stays := make([]bool, len(common))
	for i := tails[len(tails)-1]; i >= 0; i = prev[i] {
		stays[i] = true
	}
	var out []Move
	for i, c := range common {
		if !stays[i] {
			out = append(out, c)
		}
	}
	return out
}

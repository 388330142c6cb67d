package diff

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxWordEdits bounds the word-level diff: texts that need more inserted
// or deleted words than this are reported as replaced, so a hostile
// capture cannot make a diff quadratic.
const MaxWordEdits = 2000

// maxWordWork bounds the steps of one word diff (diagonal moves included),
// for the same reason: long texts with long common runs between many
// edits cost (N+M)·D.
const maxWordWork = 1 << 24

// MaxWordBytes bounds the text a word diff cuts into words: the part of
// the two texts between their common prefix and suffix, both sides
// together. Past it the change is reported as replaced, so two 30 MB
// messages cost a linear scan for the common ends and no more, instead
// of a token and an intern-table entry per word (about 900 MB).
const MaxWordBytes = 256 << 10

// WordOp is what a WordEdit does.
type WordOp int

// The three word operations, as in git diff --word-diff.
const (
	WordEqual WordOp = iota
	WordDelete
	WordInsert
)

// WordEdit is a run of text kept, deleted or inserted. Whitespace is kept
// in the runs, so joining the equal and deleted runs gives the old text
// and joining the equal and inserted runs gives the new one.
type WordEdit struct {
	Op   WordOp
	Text string
}

// tokens is a text cut into alternating runs of spaces and of other
// characters: token i is text[off[i]:off[i+1]] and id[i] names its
// spelling, so comparing two tokens is comparing two integers.
type tokens struct {
	text string
	off  []int32
	id   []int32
}

func (t *tokens) len() int { return len(t.id) }

// span is the text of tokens i to j (exclusive).
func (t *tokens) span(i, j int) string { return t.text[t.off[i]:t.off[j]] }

// tokenize cuts s into tokens, giving equal spellings equal ids through
// the shared intern map.
func tokenize(s string, intern map[string]int32) tokens {
	t := tokens{text: s}
	start, space := 0, false
	cut := func(end int) {
		tok := s[start:end]
		id, ok := intern[tok]
		if !ok {
			id = int32(len(intern))
			intern[tok] = id
		}
		t.off = append(t.off, int32(start))
		t.id = append(t.id, id)
		start = end
	}
	for i, r := range s {
		sp := unicode.IsSpace(r)
		if i > start && sp != space {
			cut(i)
		}
		space = sp
	}
	if start < len(s) {
		cut(len(s))
	}
	t.off = append(t.off, int32(len(s)))
	return t
}

// Words diffs two texts word by word with Myers' O(ND) algorithm, after
// trimming the common prefix and suffix. ok is false when the texts are
// too different to diff within MaxWordEdits, or when what lies between
// their common prefix and suffix is longer than MaxWordBytes. Time and
// memory are linear in the texts' length: the common ends are found by
// comparing bytes, and only the middle, at most MaxWordBytes, is cut
// into words.
func Words(old, new string) (edits []WordEdit, ok bool) {
	pre, suf := commonEnds(old, new)
	if len(old)+len(new)-2*(pre+suf) > MaxWordBytes {
		return nil, false
	}
	intern := map[string]int32{}
	a, b := tokenize(old[pre:len(old)-suf], intern), tokenize(new[pre:len(new)-suf], intern)
	mid, ok := myers(a.id[:a.len()], b.id[:b.len()], len(intern))
	if !ok {
		return nil, false
	}
	// Turn per-token ops into runs: consecutive tokens with one op are
	// contiguous in their text, so each run is one slice of it.
	var out []WordEdit
	x, y := 0, 0
	emit := func(op WordOp, n int) {
		switch op {
		case WordEqual:
			out = append(out, WordEdit{op, a.span(x, x+n)})
			x, y = x+n, y+n
		case WordDelete:
			out = append(out, WordEdit{op, a.span(x, x+n)})
			x += n
		default:
			out = append(out, WordEdit{op, b.span(y, y+n)})
			y += n
		}
	}
	if pre > 0 {
		out = append(out, WordEdit{WordEqual, old[:pre]})
	}
	for i := 0; i < len(mid); {
		j := i
		for j < len(mid) && mid[j] == mid[i] {
			j++
		}
		emit(mid[i], j-i)
		i = j
	}
	if suf > 0 {
		out = append(out, WordEdit{WordEqual, old[len(old)-suf:]})
	}
	return foldSpaces(out), true
}

// commonEnds returns the byte lengths of the longest common prefix and
// suffix of two texts made of whole words: each ends where a word or a run
// of spaces ends in both texts, as a cut between tokens would. The suffix
// does not overlap the prefix on either side.
func commonEnds(a, b string) (pre, suf int) {
	n := min(len(a), len(b))
	for pre < n && a[pre] == b[pre] {
		pre++
	}
	for pre > 0 && !(boundary(a, pre) && boundary(b, pre)) {
		pre--
	}
	n -= pre
	for suf < n && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	for suf > 0 && !(boundary(a, len(a)-suf) && boundary(b, len(b)-suf)) {
		suf--
	}
	return pre, suf
}

// boundary says whether a token of tokenize ends at byte i of s: at either
// end, or between a space and a non-space rune.
func boundary(s string, i int) bool {
	if i <= 0 || i >= len(s) {
		return true
	}
	// Inside a valid multi-byte rune is no cut; a stray continuation byte
	// is a rune of its own, as range decodes it.
	for j := i - 1; j >= 0 && j >= i-3; j-- {
		if utf8.RuneStart(s[j]) {
			if _, w := utf8.DecodeRuneInString(s[j:]); w > i-j {
				return false
			}
			break
		}
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	l, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsSpace(r) != unicode.IsSpace(l)
}

// foldSpaces joins two replacements separated only by whitespace into one,
// so "[-search-] [-for-]" with "{+look+} {+up+}" reads "[-search
// for-]{+look up+}" as git diff --word-diff shows it. Edits come grouped
// as equal, delete, insert runs; only groups that both delete and insert
// are joined, so the joined text on each side stays exact.
func foldSpaces(ed []WordEdit) []WordEdit {
	type group struct {
		eq       string
		del, ins []string
	}
	var gs []group
	for i := 0; i < len(ed); {
		if ed[i].Op == WordEqual {
			gs = append(gs, group{eq: ed[i].Text})
			i++
			continue
		}
		var g group
		for ; i < len(ed) && ed[i].Op != WordEqual; i++ {
			if ed[i].Op == WordDelete {
				g.del = append(g.del, ed[i].Text)
			} else {
				g.ins = append(g.ins, ed[i].Text)
			}
		}
		gs = append(gs, g)
	}
	replace := func(g group) bool { return g.eq == "" && len(g.del) > 0 && len(g.ins) > 0 }
	var out []group
	for _, g := range gs {
		n := len(out)
		if replace(g) && n >= 2 && isSpace(out[n-1].eq) && replace(out[n-2]) {
			ws := out[n-1].eq
			out = out[:n-1]
			out[n-2].del = append(append(out[n-2].del, ws), g.del...)
			out[n-2].ins = append(append(out[n-2].ins, ws), g.ins...)
			continue
		}
		out = append(out, g)
	}
	res := ed[:0:0]
	for _, g := range out {
		if g.eq != "" {
			res = append(res, WordEdit{WordEqual, g.eq})
		}
		if len(g.del) > 0 {
			res = append(res, WordEdit{WordDelete, strings.Join(g.del, "")})
		}
		if len(g.ins) > 0 {
			res = append(res, WordEdit{WordInsert, strings.Join(g.ins, "")})
		}
	}
	return res
}

func isSpace(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// myers returns the shortest edit script from a to b, one op per token,
// or false when it needs more than MaxWordEdits edits or too much work.
// nids is the number of distinct token ids.
func myers(a, b []int32, nids int) ([]WordOp, bool) {
	n, m := len(a), len(b)
	if n+m > MaxWordEdits && minEdits(a, b, nids) > MaxWordEdits {
		return nil, false
	}
	if n == 0 || m == 0 {
		out := make([]WordOp, 0, n+m)
		for range a {
			out = append(out, WordDelete)
		}
		for range b {
			out = append(out, WordInsert)
		}
		return out, true
	}
	dmax := min(n+m, MaxWordEdits)
	off := dmax + 1
	v := make([]int32, 2*dmax+3)
	// trace[d] is v over diagonals -d..d after step d, for backtracking.
	var trace [][]int32
	work := 0
	for d := 0; d <= dmax; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = int(v[off+k+1])
			} else {
				x = int(v[off+k-1]) + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
				work++
			}
			work++
			v[off+k] = int32(x)
			if x >= n && y >= m {
				return backtrack(n, m, trace, d), true
			}
		}
		if work > maxWordWork {
			return nil, false
		}
		trace = append(trace, append([]int32(nil), v[off-d:off+d+1]...))
	}
	return nil, false
}

// minEdits is a lower bound on the edits from a to b: every token that one
// side has more often than the other must be inserted or deleted. It lets
// texts that share little fail in linear time instead of running Myers up
// to the cap.
func minEdits(a, b []int32, nids int) int {
	count := make([]int32, nids)
	for _, t := range a {
		count[t]++
	}
	for _, t := range b {
		count[t]--
	}
	total := 0
	for _, c := range count {
		total += int(max(c, -c))
	}
	return total
}

// backtrack walks the trace from the end of both texts to their start.
func backtrack(n, m int, trace [][]int32, dEnd int) []WordOp {
	x, y := n, m
	var rev []WordOp
	for d := dEnd; d > 0; d-- {
		prev := trace[d-1]
		at := func(k int) int { return int(prev[k+d-1]) }
		k := x - y
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			rev = append(rev, WordEqual)
			x, y = x-1, y-1
		}
		if x == px {
			rev = append(rev, WordInsert)
			y--
		} else {
			rev = append(rev, WordDelete)
			x--
		}
	}
	for x > 0 && y > 0 {
		rev = append(rev, WordEqual)
		x, y = x-1, y-1
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

package wire

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// shortKeys finds each key it was given, by all its bytes and its
// length, across growth and resets: against a map, on keys of every
// short length over a few bytes (NUL among them, so that keys differing
// only in length zero-pad alike).
func TestShortKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var tab shortKeys
	want := map[string]int32{}
	for op := 0; op < 200_000; op++ {
		if r.IntN(5000) == 0 {
			tab.reset()
			clear(want)
		}
		k := make([]byte, r.IntN(shortKey+1))
		for i := range k {
			k[i] = "\x00ab"[r.IntN(3)]
		}
		next := int32(len(want))
		got, added := tab.find(k, next)
		w, ok := want[string(k)]
		if !ok {
			want[string(k)], w = next, next
		}
		if got != w || added == ok {
			t.Fatalf("op %d, key %q: slot %d, added %v; want %d, %v", op, k, got, added, w, !ok)
		}
	}
	if tab.used != len(want) {
		t.Errorf("%d keys in the table, %d given", tab.used, len(want))
	}
	// Keys alike in their first word, so that a probe passing another's
	// entry meets one that differs only in the rest or in length.
	tab.reset()
	for i := range 5000 {
		k := fmt.Appendf(nil, "abcdefgh%d", i)
		k = append(k, make([]byte, i%(shortKey+1-len(k)))...)
		if got, added := tab.find(k, int32(i)); got != int32(i) || !added {
			t.Fatalf("key %q, the %dth given: slot %d, added %v", k, i, got, added)
		}
	}
}

// A repeated key drops the member before it, and only a repeat does: for
// keys that differ only past their first word, only in length, or across
// shortKey, in objects large enough to be indexed, parsed both ways.
func TestShortKeysDecode(t *testing.T) {
	fill := keysOf(20, func(i int) string { return fmt.Sprintf(`"f%d":0`, i) }) + ","
	distinct := [][2]string{
		{`abcdefgh1`, `abcdefgh2`},
		{`abcdefgh`, `abcdefgh\u0000`},
		{``, `\u0000`},
		{`a`, `b`},
		{`0123456789abcdef`, `0123456789abcdeg`},
		{`0123456789abcdef`, `0123456789abcdef0`},
	}
	var lines []string
	valid := map[string]bool{}
	for _, p := range distinct {
		// Both survive, and the first is out of range: invalid.
		lines = append(lines, metaLine(fill+`"`+p[0]+`":1e999,"`+p[1]+`":0`))
		// The same key spelled again: the first is dropped.
		again := p[1]
		if !strings.HasPrefix(again, `\u`) {
			again = fmt.Sprintf(`\u%04x`, again[0]) + again[1:]
		}
		l := metaLine(fill + `"` + p[1] + `":1e999,"` + again + `":0`)
		lines, valid[l] = append(lines, l), true
	}
	// A key met before the table grew many times is still found.
	many := keysOf(1000, func(i int) string { return fmt.Sprintf(`"k%d":0`, i) })
	l := metaLine(`"k0":1e999,` + many)
	lines, valid[l] = append(lines, l), true
	lines = append(lines, metaLine(`"k":1e999,`+many))
	for _, line := range lines {
		for _, restart := range []int{0, 1} {
			var d Decoder
			d.p.restartAt = restart
			var ev Event
			if err := d.Decode([]byte(line), &ev); (err == nil) != valid[line] {
				t.Errorf("%.120s… (restart at %d): valid %v, decoded with %v", line[strings.Index(line, "metadata"):], restart, valid[line], err)
			}
		}
	}
}

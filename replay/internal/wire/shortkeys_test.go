package wire

import (
	"encoding/binary"
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

// The keys of the objects a message record holds have a bit each in
// keySet.seen, so that none of them is compared with the keys before it
// (newKey): those of a message, of a part and of a tool call.
func TestKeyBits(t *testing.T) {
	for _, keys := range [][]string{
		{"id", "role", "content", "status", "createdAt", "toolCallId", "parts", "toolCalls", "metadata"},
		{"type", "text", "source", "mimeType", "detail", "durationSec", "filename"},
		{"id", "name", "args", "status", "result", "error"},
	} {
		seen := map[uint64]string{}
		for _, k := range keys {
			b := keyBit(binary.LittleEndian.Uint16([]byte(k+`"`)), uint32(len(k)))
			if other, ok := seen[b]; ok {
				t.Errorf("%q and %q have the same bit", k, other)
			}
			seen[b] = k
		}
	}
}

// Keys that differ only in the top byte of each word spread over the
// table as random keys do: about 1.45 probes a lookup at its load here,
// where the folded product alone gave 1.78 on average and 146 for the
// worst of 2,000 seeds.
func TestShortKeysSpread(t *testing.T) {
	var keys [][]byte
	for a := 0; a < 88; a++ {
		for b := 0; b < 88; b++ {
			k := []byte("abcdefgXabcdefgY")
			k[7], k[15] = byte(0x21+a), byte(0x21+b)
			keys = append(keys, k)
		}
	}
	saved := shortSeed
	defer func() { shortSeed = saved }()
	r := rand.New(rand.NewPCG(7, 8))
	worst, sum := 0.0, 0.0
	const seeds = 200
	for range seeds {
		shortSeed = [2]uint64{r.Uint64(), r.Uint64()}
		var tab shortKeys
		for i, k := range keys {
			tab.find(k, int32(i))
		}
		mask, probes := uint64(len(tab.tab)-1), 0
		for _, e := range tab.tab {
			if e.n == 0 {
				continue
			}
			for i := shortHash(e.lo, e.hi, e.n) & mask; ; i = (i + 1) & mask {
				probes++
				if tab.tab[i] == e {
					break
				}
			}
		}
		avg := float64(probes) / float64(len(keys))
		sum, worst = sum+avg, max(worst, avg)
	}
	if mean := sum / seeds; mean > 1.6 || worst > 2.5 {
		t.Errorf("%.2f probes a lookup on average over %d seeds, %.2f for the worst", mean, seeds, worst)
	}
}

// A line's big key indexes are not kept for the lines after it.
func TestKeyIndexTrimmed(t *testing.T) {
	many := keysOf(5000, func(i int) string { return fmt.Sprintf(`"k%d":0`, i) })
	long := keysOf(5000, func(i int) string { return fmt.Sprintf(`"%s%d":0`, strings.Repeat("x", 40), i) })
	var d Decoder
	d.Messages = true
	var ev Event
	d.Decode([]byte(metaLine(many+`,"deep":{`+long+`}`)), &ev)
	for i, s := range d.p.keys {
		if len(s.short.tab) > 1024 || len(s.m) > 1024 {
			t.Errorf("depth %d: a table of %d entries and a map of %d kept", i, len(s.short.tab), len(s.m))
		}
	}
}

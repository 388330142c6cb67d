package wire

import (
	"strconv"
	"strings"
	"testing"
)

// BenchmarkHostile decodes one line of each hostile shape; MB/s is the
// figure scripts/bench.sh prints for it.
func BenchmarkHostile(b *testing.B) {
	for _, s := range hostileShapes {
		line := []byte(s.line(100_000))
		b.Run(strings.ReplaceAll(s.name, " ", "-"), func(b *testing.B) {
			var d Decoder
			d.Messages = true
			var ev Event
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				d.Decode(line, &ev)
			}
		})
	}
}

// BenchmarkPlainShort scans strings of the lengths message contents
// mostly have, where the cost of each call outweighs that of the bytes.
func BenchmarkPlainShort(b *testing.B) {
	for _, n := range []int{64, 256, 2048} {
		buf := []byte(strings.Repeat("a", n))
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				plainPrefix(buf)
			}
		})
	}
}

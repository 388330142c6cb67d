package wire

import (
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

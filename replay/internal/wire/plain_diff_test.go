package wire

import (
	"math/rand/v2"
	"testing"
)

// TestLongRunScansAgree runs longRun with the vector scan on and off over
// random texts, from every start, and checks that both stop where a
// byte-at-a-time scan does. The texts are mostly plain bytes of every
// value a string may hold (high ones too, which an unsigned test must not
// take for control characters), with ends of every kind scattered at
// densities from none to many, so that ends fall in either half of the
// vector loop's 64 bytes, in its last 32, in the tail after the blocks
// and in the chunks of the portable scan.
func TestLongRunScansAgree(t *testing.T) {
	have := useAVX2
	defer func() { useAVX2 = have }()
	r := rand.New(rand.NewPCG(1, 2))
	plain := make([]byte, 0, 256)
	for c := range 256 {
		if !strByte[c] {
			plain = append(plain, byte(c))
		}
	}
	enders := []byte{'"', '\\', 0x00, 0x01, 0x09, 0x0a, 0x1f}
	for round := range 3000 {
		n := r.IntN(700)
		if round%100 == 0 {
			n = 5000 + r.IntN(5000)
		}
		density := []int{0, 1, 4, 40, 400}[r.IntN(5)]
		d := make([]byte, n)
		for i := range d {
			if density > 0 && r.IntN(1000) < density {
				d[i] = enders[r.IntN(len(enders))]
			} else {
				d[i] = plain[r.IntN(len(plain))]
			}
		}
		step := 1
		if n > 1000 {
			step = 37
		}
		for i := 0; i <= n; i += step {
			want := naiveEnd(d, i)
			useAVX2 = false
			portable := longRun(d, i)
			useAVX2 = have
			vector := longRun(d, i)
			if portable != want || vector != want {
				t.Fatalf("round %d, %d bytes from %d: portable %d, vector %d, want %d", round, n, i, portable, vector, want)
			}
		}
	}
}

//go:build gc && !purego

package wire

import "golang.org/x/sys/cpu"

// useAVX2 says whether plainPrefix may run plainAVX2; a variable only so
// that the tests can run the portable scan on a machine that has AVX2.
var useAVX2 = cpu.X86.HasAVX2

// plainPrefix returns how many of the first bytes of b, if any, are known
// to hold no quote, backslash or control character: a whole string scan
// in one pass of 32 bytes a step, where the portable scan takes three.
func plainPrefix(b []byte) int {
	if !useAVX2 || len(b) < 32 {
		return 0
	}
	// In pieces: the runtime cannot preempt assembly, and a line may hold
	// a gigabyte of plain text, some 50 ms of a scan that a collection
	// would wait for.
	n := 0
	for {
		c := b[n:min(n+plainPiece, len(b))]
		k := plainAVX2(c)
		if n += k; k < len(c) || len(c) < plainPiece {
			return n
		}
	}
}

// plainPiece is the most plainAVX2 scans at once: a few microseconds.
// A variable only so that the tests can make it small.
var plainPiece = 64 << 10

//go:noescape
func plainAVX2(b []byte) int

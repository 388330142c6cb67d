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
	return plainAVX2(b)
}

//go:noescape
func plainAVX2(b []byte) int

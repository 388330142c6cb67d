//go:build !amd64 || !gc || purego

package wire

// useAVX2 is never true off amd64, or without the gc toolchain.
var useAVX2 = false

// plainPrefix finds no plain prefix where there is no vector scan: the
// portable scan reads the whole run.
func plainPrefix([]byte) int { return 0 }

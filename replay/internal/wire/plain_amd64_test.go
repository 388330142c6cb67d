//go:build gc && !purego

package wire

import (
	"strings"
	"testing"
)

// TestPlainPrefixInPieces scans buffers of several pieces (plainPiece made
// small) with an end at every offset, or none: the pieces add up to what
// one scan of the whole buffer finds.
func TestPlainPrefixInPieces(t *testing.T) {
	if !useAVX2 {
		t.Skip("no vector scan on this machine")
	}
	defer func(old int) { plainPiece = old }(plainPiece)
	plainPiece = 64
	b := []byte(strings.Repeat("a", 300))
	for n := 0; n <= len(b); n++ {
		checkPlain(t, b[:n])
		for pos := 0; pos < n; pos++ {
			b[pos] = '\\'
			checkPlain(t, b[:n])
			b[pos] = 'a'
		}
	}
}

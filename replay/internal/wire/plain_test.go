package wire

import (
	"strings"
	"testing"
)

// withPortable runs f with the vector scan off, then on where the machine
// has it, so that both scans meet every case.
func withPortable(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	have := useAVX2
	defer func() { useAVX2 = have }()
	useAVX2 = false
	t.Run("portable", f)
	if have {
		useAVX2 = true
		t.Run("avx2", f)
	}
}

// TestPlainPrefix puts every byte value at every offset of buffers of 0
// to 160 bytes (five blocks) and checks what the vector scan claims: no
// byte that ends a string's fast path before the offset it returns,
// which is that of the first such byte, or the end of the last whole
// block.
func TestPlainPrefix(t *testing.T) {
	if !useAVX2 {
		t.Skip("no vector scan on this machine")
	}
	b := []byte(strings.Repeat("a", 160))
	for n := 0; n <= len(b); n++ {
		for pos := 0; pos < n; pos++ {
			for c := 0; c < 256; c++ {
				b[pos] = byte(c)
				checkPlain(t, b[:n])
				b[pos] = 'a'
			}
		}
	}
}

func checkPlain(t *testing.T, b []byte) {
	t.Helper()
	got := plainPrefix(b)
	first := naiveEnd(b, 0)
	switch {
	case got < 0 || got > first:
		t.Fatalf("plainPrefix of %q: %d, past its first end at %d", b, got, first)
	case got < first && got != len(b)&^31 && useAVX2:
		t.Fatalf("plainPrefix of %q: %d, want %d or the blocks' end %d", b, got, first, len(b)&^31)
	}
}

//go:build gc && !purego

package wire

import (
	"os"
	"regexp"
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

// TestPlainAVX2IsAllVEX reads the vector scan's assembly: every
// instruction that names an X or Y register is VEX-encoded (a V
// mnemonic). A legacy SSE instruction among AVX ones (MOVQ AX, X1 did it)
// pays a state transition at each call when the upper halves of the
// vector registers are dirty, as they are on the machine this was
// measured on: there, each call cost some 200 ns, on strings of a few
// hundred bytes most of the scan's time (BenchmarkPlainShort: 205 ns a
// 256-byte string before, 8 ns after).
func TestPlainAVX2IsAllVEX(t *testing.T) {
	src, err := os.ReadFile("plain_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	vecReg := regexp.MustCompile(`\b[XYZ][0-9]+\b`)
	for i, line := range strings.Split(string(src), "\n") {
		code, _, _ := strings.Cut(line, "//")
		code = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(code), `\`))
		if code == "" || strings.HasPrefix(code, "#") || !vecReg.MatchString(code) {
			continue
		}
		op := strings.Fields(code)[0]
		if strings.HasPrefix(op, "ENDS(") {
			continue // the macro, whose body is checked where it is defined
		}
		if !strings.HasPrefix(op, "V") {
			t.Errorf("plain_amd64.s:%d: %s is not VEX-encoded: %s", i+1, op, strings.TrimSpace(line))
		}
	}
}

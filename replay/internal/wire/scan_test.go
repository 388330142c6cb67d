package wire

import (
	"strings"
	"testing"
)

// naiveEnd is what scanString's fast path must find: the first quote,
// backslash or control character at or after i, or len(d).
func naiveEnd(d []byte, i int) int {
	for i < len(d) && !strByte[d[i]] {
		i++
	}
	return i
}

// TestStringScanFindsEveryEnd puts each byte that ends the fast path (and
// some that do not) at every offset of runs from 0 to 9,000 bytes, which
// cross the eight-byte loop, the chunks of longRun and their doubling, and
// checks that scanString stops where a byte-at-a-time scan does.
func TestStringScanFindsEveryEnd(t *testing.T) { withPortable(t, stringScanFindsEveryEnd) }

func stringScanFindsEveryEnd(t *testing.T) {
	var p parser
	enders := []byte{'"', '\\', 0x00, 0x01, 0x0a, 0x1f}
	others := []byte{' ', 0x7f, 0x80, 0xe9, 0xff, '!', '#', '[', ']'}
	lengths := []int{0, 1, 7, 8, 9, 15, 16, 31, 32, 33, 40, 63, 64, 65, 95, 96, 97, 160, 200, 255, 256, 257, 479, 480, 481, 1000, 4095, 4096, 4097, 9000}
	for _, n := range lengths {
		base := []byte(strings.Repeat("a", n))
		for _, pos := range []int{0, 1, 7, 8, 31, 32, 33, 95, 96, 97, 480, 481, 4096, n - 1} {
			if pos < 0 || pos >= n {
				continue
			}
			for _, c := range append(enders, others...) {
				d := append([]byte{'"'}, base...)
				d[1+pos] = c
				d = append(d, '"')
				p.data = d
				want := naiveEnd(d, 1)
				end, esc, plain, err := p.scanString(0)
				switch {
				case err == nil && p.plainKey(1, uint32(end-1), esc, plain) != (!esc && isASCII(d[1:end-1])):
					t.Fatalf("run of %d, byte %#x at %d: plain %v, want %v", n, c, pos, !(!esc && isASCII(d[1:end-1])), !esc && isASCII(d[1:end-1]))
				case d[want] == '"' && (err != nil || end != want+1):
					t.Fatalf("run of %d, byte %#x at %d: ended at %d (%v), want %d", n, c, pos, end, err, want+1)
				case d[want] != '"' && d[want] != '\\' && err == nil:
					t.Fatalf("run of %d, byte %#x at %d: a control character was let through (end %d)", n, c, pos, end)
				}
			}
		}
	}
	// An unterminated run of every length fails, wherever it stops.
	for n := 0; n < 300; n++ {
		p.data = append([]byte{'"'}, strings.Repeat("b", n)...)
		if _, _, _, err := p.scanString(0); err == nil {
			t.Fatalf("unterminated run of %d accepted", n)
		}
	}
}

// TestLongRunMatchesNaive checks longRun against a byte-at-a-time scan
// on every start of a text with ends scattered through it.
func TestLongRunMatchesNaive(t *testing.T) { withPortable(t, longRunMatchesNaive) }

func longRunMatchesNaive(t *testing.T) {
	d := []byte(strings.Repeat("x", 9000))
	for _, at := range []int{70, 300, 301, 2000, 4100, 8999} {
		d[at] = '"'
	}
	d[1234] = '\\'
	d[5000] = 0x05
	for i := 0; i <= len(d); i++ {
		if got, want := longRun(d, i), naiveEnd(d, i); got != want {
			t.Fatalf("longRun from %d: %d, want %d", i, got, want)
		}
	}
}

// TestScanStringPlain checks scanString's plain, as plainKey reads it,
// against its definition (no escape, every byte ASCII) for strings that
// end in every place of the eight-byte words, followed by bytes that are
// not ASCII, and strings that go on into longRun.
func TestScanStringPlain(t *testing.T) { withPortable(t, scanStringPlain) }

func scanStringPlain(t *testing.T) {
	var p parser
	for n := 0; n < 80; n++ {
		for _, inner := range []string{"", "é", "\\n", "\\u00e9", "\x7f", "\xff"} {
			for _, at := range []int{0, n / 2, n} {
				body := strings.Repeat("k", n)
				body = body[:at] + inner + body[at:]
				for _, after := range []string{"", "\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9", ":1}"} {
					d := []byte(`"` + body + `"` + after)
					p.data = d
					end, esc, plain, err := p.scanString(0)
					if err != nil || end != len(body)+2 {
						t.Fatalf("%q: end %d, %v", d, end, err)
					}
					if plain && (esc || end-2 >= shortRun) {
						t.Fatalf("%q: plain told past the short run", d)
					}
					if want := !esc && isASCII(d[1:end-1]); p.plainKey(1, uint32(end-1), esc, plain) != want {
						t.Fatalf("%q: plain %v, want %v", d, !want, want)
					}
				}
			}
		}
	}
}

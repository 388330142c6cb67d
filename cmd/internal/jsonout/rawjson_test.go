package jsonout

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentskit/snapctl/internal/termsafe"
)

// The byte-at-a-time forms of stringEnd, appendSafeJSON and RawJSON's
// scan of a number or literal, which the word-at-a-time ones must match
// on any bytes (FuzzRawJSON).

func stringEndByByte(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

func appendSafeJSONByByte(b, src []byte) []byte {
	start := 0
	for i := 0; i < len(src); {
		c := src[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' || c == '\r' || c == ' ' {
			i++
			continue
		}
		r, n := rune(c), 1
		if c >= utf8.RuneSelf {
			r, n = utf8.DecodeRune(src[i:])
		}
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, src[start:i]...)
			b = append(b, `\ufffd`...)
		case termsafe.Unsafe(r):
			b = append(b, src[start:i]...)
			b = appendUnicodeEscape(b, r)
		default:
			i += n
			continue
		}
		i += n
		start = i
	}
	return append(b, src[start:]...)
}

func tokenEndByByte(src []byte, i int) int {
	j := i
	for j < len(src) && strings.IndexByte(" \t\n\r,:]}", src[j]) < 0 {
		j++
	}
	return j
}

// FuzzRawJSON checks the word-at-a-time scans against the byte-at-a-time
// ones on any bytes, and that RawJSON lays out what encoding/json
// indents alike.
func FuzzRawJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":"c\"d\\"}],"e":true}`, `"\\\\\"x"`, "\"\x1b\u202e\xff\"", `[1e5,-2,null,"tail`,
		`{"text":"` + strings.Repeat("plain ascii ", 20) + "\u2028" + `"}`, "\"abc\\", `"\\"`} {
		f.Add([]byte(s))
	}
	// Characters to escape at every offset of a word.
	for k := range 9 {
		f.Add([]byte(`"` + strings.Repeat("a", k) + "\x1b" + strings.Repeat("b", 9) + "\xe2\x80\xae" + strings.Repeat("c", 17-k) + "\x7f\xff\n" + `tail"`))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		// Every position of the first 512 bytes: the byte-at-a-time scans
		// from each are linear, so all of a long input would be quadratic.
		for i := range src[:min(len(src), 512)] {
			if src[i] == '"' {
				if got, want := stringEnd(src, i), stringEndByByte(src, i); got != want {
					t.Fatalf("stringEnd(%q, %d) = %d, want %d", src, i, got, want)
				}
			}
			if got, want := tokenEnd(src, i), tokenEndByByte(src, i); got != want {
				t.Fatalf("tokenEnd(%q, %d) = %d, want %d", src, i, got, want)
			}
		}
		if got, want := appendSafeJSON(nil, src), appendSafeJSONByByte(nil, src); !bytes.Equal(got, want) {
			t.Fatalf("appendSafeJSON(%q) = %q, want %q", src, got, want)
		}
		if !json.Valid(src) {
			return
		}
		var want bytes.Buffer
		if err := json.Indent(&want, src, "", "  "); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		e := NewEncoder(&got, Document)
		e.RawJSON(src)
		if err := e.End(); err != nil {
			t.Fatal(err)
		}
		if w := appendSafeJSONByByte(nil, want.Bytes()); !bytes.Equal(bytes.TrimSpace(got.Bytes()), bytes.TrimSpace(w)) {
			t.Fatalf("RawJSON(%q):\n%s\nwant\n%s", src, got.Bytes(), w)
		}
	})
}

func BenchmarkAppendSafeJSON(b *testing.B) {
	src := []byte(`{"turnId":"turn-12","operation":"submit","preview":"` + strings.Repeat("greater a projection which ", 8) + `","usage":{"promptTokens":40}}`)
	b.SetBytes(int64(len(src)))
	var buf []byte
	for b.Loop() {
		buf = appendSafeJSON(buf[:0], src)
	}
}

func BenchmarkRawJSON(b *testing.B) {
	src := []byte(`{"turnId":"turn-12","operation":"submit","preview":"` + strings.Repeat("greater a projection which ", 8) + `","usage":{"promptTokens":40,"completionTokens":78},"problems":[]}`)
	b.SetBytes(int64(len(src)))
	e := NewEncoder(io.Discard, Document)
	for b.Loop() {
		e.RawJSON(src)
		e.b = e.b[:0]
		e.open = e.open[:0]
	}
}

// FuzzStrAsValue checks that Str writes any string as Value does (by
// encoding/json, then made safe): a value written field by field by hand
// is the value the contract type marshals to.
func FuzzStrAsValue(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b[31m\u202e\u200b\ufeff\xff\x7f\u0085\u2028\u2029", "<&>\"\\\n\t\r\x00", "日本語 \U0001F600"} {
		f.Add(s)
	}
	// Each byte to escape at every offset of a word, among plain ones.
	for _, c := range []string{`"`, `\`, "\x00", "\x1f", "\x7f", "\xff", "é", "\u2028"} {
		for k := range 9 {
			f.Add(strings.Repeat("a", k) + c + strings.Repeat("b", 16-k))
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		var a, b bytes.Buffer
		ea, eb := NewEncoder(&a, Document), NewEncoder(&b, Document)
		ea.Str(s)
		if err := eb.Value(s); err != nil {
			t.Fatal(err)
		}
		if ea.End() != nil || eb.End() != nil || a.String() != b.String() {
			t.Fatalf("%q: Str %s, Value %s", s, a.Bytes(), b.Bytes())
		}
	})
}

func BenchmarkAppendString(b *testing.B) {
	s := strings.Repeat("greater a projection which captures ", 30)
	b.SetBytes(int64(len(s)))
	var buf []byte
	for b.Loop() {
		buf = AppendString(buf[:0], s)
	}
}

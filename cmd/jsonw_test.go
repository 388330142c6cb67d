package cmd

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode"
	"unicode/utf8"
)

// forbiddenInJSON reports the first character of out that no JSON output
// may hold raw, or -1: controls other than the newline and indentation,
// DEL, C1 controls, line separators, format characters (bidi controls,
// zero-width spaces, U+FEFF) and bytes that are not UTF-8.
func forbiddenInJSON(out []byte) int {
	for i := 0; i < len(out); {
		r, n := utf8.DecodeRune(out[i:])
		bad := r < 0x20 && r != '\n' && r != ' ' || r == 0x7f || r >= 0x80 && r <= 0x9f ||
			r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r) || r == utf8.RuneError && n == 1
		if bad {
			return i
		}
		i += n
	}
	return -1
}

func TestAppendJSONString(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"plain", "hello, wörld 😀", `"hello, wörld 😀"`},
		{"quote and backslash", `a"b\c`, `"a\"b\\c"`},
		{"C0 controls", "\x1b[31m\n\t\x00", `"\u001b[31m\n\t\u0000"`},
		{"DEL", "a\x7fb", `"a\u007fb"`},
		{"C1 CSI and NEL", "\u009b2J\u0085", `"\u009b2J\u0085"`},
		{"first character after C1 stays", "\u00a0", "\"\u00a0\""},
		{"line separators", "a\u2028b\u2029", `"a\u2028b\u2029"`},
		{"bidi controls", "\u061c\u200e\u200f\u202a\u202e\u2066\u2069", `"\u061c\u200e\u200f\u202a\u202e\u2066\u2069"`},
		{"zero-width and BOM", "\u200b\u200c\u200d\u2060\ufeff", `"\u200b\u200c\u200d\u2060\ufeff"`},
		{"format character outside the BMP", "\U000e0041", `"\udb40\udc41"`},
		{"invalid UTF-8", "a\xffb\xc3", `"a\ufffdb\ufffd"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := string(appendJSONString(nil, tc.in))
			if got != tc.want {
				t.Fatalf("appendJSONString(%q) = %s, want %s", tc.in, got, tc.want)
			}
			var back string
			if err := json.Unmarshal([]byte(got), &back); err != nil {
				t.Fatalf("%s is not JSON: %v", got, err)
			}
			if utf8.ValidString(tc.in) && back != tc.in {
				t.Fatalf("%s parses as %q, want %q", got, back, tc.in)
			}
		})
	}
}

func TestWriteSafeJSON(t *testing.T) {
	in := map[string]string{"k\u202e": "a\u0085b\x7f\u200b\ufeff\u2066<>&\U000e0001\xff"}
	var buf bytes.Buffer
	if err := writeSafeJSON(&buf, in, true); err != nil {
		t.Fatal(err)
	}
	out := buf.Bytes()
	if i := forbiddenInJSON(out); i >= 0 {
		t.Fatalf("raw forbidden character at byte %d of %s", i, out)
	}
	want := "{\n  \"k\\u202e\": \"a\\u0085b\\u007f\\u200b\\ufeff\\u2066<>&\\udb40\\udc01\\ufffd\"\n}\n"
	if string(out) != want {
		t.Fatalf("got %q, want %q", out, want)
	}
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil || back["k\u202e"] != "a\u0085b\x7f\u200b\ufeff\u2066<>&\U000e0001\ufffd" {
		t.Fatalf("parsed %q, %v", back, err)
	}
}

func FuzzAppendJSONString(f *testing.F) {
	f.Add("\x1b\u0085\u202e\u200b\ufeff\xff")
	f.Fuzz(func(t *testing.T, s string) {
		out := appendJSONString(nil, s)
		if i := forbiddenInJSON(out); i >= 0 {
			t.Fatalf("%q: raw forbidden character at byte %d of %s", s, i, out)
		}
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("%q gives invalid JSON %s: %v", s, out, err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("%q parses back as %q", s, back)
		}
		safe := appendSafeJSON(nil, out)
		if string(safe) != string(out) {
			t.Fatalf("appendSafeJSON changed %s to %s", out, safe)
		}
	})
}

package jsonout

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentskit/snapctl/cmd/internal/jsonout/jsontest"
)

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
			got := string(AppendString(nil, tc.in))
			if got != tc.want {
				t.Fatalf("AppendString(%q) = %s, want %s", tc.in, got, tc.want)
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

// encode runs write on an encoder of the given style and returns what
// it wrote.
func encode(style Style, write func(e *Encoder)) string {
	var buf bytes.Buffer
	e := NewEncoder(&buf, style)
	write(e)
	e.End()
	return buf.String()
}

// TestJSONEncoderValue: a value goes out terminal-safe, not HTML-escaped,
// and parses back to itself.
func TestJSONEncoderValue(t *testing.T) {
	in := map[string]string{"k\u202e": "a\u0085b\x7f\u200b\ufeff\u2066<>&\U000e0001\xff"}
	out := encode(Document, func(e *Encoder) {
		if err := e.Value(in); err != nil {
			t.Fatal(err)
		}
	})
	if i := jsontest.Forbidden([]byte(out)); i >= 0 {
		t.Fatalf("raw forbidden character at byte %d of %s", i, out)
	}
	want := "{\n  \"k\\u202e\": \"a\\u0085b\\u007f\\u200b\\ufeff\\u2066<>&\\udb40\\udc01\\ufffd\"\n}\n"
	if out != want {
		t.Fatalf("got %q, want %q", out, want)
	}
	var back map[string]string
	if err := json.Unmarshal([]byte(out), &back); err != nil || back["k\u202e"] != "a\u0085b\x7f\u200b\ufeff\u2066<>&\U000e0001\ufffd" {
		t.Fatalf("parsed %q, %v", back, err)
	}
}

// TestJSONEncoderLayout: both layouts are encoding/json's, whether a value
// is written field by field, from a Go value or from JSON text.
func TestJSONEncoderLayout(t *testing.T) {
	type inner struct {
		N []int          `json:"n"`
		M map[string]any `json:"m"`
	}
	v := struct {
		S     string   `json:"s"`
		Empty []string `json:"empty"`
		Obj   struct{} `json:"obj"`
		In    []inner  `json:"in"`
		Null  *int     `json:"null"`
		B     bool     `json:"b"`
		F     float64  `json:"f"`
	}{S: "x \"y\" \\ z", Empty: []string{}, In: []inner{{N: []int{1, -2}, M: map[string]any{"a": nil, "b": []any{}}}, {}}, B: true, F: -1.5e-7}
	compact, _ := json.Marshal(v)
	indented, _ := json.MarshalIndent(v, "", "  ")
	byHand := func(e *Encoder) {
		e.BeginObject()
		e.Key("s")
		e.Str(v.S)
		e.Key("empty")
		e.StringArray(0, nil)
		e.Key("obj")
		e.BeginObject()
		e.EndObject()
		e.Key("in")
		if err := e.Value(v.In); err != nil {
			t.Fatal(err)
		}
		e.Key("null")
		e.Null()
		e.Key("b")
		e.Bool(true)
		e.Key("f")
		e.RawJSON([]byte(" -1.5e-7 "))
		e.EndObject()
	}
	cases := []struct {
		name  string
		style Style
		write func(e *Encoder)
		want  string
	}{
		{"compact value", Lines, func(e *Encoder) { e.Value(v) }, string(compact)},
		{"indented value", Document, func(e *Encoder) { e.Value(v) }, string(indented)},
		{"compact from indented text", Lines, func(e *Encoder) { e.RawJSON(indented) }, string(compact)},
		{"indented from compact text", Document, func(e *Encoder) { e.RawJSON(compact) }, string(indented)},
		{"compact by hand", Lines, byHand, string(compact)},
		{"indented by hand", Document, byHand, string(indented)},
		{"fields, then more members", Document, func(e *Encoder) {
			e.BeginObject()
			e.Fields(struct {
				A int `json:"a"`
			}{1})
			e.Key("b")
			e.BeginArray()
			e.Int(2)
			e.EndArray()
			e.EndObject()
		}, "{\n  \"a\": 1,\n  \"b\": [\n    2\n  ]\n}"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := encode(tc.style, tc.write); got != tc.want+"\n" {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestJSONEncoderColour: tokens get their colours, strings with escaped
// quotes stay whole, and characters that act on a terminal never reach it.
func TestJSONEncoderColour(t *testing.T) {
	colours := &Colours{
		key: func(s string) string { return "<k>" + s + "</k>" },
		str: func(s string) string { return "<s>" + s + "</s>" },
		num: func(s string) string { return "<n>" + s + "</n>" },
		lit: func(s string) string { return "<l>" + s + "</l>" },
	}
	tests := []struct{ name, in, want string }{
		{"scalars", `{"a":1,"b":-2.5e3,"c":true,"d":null}`,
			"{\n  <k>\"a\"</k>: <n>1</n>,\n  <k>\"b\"</k>: <n>-2.5e3</n>,\n  <k>\"c\"</k>: <l>true</l>,\n  <k>\"d\"</k>: <l>null</l>\n}\n"},
		{"escaped quote and colon in a string", `["x\":y"]`, "[\n  <s>\"x\\\":y\"</s>\n]\n"},
		{"C1 and bidi controls are escaped", "{\"k\":\"a\u009b31m\u202eb\"}", "{\n  <k>\"k\"</k>: <s>\"a\\u009b31m\\u202eb\"</s>\n}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := encode(Style{Indent: true, Colour: colours}, func(e *Encoder) { e.RawJSON([]byte(tt.in)) })
			if got != tt.want {
				t.Errorf("rawJSON(%q) =\n%s\nwant\n%s", tt.in, got, tt.want)
			}
		})
	}
}

// TestJSONEncoderStreams: a flush writes everything so far, so a
// document of records is written record by record.
func TestJSONEncoderStreams(t *testing.T) {
	var buf bytes.Buffer
	e := NewEncoder(&buf, Document)
	e.BeginObject()
	e.Key("records")
	e.BeginArray()
	for i := range 3 {
		e.Int(int64(i))
		if err := e.Flush(); err != nil {
			t.Fatal(err)
		}
		if want := strings.Repeat(",", i) + "\n    " + strconv.Itoa(i); !strings.HasSuffix(buf.String(), "\n    "+strconv.Itoa(i)) || len(e.b) != 0 {
			t.Fatalf("after record %d: %q pending %q, want a suffix %q", i, buf.String(), e.b, want)
		}
	}
	e.EndArray()
	e.EndObject()
	e.End()
	if want := "{\n  \"records\": [\n    0,\n    1,\n    2\n  ]\n}\n"; buf.String() != want {
		t.Fatalf("got %q, want %q", buf.String(), want)
	}
}

// FuzzAppendJSONString keeps the name its corpus in testdata/fuzz has.
func FuzzAppendJSONString(f *testing.F) {
	f.Add("\x1b\u0085\u202e\u200b\ufeff\xff")
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendString(nil, s)
		if i := jsontest.Forbidden(out); i >= 0 {
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

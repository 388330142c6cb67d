package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/replay"
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

// encode runs write on an encoder of the given style and returns what
// it wrote.
func encode(style jsonStyle, write func(e *jsonEncoder)) string {
	var buf bytes.Buffer
	e := newJSONEncoder(&buf, style)
	write(e)
	e.end()
	return buf.String()
}

// TestJSONEncoderValue: a value goes out terminal-safe, not HTML-escaped,
// and parses back to itself.
func TestJSONEncoderValue(t *testing.T) {
	in := map[string]string{"k\u202e": "a\u0085b\x7f\u200b\ufeff\u2066<>&\U000e0001\xff"}
	out := encode(jsonDocument, func(e *jsonEncoder) {
		if err := e.value(in); err != nil {
			t.Fatal(err)
		}
	})
	if i := forbiddenInJSON([]byte(out)); i >= 0 {
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
	byHand := func(e *jsonEncoder) {
		e.beginObject()
		e.key("s")
		e.str(v.S)
		e.key("empty")
		e.stringArray(0, nil)
		e.key("obj")
		e.beginObject()
		e.endObject()
		e.key("in")
		if err := e.value(v.In); err != nil {
			t.Fatal(err)
		}
		e.key("null")
		e.null()
		e.key("b")
		e.bool(true)
		e.key("f")
		e.rawJSON([]byte(" -1.5e-7 "))
		e.endObject()
	}
	cases := []struct {
		name  string
		style jsonStyle
		write func(e *jsonEncoder)
		want  string
	}{
		{"compact value", jsonLines, func(e *jsonEncoder) { e.value(v) }, string(compact)},
		{"indented value", jsonDocument, func(e *jsonEncoder) { e.value(v) }, string(indented)},
		{"compact from indented text", jsonLines, func(e *jsonEncoder) { e.rawJSON(indented) }, string(compact)},
		{"indented from compact text", jsonDocument, func(e *jsonEncoder) { e.rawJSON(compact) }, string(indented)},
		{"compact by hand", jsonLines, byHand, string(compact)},
		{"indented by hand", jsonDocument, byHand, string(indented)},
		{"fields, then more members", jsonDocument, func(e *jsonEncoder) {
			e.beginObject()
			e.fields(struct {
				A int `json:"a"`
			}{1})
			e.key("b")
			e.beginArray()
			e.int(2)
			e.endArray()
			e.endObject()
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
	colours := &jsonColours{
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
			got := encode(jsonStyle{Indent: true, Colour: colours}, func(e *jsonEncoder) { e.rawJSON([]byte(tt.in)) })
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
	e := newJSONEncoder(&buf, jsonDocument)
	e.beginObject()
	e.key("records")
	e.beginArray()
	for i := range 3 {
		e.int(int64(i))
		if err := e.flush(); err != nil {
			t.Fatal(err)
		}
		if want := strings.Repeat(",", i) + "\n    " + strconv.Itoa(i); !strings.HasSuffix(buf.String(), "\n    "+strconv.Itoa(i)) || len(e.b) != 0 {
			t.Fatalf("after record %d: %q pending %q, want a suffix %q", i, buf.String(), e.b, want)
		}
	}
	e.endArray()
	e.endObject()
	e.end()
	if want := "{\n  \"records\": [\n    0,\n    1,\n    2\n  ]\n}\n"; buf.String() != want {
		t.Fatalf("got %q, want %q", buf.String(), want)
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

// benchResult is a typical accepted snapshot's result.
var benchResult = &replay.Result{File: "capture.jsonl", Line: 1234, Reason: replay.ReasonAdvanced, Gap: 1, Prev: 41,
	Event: &replay.Event{Kind: replay.KindSnapshot, EventID: "evt-turn-12-7", SessionID: "session-7f3a", TurnID: "turn-12", Sequence: 42}}

// BenchmarkReplayJSONL measures replay's -o jsonl record writer, the
// output of its hot path.
func BenchmarkReplayJSONL(b *testing.B) {
	var one bytes.Buffer
	newJSONEvents(&one, "jsonl", false).event(benchResult)
	b.SetBytes(int64(one.Len()))
	b.ReportAllocs()
	w := newJSONEvents(bufio.NewWriterSize(io.Discard, 64<<10), "jsonl", false)
	for b.Loop() {
		w.event(benchResult)
	}
}

// largestWrite remembers the longest single write.
type largestWrite struct{ n, max int }

func (w *largestWrite) Write(p []byte) (int, error) {
	w.n += len(p)
	w.max = max(w.max, len(p))
	return len(p), nil
}

// TestJSONDocumentsStream: inspect and lineage write -o json a session at a
// time and replay and diff a record at a time, so no write is ever the
// whole document (the output buffer passes a write longer than itself
// straight through).
func TestJSONDocumentsStream(t *testing.T) {
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, `{"protocol":"agentskit.chat.turn","version":1,"eventId":"e%d","sessionId":"s%d","turnId":"t%d","sequence":1,"emittedAt":"2026-07-11T03:00:00Z","event":"server.turn.snapshot","payload":{"status":"complete","usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"lineage":{"operation":"submit"},"messages":[{"id":"m","role":"assistant","content":"hi","status":"complete","createdAt":"2026-07-11T03:00:00.000Z"}]}}`+"\n", i, i, i)
		fmt.Fprintf(&b, `{"protocol":"agentskit.chat.turn","version":1,"eventId":"f%d","sessionId":"s%d","turnId":"t%d","sequence":2,"emittedAt":"2026-07-11T03:00:01Z","event":"server.turn.snapshot","payload":{"status":"complete","usage":{"promptTokens":1,"completionTokens":2,"totalTokens":3},"lineage":{"operation":"submit"},"messages":[{"id":"m","role":"assistant","content":"hi there","status":"complete","createdAt":"2026-07-11T03:00:00.000Z"}]}}`+"\n", i, i, i)
	}
	for _, args := range [][]string{{"inspect", "-o", "json"}, {"lineage", "-o", "json"}, {"replay", "-o", "json"}, {"diff", "-o", "json"}} {
		ios, _, errOut := iostreams.Test(b.String())
		w := &largestWrite{}
		ios.Out = w
		if code := run(ios, append(args, "-")); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if w.n < 1<<20 || w.max > 64<<10 {
			t.Errorf("%v: %d bytes, the longest write %d: want over 1 MiB in writes of at most 64 KiB", args, w.n, w.max)
		}
	}
}

package replay

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

type readLine struct {
	file    string
	num     int
	data    string
	tooLong bool
	length  int64
}

func readAll(t *testing.T, rd *Reader) []readLine {
	t.Helper()
	var out []readLine
	for {
		l, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		rl := readLine{file: filepath.Base(l.File), num: l.Num, data: string(l.Data), tooLong: l.TooLong}
		if l.TooLong {
			rl.length = l.Len
		}
		out = append(out, rl)
	}
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReaderLines(t *testing.T) {
	cases := []struct {
		name    string
		input   string
		maxLine int
		want    []readLine
		blank   int
	}{
		{"LF and CRLF", "a\r\nb\nc\r\n", 0, []readLine{{"x", 1, "a", false, 0}, {"x", 2, "b", false, 0}, {"x", 3, "c", false, 0}}, 0},
		{"last line without newline", "a\nb", 0, []readLine{{"x", 1, "a", false, 0}, {"x", 2, "b", false, 0}}, 0},
		{"blank and whitespace-only lines are skipped but counted", "\n \t\r\na\n\u00a0\n\ufeff\n", 0, []readLine{{"x", 3, "a", false, 0}}, 4},
		{"U+0085 alone is not blank", "\u0085\n", 0, []readLine{{"x", 1, "\u0085", false, 0}}, 0},
		{"line of exactly max", "abcd\nabcde\nxy", 4, []readLine{{"x", 1, "abcd", false, 0}, {"x", 2, "", true, 5}, {"x", 3, "xy", false, 0}}, 0},
		{"long last line", "ab\n" + strings.Repeat("z", 1000), 10, []readLine{{"x", 1, "ab", false, 0}, {"x", 2, "", true, 1000}}, 0},
		{"long line across buffer refills", strings.Repeat("y", 700<<10) + "\nok\n", 1000, []readLine{{"x", 1, "", true, 700 << 10}, {"x", 2, "ok", false, 0}}, 0},
		{"long CRLF line: the CR is not counted", strings.Repeat("y", 700<<10) + "\r\nok\n", 1000, []readLine{{"x", 1, "", true, 700 << 10}, {"x", 2, "ok", false, 0}}, 0},
		{"long whitespace-only lines are blank", strings.Repeat(" ", 700<<10) + "\n" + strings.Repeat("\u3000", 300<<10) + "\n      \nok", 4, []readLine{{"x", 4, "ok", false, 0}}, 3},
		{"long line of spaces and one letter", strings.Repeat(" ", 700<<10) + "x\n", 1000, []readLine{{"x", 1, "", true, 700<<10 + 1}}, 0},
		{"empty file", "", 0, nil, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), "x", []byte(tc.input))
			rd, err := Open([]string{p}, nil, tc.maxLine)
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			got := readAll(t, rd)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d lines %+v, want %+v", len(got), got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("line %d: got %+v, want %+v", i, got[i], tc.want[i])
				}
			}
			if b := rd.Stats().Blank; b != tc.blank {
				t.Errorf("blank lines: got %d, want %d", b, tc.blank)
			}
		})
	}
}

func TestReaderFilesInOrderWithStdin(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a", []byte("1\n2"))
	b := writeFile(t, dir, "b", []byte("3\n"))
	rd, err := Open([]string{a, "-", b}, strings.NewReader("s\n"), 0)
	if err != nil {
		t.Fatal(err)
	}
	got := readAll(t, rd)
	want := []readLine{{"a", 1, "1", false, 0}, {"a", 2, "2", false, 0}, {"-", 1, "s", false, 0}, {"b", 1, "3", false, 0}}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if s := rd.Stats(); s.Files != 3 || s.Lines != 4 {
		t.Errorf("stats %+v", s)
	}
}

func TestReaderCompressed(t *testing.T) {
	plain := "line one\nline two\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(plain))
	zw.Close()
	var zs bytes.Buffer
	enc, _ := zstd.NewWriter(&zs)
	enc.Write([]byte(plain))
	enc.Close()
	// A zstd stream may open with a skippable frame (magic 0x184D2A5?).
	skippable := append([]byte{0x53, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 'a', 'b', 'c'}, zs.Bytes()...)
	for name, data := range map[string][]byte{"capture.txt": gz.Bytes(), "capture.log": zs.Bytes(), "skippable": skippable} {
		t.Run(name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), name, data)
			rd, err := Open([]string{p}, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			got := readAll(t, rd)
			if len(got) != 2 || got[0].data != "line one" || got[1].data != "line two" {
				t.Fatalf("got %+v", got)
			}
		})
	}
	t.Run("stdin", func(t *testing.T) {
		rd, _ := Open([]string{"-"}, bytes.NewReader(gz.Bytes()), 0)
		if got := readAll(t, rd); len(got) != 2 {
			t.Fatalf("got %+v", got)
		}
	})
}

// Garbage that starts like a compressed file but has no valid header is
// read as plain lines, as the reference would see it.
func TestReaderMagicWithoutHeader(t *testing.T) {
	for name, data := range map[string]string{
		"gzip magic": "\x1f\x8b garbage\nnext\n",
		"zstd magic": "\x28\xb5\x2f\xfd\xff garbage\nnext\n",
	} {
		t.Run(name, func(t *testing.T) {
			rd, _ := Open([]string{"-"}, strings.NewReader(data), 0)
			got := readAll(t, rd)
			if len(got) != 2 || got[1].data != "next" {
				t.Fatalf("got %+v", got)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	ok := writeFile(t, dir, "ok", []byte("x\n"))
	for _, tc := range []struct{ name, file, want string }{
		{"missing", filepath.Join(dir, "nope"), "no such file"},
		{"directory", dir, "is a directory"},
		{"unreadable", writeFile(t, dir, "secret", nil), "permission denied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "unreadable" {
				if err := os.Chmod(tc.file, 0); err != nil || os.Getuid() == 0 {
					t.Skip("cannot make a file unreadable here")
				}
			}
			_, err := Open([]string{ok, tc.file}, nil, 0)
			var ie *InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an InputError with %q", err, tc.want)
			}
		})
	}
}

// The line limit: 0 (or less) means the default, 1 to MaxLineLimit are
// taken as they are, and more is refused, so that no buffer arithmetic
// can overflow.
func TestOpenLineLimit(t *testing.T) {
	p := writeFile(t, t.TempDir(), "x", []byte("a\nbc\n"))
	for _, tc := range []struct {
		maxLine int
		ok      bool
		tooLong int
	}{
		{-1, true, 0}, {0, true, 0}, {1, true, 1}, {2, true, 0},
		{MaxLineLimit, true, 0}, {MaxLineLimit + 1, false, 0}, {math.MaxInt, false, 0},
	} {
		t.Run(fmt.Sprint(tc.maxLine), func(t *testing.T) {
			rd, err := Open([]string{p}, nil, tc.maxLine)
			if !tc.ok {
				if err == nil {
					t.Fatal("Open took a limit over MaxLineLimit")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := readAll(t, rd); len(got) != 2 || rd.Stats().TooLong != tc.tooLong {
				t.Fatalf("got %+v, stats %+v", got, rd.Stats())
			}
		})
	}
}

// Progress totals the sizes the files had when Open checked them; a
// device or standard input makes the total unknown.
func TestReaderProgress(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a", []byte("12345\n"))
	b := writeFile(t, dir, "b", []byte("123\n"))
	rd, _ := Open([]string{a, b}, nil, 0)
	if read, total := rd.Progress(); read != 0 || total != 10 {
		t.Fatalf("before reading: %d of %d", read, total)
	}
	readAll(t, rd)
	if read, total := rd.Progress(); read != 10 || total != 10 {
		t.Fatalf("after reading: %d of %d", read, total)
	}
	rd, err := Open([]string{a, os.DevNull}, nil, 0)
	if err != nil {
		t.Fatalf("a device is a capture: %v", err)
	}
	if _, total := rd.Progress(); total != -1 {
		t.Fatalf("total %d with a device", total)
	}
	if got := readAll(t, rd); len(got) != 1 || rd.Err() != nil {
		t.Fatalf("got %+v, %v", got, rd.Err())
	}
}

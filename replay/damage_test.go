package replay

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// captureText is n distinct event lines, each ending in a newline.
func captureText(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(snapshotLine("s", int64(i)))
		b.WriteByte('\n')
	}
	return b.String()
}

func gzipBytes(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func zstdBytes(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, err := zstd.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write([]byte(s))
	zw.Close()
	return b.Bytes()
}

// readText reads every line of data as one capture and returns them
// joined by newlines, with the reader's error.
func readText(t *testing.T, data []byte) (string, *Reader) {
	t.Helper()
	p := writeFile(t, t.TempDir(), "capture", data)
	rd, err := Open([]string{p}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var lines []string
	for _, l := range readAll(t, rd) {
		lines = append(lines, l.data)
	}
	return strings.Join(lines, "\n"), rd
}

func damageOf(t *testing.T, rd *Reader) *DamageError {
	t.Helper()
	var d *DamageError
	if !errors.As(rd.Err(), &d) {
		t.Fatalf("Err() = %v, want a *DamageError", rd.Err())
	}
	if rd.Stats().Complete() {
		t.Fatal("Stats().Complete() is true for damaged input")
	}
	return d
}

func TestReaderDamagedCompressed(t *testing.T) {
	text := captureText(40)
	gz := gzipBytes(t, text)
	zs := zstdBytes(t, text)
	twoMembers := append(gzipBytes(t, captureText(3)), gzipBytes(t, text[len(captureText(3)):])...)
	cases := []struct {
		name   string
		data   []byte
		want   string // the text read, a prefix of text unless whole
		damage bool
		format string
		offset int64 // -1: not checked
	}{
		{"whole gzip", gz, strings.TrimSuffix(text, "\n"), false, "", -1},
		{"two gzip members", twoMembers, strings.TrimSuffix(text, "\n"), false, "", -1},
		{"junk after the last member", append(append([]byte{}, gz...), "junk\n"...), strings.TrimSuffix(text, "\n"), true, "gzip", int64(len(gz))},
		{"a lone byte after the last member", append(append([]byte{}, gz...), 0), strings.TrimSuffix(text, "\n"), true, "gzip", int64(len(gz))},
		{"gzip without its trailer", gz[:len(gz)-8], strings.TrimSuffix(text, "\n"), true, "gzip", int64(len(gz) - 8)},
		{"gzip header alone", gz[:10], "", true, "gzip", 10},
		{"gzip header cut in its extra field", []byte("\x1f\x8b\x08\x04\x00\x00\x00\x00\x00\x03\xff\xffabc"), "", true, "gzip", 15},
		{"gzip cut in half", gz[:len(gz)/2], "", true, "gzip", int64(len(gz) / 2)},
		{"zstd cut in half", zs[:len(zs)/2], "", true, "zstd", -1},
		{"whole zstd then junk", append(append([]byte{}, zs...), "junk\n"...), strings.TrimSuffix(text, "\n"), true, "zstd", -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, rd := readText(t, tc.data)
			if tc.want != "" && got != tc.want {
				t.Fatalf("read %d bytes, want %d", len(got), len(tc.want))
			}
			if !strings.HasPrefix(text, got) {
				t.Fatalf("read text is not a prefix of the capture: %q", got[max(0, len(got)-80):])
			}
			if !tc.damage {
				if err := rd.Err(); err != nil || !rd.Stats().Complete() {
					t.Fatalf("Err() = %v for whole input", err)
				}
				return
			}
			d := damageOf(t, rd)
			if d.Format != tc.format || (tc.offset >= 0 && d.Offset != tc.offset) {
				t.Fatalf("damage %+v, want format %q at byte %d", d, tc.format, tc.offset)
			}
			if d.Decoded != int64(len(got)) && d.Decoded != int64(len(got))+1 {
				t.Fatalf("Decoded = %d, but %d bytes of lines were read", d.Decoded, len(got))
			}
			if !strings.Contains(d.Error(), fmt.Sprintf("at byte %d", d.Offset)) {
				t.Fatalf("message %q does not give the offset", d.Error())
			}
		})
	}
}

// The reader recovers every byte zcat recovers from a cut gzip file, the
// last partial line included, wherever the cut: the bytes flate decoded before the error are
// delivered, not dropped with it.
func TestReaderCutGzipMatchesZcat(t *testing.T) {
	zcat, err := exec.LookPath("zcat")
	if err != nil {
		t.Skip("zcat is not installed")
	}
	text := captureText(14)
	gz := gzipBytes(t, text)
	dir := t.TempDir()
	for cut := 1; cut < len(gz); cut += 3 + cut/16 {
		data := gz[:len(gz)-cut]
		p := writeFile(t, dir, "cut.gz", data)
		zout, _ := exec.Command(zcat, p).Output() // exits 1 on a cut file
		if len(data) < 10 {
			break // too short to be recognised as gzip: plain lines
		}
		got, rd := readText(t, data)
		if want := strings.TrimSuffix(string(zout), "\n"); !strings.HasPrefix(got, want) {
			t.Fatalf("cut %d bytes: read %d bytes of lines, zcat recovers %d", cut, len(got), len(want))
		}
		if !strings.HasPrefix(text, got) {
			t.Fatalf("cut %d bytes: read text that is not in the capture", cut)
		}
		if rd.Err() == nil {
			t.Fatalf("cut %d bytes: no damage reported", cut)
		}
	}
}

// A small compressed capture whose checksum fails is damage, never taken
// for plain lines, though its stored blocks hold the text itself.
func TestReaderBadChecksumIsDamage(t *testing.T) {
	text := captureText(3)
	for name, data := range map[string][]byte{"zstd": zstdBytes(t, text), "gzip": gzipBytes(t, text)} {
		t.Run(name, func(t *testing.T) {
			bad := bytes.Clone(data)
			off := len(bad) - 4 // zstd's checksum ends the frame
			if name == "gzip" {
				off = len(bad) - 8 // gzip's CRC-32 comes before the size
			}
			bad[off] ^= 0xff
			_, rd := readText(t, bad)
			if d := damageOf(t, rd); d.Format != name {
				t.Fatalf("damage %+v, want %s damage", d, name)
			}
		})
	}
}

// A capture whose first bytes look like a compressed header, but whose
// decoder fails before producing anything, is read as plain lines.
func TestReaderLooksCompressedButIsPlain(t *testing.T) {
	for name, data := range map[string]string{
		"gzip header then garbage":   "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03 not deflate\nnext\n",
		"zstd frame header, garbage": "\x28\xb5\x2f\xfd\x00\x58 garbage\nnext\n",
	} {
		t.Run(name, func(t *testing.T) {
			got, rd := readText(t, []byte(data))
			if want := strings.TrimSuffix(data, "\n"); got != want {
				t.Fatalf("got %q, want the plain lines %q", got, want)
			}
			if err := rd.Err(); err != nil {
				t.Fatalf("Err() = %v", err)
			}
		})
	}
}

// failAfter returns data, then err.
type failAfter struct {
	data []byte
	err  error
}

func (f *failAfter) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

// A read error is damage: every line before it, including a last partial
// line, is delivered, and the next capture is still read.
func TestReaderReadErrorKeepsLines(t *testing.T) {
	dir := t.TempDir()
	next := writeFile(t, dir, "next", []byte("after\n"))
	boom := errors.New("input/output error")
	for _, workers := range []int{1, 4} {
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) {
			rd, err := Open([]string{"-", next}, &failAfter{data: []byte("a\nb\npart"), err: boom}, 0)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			sum, err := Run(rd, Options{Workers: workers}, func(r *Result) error {
				got = append(got, fmt.Sprintf("%s:%d", filepath.Base(r.File), r.Line))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if want := "-:1 -:2 -:3 next:1"; strings.Join(got, " ") != want {
				t.Fatalf("lines %v, want %s", got, want)
			}
			d := damageOf(t, rd)
			if d.Name != "-" || d.Offset != 8 || !errors.Is(d, boom) {
				t.Fatalf("damage %+v", d)
			}
			if sum.Input.Damaged != 1 || sum.Input.Damage != d {
				t.Fatalf("summary input %+v", sum.Input)
			}
		})
	}
}

// Two damaged captures: Err names the first and counts the other.
func TestReaderSeveralDamaged(t *testing.T) {
	dir := t.TempDir()
	gz := gzipBytes(t, captureText(3))
	a := writeFile(t, dir, "a.gz", gz[:len(gz)-4])
	b := writeFile(t, dir, "b.gz", gz[:len(gz)-4])
	rd, _ := Open([]string{a, b}, nil, 0)
	readAll(t, rd)
	err := rd.Err()
	var d *DamageError
	if !errors.As(err, &d) || d.Name != a || !strings.Contains(err.Error(), "(and 1 more damaged capture)") {
		t.Fatalf("Err() = %v", err)
	}
}

// A file removed after Open checked it is damage when the reader reaches
// it; the captures around it are read.
func TestReaderFileGoneBeforeReached(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a", []byte("1\n"))
	gone := writeFile(t, dir, "gone", []byte("2\n"))
	c := writeFile(t, dir, "c", []byte("3\n"))
	rd, err := Open([]string{a, gone, c}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(gone)
	if got := readAll(t, rd); len(got) != 2 || got[1].data != "3" {
		t.Fatalf("got %+v", got)
	}
	if d := damageOf(t, rd); d.Name != gone || d.Offset != -1 || !strings.Contains(d.Error(), "cannot read") {
		t.Fatalf("damage %v", d)
	}
}

// A file truncated while it is read is a warning, not damage.
func TestReaderShrinkWarning(t *testing.T) {
	text := captureText(20000) // several MB: more than the reader buffers
	p := writeFile(t, t.TempDir(), "live", []byte(text))
	rd, _ := Open([]string{p}, nil, 0)
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, int64(len(text)/2)); err != nil {
		t.Fatal(err)
	}
	readAll(t, rd)
	w := rd.Warnings()
	var se *ShrinkError
	if len(w) != 1 || !errors.As(w[0], &se) || se.Size != int64(len(text)) || se.Now != int64(len(text)/2) {
		t.Fatalf("warnings %v", w)
	}
	if rd.Err() != nil {
		t.Fatalf("Err() = %v: shrinking is a warning", rd.Err())
	}

	// The same file read whole: no warning.
	p2 := writeFile(t, t.TempDir(), "whole", []byte(text))
	rd2, _ := Open([]string{p2}, nil, 0)
	readAll(t, rd2)
	if w := rd2.Warnings(); len(w) != 0 {
		t.Fatalf("warnings %v for a file that did not change", w)
	}
}

// Run returns at once when fn fails, while its reading goroutine may go
// on: Close, Err and Warnings are then safe to call (run with -race), and
// closing is not damage.
func TestReaderCloseWhileRunReads(t *testing.T) {
	dir := t.TempDir()
	var names []string
	for i := 0; i < 50; i++ {
		names = append(names, writeFile(t, dir, fmt.Sprint("c", i), []byte(captureText(200))))
	}
	rd, err := Open(names, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	if _, err := Run(rd, Options{Workers: 4}, func(*Result) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("Run = %v", err)
	}
	rd.Close()
	if err := rd.Err(); err != nil {
		t.Fatalf("Err() = %v after Close", err)
	}
	_ = rd.Warnings()
}

// FuzzReaderDamaged cuts a gzip or zstd capture anywhere, or appends any
// bytes to it whole: the reader never panics, reports damage exactly when Err says
// so, and every line it delivers is a line of the capture, in order,
// except that the last may be cut short. A capture read as plain lines
// instead (the decoder failed before its first byte) reports no damage.
// Lines are read as NDJSON, the capture and the cut one alike.
func FuzzReaderDamaged(f *testing.F) {
	f.Add([]byte(captureText(3)), uint16(100), []byte(nil), false)
	f.Add([]byte("a\nb\n\nc"), uint16(20), []byte("junk\n"), true)
	f.Add([]byte(captureText(14)), uint16(0xffff), []byte{0x1f, 0x8b, 8, 0}, false)
	// One compressor of each kind, reset for every input: a new one
	// allocates its tables and windows (a zstd encoder some megabytes),
	// which was most of an execution's time.
	gz := gzip.NewWriter(io.Discard)
	// One goroutine: the encoder's own concurrency made the coverage of
	// an input differ from run to run, and the fuzzer chase it.
	zs, err := zstd.NewWriter(io.Discard, zstd.WithEncoderConcurrency(1))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text []byte, cut uint16, junk []byte, useZstd bool) {
		if (useZstd && compressed(junk)) || (!useZstd && gzipHeader(junk[:min(len(junk), 10)])) {
			// Junk that opens a member or frame of its own is one, read
			// as such: what it decodes to before it fails is delivered.
			return
		}
		if compressed(text) {
			// Read plain, such a text is decoded in its turn (the fuzzer
			// found it); decoded, it is lines like any other.
			return
		}
		var w interface {
			io.WriteCloser
			Reset(io.Writer)
		} = gz
		if useZstd {
			w = zs
		}
		var b bytes.Buffer
		w.Reset(&b)
		if _, err := w.Write(text); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		data := b.Bytes()
		// Junk inside a compressed stream may decode to garbage before the
		// decoder notices, so it only follows a complete stream.
		if int(cut) < len(data) {
			data = data[:cut]
		} else {
			data = append(data, junk...)
		}
		want := readLines(t, text)
		rd, _ := Open([]string{"-"}, bytes.NewReader(data), 0)
		rd.SetFormat(FormatNDJSON)
		got := readAll(t, rd)
		if (rd.Err() != nil) != (rd.Stats().Damaged > 0) {
			t.Fatalf("Err() = %v but Damaged = %d", rd.Err(), rd.Stats().Damaged)
		}
		// The last line of a cut capture may be the start of any of its
		// lines, a blank one too: cut, that may not be blank (the first
		// byte of a U+00A0, say; the fuzzer found it).
		lines := strings.Split(string(text), "\n")
		cutShort := func(i int, l readLine) bool {
			return rd.Err() != nil && i == len(got)-1 && (i == 0 || got[i-1].num < l.num) &&
				l.num <= len(lines) && strings.HasPrefix(strings.TrimSuffix(lines[l.num-1], "\r"), l.data)
		}
		for i, l := range got {
			if i >= len(want) || !strings.HasPrefix(want[i].data, l.data) || (i < len(got)-1 && l != want[i]) {
				if cutShort(i, l) {
					continue
				}
				if rd.Err() != nil || i > 0 {
					t.Fatalf("line %d: %+v is not the capture's %d", i, l, i)
				}
				return // read as plain lines
			}
		}
	})
}

// readLines reads text as a plain capture of NDJSON lines from standard
// input. Not --format auto: which format it finds may depend on how much
// of the text there is, and a cut capture holds less.
func readLines(t *testing.T, text []byte) []readLine {
	rd, _ := Open([]string{"-"}, bytes.NewReader(text), 0)
	rd.SetFormat(FormatNDJSON)
	return readAll(t, rd)
}

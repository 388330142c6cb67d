package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDecode checks that no line makes the decoder panic, and that what it
// accepts satisfies the rules it claims to check.
func FuzzDecode(f *testing.F) {
	addCorpusSeeds(f)
	var d Decoder
	d.Messages = true
	f.Fuzz(func(t *testing.T, line []byte) {
		var ev Event
		err := d.Decode(line, &ev)
		if err != nil {
			if len(err.Problems) == 0 || err.Code == "" {
				t.Fatalf("malformed outcome without code or problem: %+v", err)
			}
			return
		}
		if !IsSafeIdentifier(ev.SessionID) || !IsSafeIdentifier(ev.EventID) || !IsSafeIdentifier(ev.TurnID) {
			t.Fatalf("accepted unsafe identifiers: %+v", ev)
		}
		if ev.Sequence < 0 || ev.Sequence > maxSafeInteger || !IsEmittedAt(ev.EmittedAt) {
			t.Fatalf("accepted bad envelope: %+v", ev)
		}
		if ev.Kind == KindSnapshot && len(ev.Snapshot.Messages) != ev.Snapshot.MessageCount {
			t.Fatalf("message count %d but %d messages", ev.Snapshot.MessageCount, len(ev.Snapshot.Messages))
		}
	})
}

// addCorpusSeeds seeds a fuzz target with the sample captures and the
// conformance cases.
func addCorpusSeeds(f *testing.F) {
	files, _ := filepath.Glob("../testdata/*.jsonl")
	more, _ := filepath.Glob("../testdata/conformance/cursor/*.jsonl")
	for _, name := range append(files, more...) {
		fh, err := os.Open(name)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			f.Add(append([]byte(nil), sc.Bytes()...))
		}
		fh.Close()
	}
	fh, err := os.Open("../testdata/conformance/decode.jsonl")
	if err != nil {
		return
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var c struct{ Line string }
		if json.Unmarshal(sc.Bytes(), &c) == nil && len(c.Line) < 4096 {
			f.Add([]byte(c.Line))
		}
	}
}

// FuzzReader checks the capture reader against a plain split of the same
// bytes: every line, its number, CR stripping, blank skipping and the
// --max-line cut, whatever the bytes and the read sizes.
func FuzzReader(f *testing.F) {
	f.Add([]byte("a\r\nb\n\n c\n"), uint8(3), uint8(1))
	f.Add([]byte("\xef\xbb\xbf{}\n\u00a0\n\r\n"), uint8(10), uint8(7))
	f.Add([]byte("\x1f\x8b\x08\x00garbage"), uint8(2), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, maxLine, chunk uint8) {
		if maxLine == 0 || (len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b) || bytes.HasPrefix(data, zstdMagic) {
			return // compressed input is another test's subject
		}
		rd, _ := Open([]string{"-"}, &chunkReader{data: data, n: int(chunk) + 1}, int(maxLine))
		var want []string
		for i, l := range strings.Split(string(data), "\n") {
			if i == strings.Count(string(data), "\n") && l == "" {
				break
			}
			want = append(want, fmt.Sprintf("%d:%s", i+1, strings.TrimSuffix(l, "\r")))
		}
		n := 0
		for {
			l, err := rd.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			// Blank lines are skipped, however long.
			for n < len(want) && isJSBlank([]byte(want[n][strings.IndexByte(want[n], ':')+1:])) {
				n++
			}
			if n >= len(want) {
				t.Fatalf("extra line %d", l.Num)
			}
			text := want[n][strings.IndexByte(want[n], ':')+1:]
			if l.TooLong != (len(text) > int(maxLine)) {
				t.Fatalf("line %d (%d bytes): TooLong %v with max %d", l.Num, len(text), l.TooLong, maxLine)
			}
			got := fmt.Sprintf("%d:%s", l.Num, l.Data)
			if l.TooLong {
				got = fmt.Sprintf("%d:%s", l.Num, text)
			}
			if got != want[n] {
				t.Fatalf("got %q, want %q", got, want[n])
			}
			n++
		}
		for ; n < len(want); n++ {
			if !isJSBlank([]byte(want[n][strings.IndexByte(want[n], ':')+1:])) {
				t.Fatalf("line %q was never returned", want[n])
			}
		}
	})
}

// chunkReader returns at most n bytes per Read.
type chunkReader struct {
	data []byte
	n    int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	if len(p) > c.n {
		p = p[:c.n]
	}
	k := copy(p, c.data)
	c.data = c.data[k:]
	return k, nil
}

// FuzzDecodeBudget fails on any line whose decoding costs more than a
// linear budget of counted steps or holds a tape past its fixed bound, so
// that the fuzzer hunts for the next super-linear path, and checks that
// the prescan way of parsing a message record agrees with the first pass.
func FuzzDecodeBudget(f *testing.F) {
	addCorpusSeeds(f)
	for _, s := range hostileShapes {
		f.Add([]byte(s.line(40)))
	}
	var a, b Decoder
	a.Messages, b.Messages = true, true
	b.p.restartAt = 1
	f.Fuzz(func(t *testing.T, line []byte) {
		var ev Event
		ea := a.Decode(line, &ev)
		if a.p.work > 20*len(line)+64 {
			t.Fatalf("work %d for a %d-byte line", a.p.work, len(line))
		}
		if len(a.p.tape) > recordCap+len(line) || cap(a.p.tape) > 2*(recordCap+1024) {
			t.Fatalf("tape of %d nodes (capacity %d) for a %d-byte line", len(a.p.tape), cap(a.p.tape), len(line))
		}
		eb := b.Decode(line, &ev)
		if b.p.work > 20*len(line)+64 {
			t.Fatalf("prescan: work %d for a %d-byte line", b.p.work, len(line))
		}
		if (ea == nil) != (eb == nil) || (ea != nil && ea.Code != eb.Code) {
			t.Fatalf("first pass %v, prescan %v", ea, eb)
		}
	})
}

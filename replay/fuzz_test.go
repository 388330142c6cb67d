package replay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/replay/internal/wire"
)

// FuzzReader checks the capture reader against a plain split of the same
// bytes: every line, its number, CR stripping, blank skipping and the
// --max-line cut, whatever the bytes and the read sizes. The bytes are
// read as NDJSON: how --format auto reads them is FuzzAutoDetect's
// subject.
func FuzzReader(f *testing.F) {
	f.Add([]byte("a\r\nb\n\n c\n"), uint8(3), uint8(1))
	f.Add([]byte("\xef\xbb\xbf{}\n\u00a0\n\r\n"), uint8(10), uint8(7))
	f.Add([]byte("\x1f\x8b\x08\x00garbage"), uint8(2), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, maxLine, chunk uint8) {
		if maxLine == 0 || (len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b) || bytes.HasPrefix(data, zstdMagic) {
			return // compressed input is another test's subject
		}
		rd, _ := Open([]string{"-"}, &chunkReader{data: data, n: int(chunk) + 1}, int(maxLine))
		rd.SetFormat(FormatNDJSON)
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
			for n < len(want) && wire.IsBlank([]byte(want[n][strings.IndexByte(want[n], ':')+1:])) {
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
			if !wire.IsBlank([]byte(want[n][strings.IndexByte(want[n], ':')+1:])) {
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

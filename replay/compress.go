package replay

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"

	"github.com/klauspost/compress/zstd"
)

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
	// zstdSkippable ends the magic of a skippable frame, 0x184D2A5?, which
	// may open a zstd stream.
	zstdSkippable = []byte{0x2a, 0x4d, 0x18}
)

// decompress returns a reader of the capture's lines: br itself, or a
// gzip or zstd decoder when br starts with that format's header. The name
// of the file plays no part, so compressed standard input works too. Only
// a well-formed header counts (magic bytes, and the method and reserved
// bits gzip and zstd fix), so stray garbage at the start of a plain
// capture is read as lines, not refused as a broken archive.
func decompress(br *bufio.Reader) (io.Reader, error) {
	head, _ := br.Peek(10)
	switch {
	case bytes.HasPrefix(head, zstdMagic) && len(head) > 4 && head[4]&0x08 == 0,
		len(head) >= 4 && head[0]&0xf0 == 0x50 && bytes.Equal(head[1:4], zstdSkippable):
		// Bounded window: a hostile frame cannot ask for gigabytes.
		zr, err := zstd.NewReader(br, zstd.WithDecoderMaxWindow(128<<20), zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		return zr.IOReadCloser(), nil
	case bytes.HasPrefix(head, gzipMagic) && len(head) == 10 && head[2] == 8 && head[3]&0xe0 == 0:
		return gzip.NewReader(br)
	}
	return br, nil
}

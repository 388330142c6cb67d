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
)

// decompress returns a reader of the capture's lines: br itself, or a
// gzip or zstd decoder when br starts with that format's magic bytes. The
// name of the file plays no part, so compressed standard input works too.
func decompress(br *bufio.Reader) (io.Reader, error) {
	head, _ := br.Peek(4)
	switch {
	case bytes.HasPrefix(head, zstdMagic):
		// Bounded window: a hostile frame cannot ask for gigabytes.
		zr, err := zstd.NewReader(br, zstd.WithDecoderMaxWindow(128<<20), zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		return zr.IOReadCloser(), nil
	case bytes.HasPrefix(head, gzipMagic):
		return gzip.NewReader(br)
	}
	return br, nil
}

package replay

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
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

// Compression formats, as DamageError.Format names them.
const (
	formatGzip = "gzip"
	formatZstd = "zstd"
)

// decompress returns a reader of the capture's lines: br itself, or a
// gzip or zstd decoder when br starts with that format's header, with the
// format's name. The name of the file plays no part, so compressed
// standard input works too. Only a well-formed header counts (magic
// bytes, and the method and reserved bits gzip and zstd fix), so stray
// garbage at the start of a plain capture is read as lines, not refused
// as a broken archive. pos tells how far into the capture as stored the
// decoder has read.
func decompress(br *bufio.Reader, pos func() int64) (io.ReadCloser, string, error) {
	head, _ := br.Peek(10)
	switch Compression(head) {
	case formatZstd:
		// Bounded window: a hostile frame cannot ask for gigabytes.
		zr, err := zstd.NewReader(br, zstd.WithDecoderMaxWindow(128<<20), zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, formatZstd, err
		}
		return zr.IOReadCloser(), formatZstd, nil
	case formatGzip:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, formatGzip, err
		}
		zr.Multistream(false)
		return &gzipMembers{br: br, zr: zr, pos: pos}, formatGzip, nil
	}
	return io.NopCloser(br), "", nil
}

// Compression names the compression of a capture that starts with head
// (its first 10 bytes, or all of a shorter one): "gzip" or "zstd", as a
// run decompresses it, or "" for plain bytes.
func Compression(head []byte) string {
	switch {
	case bytes.HasPrefix(head, zstdMagic) && len(head) > 4 && head[4]&0x08 == 0,
		len(head) >= 4 && head[0]&0xf0 == 0x50 && bytes.Equal(head[1:4], zstdSkippable):
		return formatZstd
	case gzipHeader(head):
		return formatGzip
	}
	return ""
}

// gzipHeader reports whether head, the first 10 bytes of a member, is a
// well-formed gzip header: magic bytes, deflate, no reserved flag.
func gzipHeader(head []byte) bool {
	return bytes.HasPrefix(head, gzipMagic) && len(head) == 10 && head[2] == 8 && head[3]&0xe0 == 0
}

// errNoMember is data after a gzip member that does not open another.
var errNoMember = errors.New("no gzip header")

// gzipMembers reads concatenated gzip members one at a time, so that data
// after the last member that is not gzip is reported where it starts, and
// only once every line before it has been delivered.
type gzipMembers struct {
	br  *bufio.Reader
	zr  *gzip.Reader
	pos func() int64
}

// junkError is data after a complete gzip member that does not start
// another: Offset is where it starts in the capture as stored.
type junkError struct {
	Offset int64
	Err    error
}

func (e *junkError) Error() string {
	return fmt.Sprintf("data after the last complete gzip member is not gzip (%v)", e.Err)
}

func (e *junkError) Unwrap() error { return e.Err }

func (g *gzipMembers) Read(p []byte) (int, error) {
	for {
		n, err := g.zr.Read(p)
		if !errors.Is(err, io.EOF) || n > 0 {
			if errors.Is(err, io.EOF) {
				err = nil // this member is done; the next call looks for another
			}
			return n, err
		}
		if _, err := g.br.Peek(1); err != nil {
			return 0, err // io.EOF: the last member ended the capture
		}
		at := g.pos()
		// The same rule as for the first member: a header the gzip
		// package would take (it ignores the reserved flags) is not
		// enough, or junk would be decoded into lines before it fails.
		if head, _ := g.br.Peek(10); !gzipHeader(head) {
			return 0, &junkError{Offset: at, Err: errNoMember}
		}
		if err := g.zr.Reset(g.br); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return 0, &junkError{Offset: at, Err: err}
		}
		g.zr.Multistream(false)
	}
}

func (g *gzipMembers) Close() error { return g.zr.Close() }

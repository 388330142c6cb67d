package replay

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"unicode/utf8"
)

// DefaultMaxLine is the longest line decoded by default; a longer line is
// reported as malformed without being held in memory.
const DefaultMaxLine = 64 << 20

// StdinName is the file name that stands for standard input.
const StdinName = "-"

// Line is one non-blank line of a capture. Data is borrowed: it is valid
// until the next call to Next.
type Line struct {
	File string
	Num  int   // 1-based physical line number within File
	Off  int64 // byte offset of the line in File (after decompression)
	Data []byte
	// TooLong is set when the line exceeded the reader's maximum; Data is
	// then empty and Len holds the line's length.
	TooLong bool
	Len     int64
	blank   bool // a too-long line of whitespace only
}

// Stats counts what a Reader has read.
type Stats struct {
	Files int
	Bytes int64 // after decompression
	Lines int   // physical lines, blank ones included
	Blank int   // empty or whitespace-only lines, which are not events
}

// InputError is a capture that cannot be read at all: missing, a
// directory, unreadable, or failing mid-read.
type InputError struct {
	Name string
	Err  error
}

func (e *InputError) Error() string {
	var pe *os.PathError
	if errors.As(e.Err, &pe) {
		return fmt.Sprintf("%s: %v", e.Name, pe.Err)
	}
	return fmt.Sprintf("%s: %v", e.Name, e.Err)
}

func (e *InputError) Unwrap() error { return e.Err }

type source struct {
	name string
	rc   io.ReadCloser
	size int64 // -1 when unknown (standard input)
}

// countingReader counts the bytes read from a capture as stored, before
// decompression, for progress reports from another goroutine.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// Reader reads one or more captures in order as one stream of lines. It
// owns one buffer, which grows to the longest line it has to hold.
type Reader struct {
	// OnFill, when set, is called before the reader waits for more input,
	// so that output can be flushed while a live stream is idle.
	OnFill func()

	maxLine int
	sources []source
	cur     int
	in      io.Reader
	name    string
	buf     []byte
	r, w    int
	eof     bool
	num     int
	off     int64
	stats   Stats
	raw     atomic.Int64
}

// Open opens every named capture before anything is read, so that a
// missing or unreadable file is reported before any output. "-" is
// stdin. Compressed captures are recognised by their first bytes.
func Open(names []string, stdin io.Reader, maxLine int) (*Reader, error) {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	r := &Reader{maxLine: maxLine, cur: -1}
	for _, name := range names {
		if name == StdinName {
			r.sources = append(r.sources, source{name: name, rc: io.NopCloser(stdin), size: -1})
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			r.Close()
			return nil, &InputError{Name: name, Err: err}
		}
		fi, err := f.Stat()
		if err != nil || fi.IsDir() {
			f.Close()
			r.Close()
			if err == nil {
				err = errors.New("is a directory")
			}
			return nil, &InputError{Name: name, Err: err}
		}
		size := fi.Size()
		if !fi.Mode().IsRegular() {
			size = -1
		}
		r.sources = append(r.sources, source{name: name, rc: f, size: size})
	}
	return r, nil
}

// Close closes every capture the reader opened.
func (r *Reader) Close() error {
	for _, s := range r.sources {
		s.rc.Close()
	}
	return nil
}

// Stats returns the counts so far.
func (r *Reader) Stats() Stats { return r.stats }

// Progress returns the bytes of the captures read so far, as stored
// (before decompression), and their total size, -1 when unknown. Unlike
// the other methods it may be called from any goroutine.
func (r *Reader) Progress() (read, total int64) {
	for _, s := range r.sources {
		if s.size < 0 {
			return r.raw.Load(), -1
		}
		total += s.size
	}
	return r.raw.Load(), total
}

// next moves to the following source; it reports false after the last.
func (r *Reader) nextSource() (bool, error) {
	r.cur++
	if r.cur >= len(r.sources) {
		return false, nil
	}
	s := r.sources[r.cur]
	in, err := decompress(bufio.NewReaderSize(countingReader{s.rc, &r.raw}, 64<<10))
	if err != nil {
		return false, &InputError{Name: s.name, Err: err}
	}
	r.in, r.name, r.eof, r.num, r.off = in, s.name, false, 0, 0
	r.r, r.w = 0, 0
	r.stats.Files++
	return true, nil
}

// Next returns the next non-blank line, or io.EOF after the last one.
func (r *Reader) Next() (Line, error) {
	for {
		if r.in == nil {
			ok, err := r.nextSource()
			if err != nil || !ok {
				if err == nil {
					err = io.EOF
				}
				return Line{}, err
			}
		}
		l, ok, err := r.line()
		if err != nil {
			return Line{}, err
		}
		if !ok {
			r.in = nil
			continue
		}
		r.stats.Lines++
		if (!l.TooLong && isJSBlank(l.Data)) || l.blank {
			r.stats.Blank++
			continue
		}
		return l, nil
	}
}

// line returns the next physical line of the current source, or false at
// its end.
func (r *Reader) line() (Line, bool, error) {
	scanned := 0
	for {
		if i := bytes.IndexByte(r.buf[r.r+scanned:r.w], '\n'); i >= 0 {
			end := r.r + scanned + i
			return r.emit(r.buf[r.r:end], end+1-r.r), true, nil
		}
		scanned = r.w - r.r
		if scanned > r.maxLine+1 { // +1: a CR before the newline does not count
			return r.discard()
		}
		if r.eof {
			if r.w > r.r {
				return r.emit(r.buf[r.r:r.w], r.w-r.r), true, nil
			}
			return Line{}, false, nil
		}
		if err := r.fill(); err != nil {
			return Line{}, false, err
		}
	}
}

func (r *Reader) emit(data []byte, consumed int) Line {
	r.num++
	l := Line{File: r.name, Num: r.num, Off: r.off, Len: int64(len(data))}
	if n := len(data); n > 0 && data[n-1] == '\r' {
		data = data[:n-1]
	}
	if len(data) > r.maxLine {
		l.TooLong, l.Len, l.blank = true, int64(len(data)), isJSBlank(data)
		data = nil
	}
	l.Data = data
	r.r += consumed
	r.off += int64(consumed)
	return l
}

// discard skips the rest of a line longer than maxLine, counting it and
// noting whether it was only whitespace (then it is blank, not an event).
func (r *Reader) discard() (Line, bool, error) {
	r.num++
	l := Line{File: r.name, Num: r.num, Off: r.off, TooLong: true}
	n := int64(0)
	ws := blankScan{blank: true}
	var last byte
	for {
		seg := r.buf[r.r:r.w]
		i := bytes.IndexByte(seg, '\n')
		if i >= 0 {
			seg = seg[:i]
		}
		ws.add(seg)
		n += int64(len(seg))
		if len(seg) > 0 {
			last = seg[len(seg)-1]
		}
		if i >= 0 || r.eof {
			r.off += n
			if i >= 0 {
				r.r += i + 1
				r.off++
			} else {
				r.r, r.w = 0, 0
			}
			if last == '\r' {
				n-- // the CR of a CRLF ending is not part of the line
			}
			l.Len, l.blank = n, ws.done()
			return l, true, nil
		}
		r.r, r.w = 0, 0
		if err := r.fill(); err != nil {
			return Line{}, false, err
		}
	}
}

// blankScan tells whether a line seen in pieces is all JavaScript
// whitespace, carrying a character split between two pieces.
type blankScan struct {
	blank bool
	carry [utf8.UTFMax]byte
	nc    int
}

func (s *blankScan) add(b []byte) {
	for s.blank && s.nc > 0 && len(b) > 0 {
		s.carry[s.nc] = b[0]
		s.nc++
		b = b[1:]
		if utf8.FullRune(s.carry[:s.nc]) {
			s.blank = isJSBlank(s.carry[:s.nc])
			s.nc = 0
		}
	}
	if !s.blank || len(b) == 0 {
		return
	}
	cut := len(b)
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				cut = i
			}
			break
		}
	}
	s.blank = isJSBlank(b[:cut])
	s.nc = copy(s.carry[:], b[cut:])
}

func (s *blankScan) done() bool { return s.blank && s.nc == 0 }

// fill reads more input into the buffer, growing it when it is full.
func (r *Reader) fill() error {
	if r.r > 0 {
		r.w = copy(r.buf, r.buf[r.r:r.w])
		r.r = 0
	}
	if r.w == len(r.buf) {
		// Double, but never far past what a line may hold: a longer line
		// is discarded as soon as it passes maxLine.
		size := 2 * len(r.buf)
		if limit := r.maxLine + 64<<10; size > limit {
			size = limit
		}
		if size < 256<<10 {
			size = 256 << 10
		}
		nb := make([]byte, size)
		copy(nb, r.buf[:r.w])
		r.buf = nb
	}
	if r.OnFill != nil {
		r.OnFill()
	}
	n, err := r.in.Read(r.buf[r.w:])
	r.w += n
	r.stats.Bytes += int64(n)
	if err == io.EOF {
		r.eof = true
		return nil
	}
	if err != nil {
		return &InputError{Name: r.name, Err: err}
	}
	return nil
}

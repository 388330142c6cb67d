package replay

import (
	"bytes"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/agentskit/snapctl/internal/poison"
	"github.com/agentskit/snapctl/replay/internal/wire"
)

// DefaultMaxLine is the longest line decoded by default; a longer line is
// reported as malformed without being held in memory.
const DefaultMaxLine = 64 << 20

// MaxLineLimit is the largest line limit a Reader accepts, and the longest
// line a Decoder decodes: 1 GiB. Every offset in a line then fits in the
// decoder's 32 bits with room to spare, and the reader's buffer
// arithmetic (the limit plus a 64 KiB read) stays far from overflowing an
// int.
const MaxLineLimit = wire.MaxLine

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
	// Origin is what the capture's format says of the event beyond its
	// position (a log timestamp, an SSE id, a HAR entry); nil for NDJSON.
	// For a format that joins several lines into one event, Num and Off
	// are those of its first line.
	Origin *Origin
	// Unterminated is set on a capture's last line when no newline ends
	// it.
	Unterminated bool
	blank        bool         // a too-long line of whitespace only
	bad          *DecodeError // the format did not carry the event whole
	// cut is set with bad when the format's event breaks off where the
	// capture ends (Result.Cut).
	cut bool
	// framed is set on every line of a capture of another format than
	// NDJSON, Origin or not (Options.RawFramed); see isFramed.
	framed bool
}

// isFramed says whether the line's offset is a transport's, not the
// event's: a framer's line, or one with an Origin (a record capture's).
func (l *Line) isFramed() bool { return l.framed || l.Origin != nil }

// Stats counts what a Reader has read.
type Stats struct {
	Files int
	Bytes int64 // after decompression
	Lines int   // physical lines, blank ones included
	Blank int   // empty or whitespace-only lines, which are not events
	// Context counts the context records of captures snapctl record
	// wrote: framing that says whose the lines after it are, not events.
	Context int
	// TooLong counts the lines over the limit that are not blank: each is
	// a malformed event that was never decoded. In a Runner's Summary, of
	// a run with a window, only those the window kept.
	TooLong int
	// Damaged counts the captures that stopped before their end
	// (DamageError); Damage is the first of them.
	Damaged int
	Damage  *DamageError
	// Mixed lists the captures that --format auto read partly otherwise
	// than in their format, with the lines it read so.
	Mixed []*Mixed
	// Formats lists the formats of the captures read, each once, in the
	// order they were first met.
	Formats []Format
	// Stopped is set when the reader's Budget ended the reading before
	// the captures' end.
	Stopped bool
	// HAREntries counts the HAR entries that carry turn events, HARKept
	// those of them a URL filter (Reader.SetURLFilter) kept: all of them
	// without one. URLs holds, under a filter, the first MaxURLsNoted
	// distinct request URLs of the entries it left out, so that a filter
	// that keeps nothing can be answered with what there is.
	HAREntries, HARKept int
	URLs                []string
	// Window is the part of the captures the run kept (Options.Window),
	// nil for all of them; LeftOut counts the events and malformed lines
	// it left out, which no count of events includes. Runner.Summary sets
	// both.
	Window  *Window
	LeftOut int
}

// MaxURLsNoted is how many request URLs Stats.URLs holds at most: a
// handful to copy from, whatever the number of entries.
const MaxURLsNoted = 5

// noteURL adds url to s.URLs unless it is there or the list is full.
func (s *Stats) noteURL(url string) {
	if len(s.URLs) < MaxURLsNoted && !slices.Contains(s.URLs, url) {
		s.URLs = append(s.URLs, url)
	}
}

// Complete reports whether every capture was read to its end.
func (s Stats) Complete() bool { return s.Damaged == 0 }

// Reader reads one or more captures in order as one stream of lines. It
// owns one buffer, which grows to the longest line it has to hold, and
// holds one capture open at a time: each is opened when the stream
// reaches it and closed at its end.
//
// Damage does not stop the reader: every line read before it is
// delivered, then the reader goes on with the next capture. Next returns
// io.EOF after the last line; Err then tells whether anything was
// damaged, as bufio.Scanner's Err does.
type Reader struct {
	// onFill, when set, is called before the reader waits for more input,
	// so that output can be flushed while a live stream is idle (Run sets
	// it from Options.Idle).
	onFill func()
	// swap, when set, is given the buffer before the reader moves the
	// rest of it (a line not yet whole) to its start to read more: the
	// lines delivered from it still point into it, and their owner (the
	// pipeline's batches) keeps it. swap returns the buffer to go on in,
	// at least need bytes long.
	swap func(old []byte, need int) []byte

	maxLine int
	format  Format // asked for; FormatAuto sniffs each capture
	frame   framer // of the capture being read; nil for NDJSON
	// mix notes, under --format auto, the lines of the capture read other
	// than in its format; skip is the last line of an NDJSON capture's
	// prefix of framing, after counts its non-blank lines after that.
	mix      *mixer
	skip     int
	after    int
	har      *harReader
	url      string // HAR: only entries whose URL holds it
	stdin    io.Reader
	sources  []source
	cur      int
	src      *stream // the capture being read, nil between captures
	name     string  // its name
	buf      []byte
	r, w     int
	full     bool // the last read filled the buffer: the source has more
	eof      bool
	num      int
	off      int64
	stats    Stats
	warnings []error
	raw      atomic.Int64
	budget   *budget // nil: read everything
	// newHash, when set, hashes each capture as stored into stored
	// (HashStored).
	newHash func() hash.Hash
	stored  []StoredFile

	// mu guards what Close, Err and Warnings touch, since they may be
	// called while Run's reading goroutine is still going.
	mu     sync.Mutex
	closed bool
	file   *os.File // the open file of src, for Close

	// mapOK, set by Run, lets the reader map regular files of plain lines
	// (mapped.go) into maps. inMap tells that buf is a window of the
	// capture being read, heap is then the reader's own buffer, and lost
	// names the captures whose mapped bytes were gone.
	mapOK bool
	maps  mappings
	// onRetire, when set, takes a mapping no line is read from any more
	// once the lines delivered are done with (retire).
	onRetire func(m []byte)
	inMap    bool
	heap     []byte
	lost     []string

	// stop is the cause given to Stop; cut is set when it made a read
	// fail, and stopped once Next has recorded it.
	stop         atomic.Pointer[error]
	cut, stopped bool
}

// Open checks every named capture before anything is read, so that a
// missing or unreadable file is reported before any output: a regular
// file is opened and closed again, a fifo or device only looked up, since
// opening a fifo waits for its writer. Each capture is opened again when
// the reader reaches it. "-" is stdin. Compressed captures are recognised
// by their first bytes. maxLine 0 means DefaultMaxLine; above
// MaxLineLimit is an error.
func Open(names []string, stdin io.Reader, maxLine int) (*Reader, error) {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	if maxLine > MaxLineLimit {
		return nil, fmt.Errorf("line limit %d is over the %d-byte maximum", maxLine, MaxLineLimit)
	}
	r := &Reader{maxLine: maxLine, stdin: stdin, cur: -1, format: FormatAuto}
	stdinNamed := false
	for _, name := range names {
		if name == StdinName {
			// Standard input is read through once: a second "-" would be
			// a capture of nothing, counted as a file.
			if stdinNamed {
				return nil, errors.New(StdinLabel + " is named more than once: it can be read only once")
			}
			stdinNamed = true
			r.sources = append(r.sources, source{name: name, size: -1, stdin: true})
			continue
		}
		fi, err := check(name)
		if err != nil {
			return nil, &InputError{Name: name, Err: err}
		}
		size := int64(-1)
		if fi.Mode().IsRegular() {
			size = fi.Size()
		}
		r.sources = append(r.sources, source{name: name, size: size})
	}
	return r, nil
}

// DistinctFiles refuses a capture file named twice in names (under one
// name or two, or through a link: os.SameFile), as Open refuses
// standard input named twice: read as one stream, its lines would come
// again as more of it, every snapshot a duplicate, and two lines would
// print at one position. A fifo or device can be read only once. Names
// that cannot be looked up are left to Open. StdinName is stdin, the
// reader Open is given, when that is a file (os.Stdin): standard input
// redirected from a capture that is named too (- capture.jsonl
// <capture.jsonl, - /dev/stdin) is that capture named twice. The CLI
// calls it before reading; Open itself reads a file twice when asked to.
func DistinctFiles(names []string, stdin io.Reader) error {
	var seen namedFiles
	for _, name := range names {
		fi, err := StatCapture(name, stdin)
		if err != nil || fi.IsDir() {
			continue
		}
		if name == StdinName {
			name = StdinLabel
		}
		if err := seen.add(name, fi); err != nil {
			return err
		}
	}
	return nil
}

// StdinLabel is how a message names the capture StdinName reads.
const StdinLabel = `standard input ("-")`

// StatCapture is the file a capture name reads: the named file, or for
// StdinName the file behind stdin, when it is one (a redirect, not a
// pipe from another program: an error then).
func StatCapture(name string, stdin io.Reader) (os.FileInfo, error) {
	if name != StdinName {
		return os.Stat(name)
	}
	if f, ok := stdin.(interface{ Stat() (os.FileInfo, error) }); ok {
		return f.Stat()
	}
	return nil, errors.New("standard input is not a file")
}

// namedFiles are the files DistinctFiles has seen: by device and inode
// where the platform gives them (fileID), else grouped by size and
// compared with os.SameFile, so that comparing them costs one lookup a
// file however many are named.
type namedFiles struct {
	byID   map[any]string // the name each file was first named by
	bySize map[int64][]namedFile
}

type namedFile struct {
	name string
	fi   os.FileInfo
}

func (s *namedFiles) add(name string, fi os.FileInfo) error {
	size := int64(-1)
	if fi.Mode().IsRegular() {
		size = fi.Size()
	}
	if id, ok := fileID(fi); ok {
		if s.byID == nil {
			s.byID = map[any]string{}
		}
		if earlier, ok := s.byID[id]; ok {
			return namedTwice(earlier, name, size)
		}
		s.byID[id] = name
		return nil
	}
	if s.bySize == nil {
		s.bySize = map[int64][]namedFile{}
	}
	for _, f := range s.bySize[size] {
		if os.SameFile(f.fi, fi) {
			return namedTwice(f.name, name, size)
		}
	}
	s.bySize[size] = append(s.bySize[size], namedFile{name, fi})
	return nil
}

// namedTwice is the error for one file named first as earlier, then as
// name; size is -1 for a fifo or a device.
func namedTwice(earlier, name string, size int64) error {
	switch {
	case size < 0 && earlier == name:
		return fmt.Errorf("%s is named more than once: it can be read only once", name)
	case size < 0:
		return fmt.Errorf("%s and %s are the same file, named twice: it can be read only once", earlier, name)
	case earlier == name:
		return fmt.Errorf("%s is named more than once: its lines would be read twice, at the same positions", name)
	}
	return fmt.Errorf("%s and %s are the same file, named twice: its lines would be read twice", earlier, name)
}

// check tells whether the capture name can be read, and what it is.
func check(name string) (os.FileInfo, error) {
	fi, err := os.Stat(name)
	switch {
	case err != nil:
		return nil, err
	case fi.IsDir():
		return nil, errors.New("is a directory")
	case !fi.Mode().IsRegular():
		return fi, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	f.Close()
	return fi, nil
}

// Close closes the capture being read, if any, and stops the reader: Next
// returns what it has buffered, then io.EOF. It may be called from any
// goroutine, also while another is reading in Next.
func (r *Reader) Close() error {
	r.mu.Lock()
	f := r.file
	r.closed, r.file = true, nil
	r.mu.Unlock()
	if f != nil {
		f.Close() // a Read blocked on it returns, with an error Next ignores
	}
	return nil
}

// Stop ends the reading early, from any goroutine, as damage: Next
// delivers no line after the one it is reading, records a *DamageError
// whose Stopped is set and whose Err is cause for the capture it stopped
// in (none when every capture had been read), and returns io.EOF. A read
// blocked on a file is interrupted by closing it; one blocked on the
// standard input given to Open returns only when that reader does.
func (r *Reader) Stop(cause error) {
	if !r.stop.CompareAndSwap(nil, &cause) {
		return
	}
	r.mu.Lock()
	f := r.file
	r.mu.Unlock()
	if f != nil {
		f.Close() // the read fails, and Next records the stop instead
	}
}

// stopHere records the stop asked for with cause at the current
// position, once, and closes the capture being read.
func (r *Reader) stopHere(cause error) {
	if r.stopped {
		return
	}
	r.stopped = true
	d := &DamageError{Offset: r.off, Decoded: r.off, Stopped: true, Err: cause}
	switch {
	case r.src != nil:
		d.Name, d.Format = r.name, r.src.format
		if d.Format != "" {
			d.Offset = r.src.pos()
		}
		r.src.stopped = true
		r.endSource()
	case r.cur+1 < len(r.sources):
		d.Name, d.Offset, d.Decoded = r.sources[r.cur+1].name, 0, 0
	default:
		return // every capture was read to its end
	}
	r.damaged(d)
}

func (r *Reader) isClosed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

// Stats returns the counts so far.
func (r *Reader) Stats() Stats {
	s := r.stats
	s.Stopped = r.budget != nil && r.budget.spent
	return s
}

// Err returns the damage the reader met, nil when every capture was read
// to its end. When several captures were damaged, it names the first and
// counts the others; errors.As finds the first *DamageError. It may be
// called from any goroutine.
func (r *Reader) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.stats.Damaged == 0:
		return nil
	case r.stats.Damaged == 1:
		return r.stats.Damage
	}
	return &moreDamage{first: r.stats.Damage, more: r.stats.Damaged - 1}
}

// Warnings returns what went wrong without stopping a capture: files that
// shrank while being read (*ShrinkError), and captures --format auto
// read partly in another format (*Mixed). It may be called from any
// goroutine.
func (r *Reader) Warnings() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]error(nil), r.warnings...)
}

// Progress returns the bytes of the captures read so far, as stored
// (before decompression), and their total size from when they were
// checked, -1 when unknown. Unlike the other methods it may be called
// from any goroutine.
func (r *Reader) Progress() (read, total int64) {
	for _, s := range r.sources {
		if s.size < 0 {
			return r.raw.Load(), -1
		}
		total += s.size
	}
	return r.raw.Load(), total
}

// nextSource opens the following capture; it reports false after the
// last. A capture that cannot be opened any more is damage, and skipped.
func (r *Reader) nextSource() bool {
	for {
		r.cur++
		if r.cur >= len(r.sources) {
			return false
		}
		s := r.sources[r.cur]
		r.stats.Files++
		sum, stored := r.hashTo()
		st, err := openStream(s, r.stdin, &r.raw, r.budget, sum, stored)
		if err != nil {
			d, ok := err.(*DamageError)
			if !ok {
				d = &DamageError{Name: s.name, Offset: -1, Err: err}
			}
			r.damaged(d)
			continue
		}
		if r.mapOK && st.format == "" && st.file != nil && st.budget == nil {
			st.mapIn(&r.maps)
		}
		r.mu.Lock()
		closed := r.closed
		if !closed {
			r.file = st.file
		}
		r.mu.Unlock()
		if closed {
			st.stopped = true
			st.close()
			return false
		}
		r.src, r.name, r.eof, r.num, r.off = st, s.name, false, 0, 0
		r.empty()
		r.startFormat()
		r.unmapFramed()
		return true
	}
}

// endSource closes the capture that has been read to its end.
func (r *Reader) endSource() {
	r.endFormat()
	r.mu.Lock()
	r.file = nil
	r.mu.Unlock()
	w := r.src.close()
	r.retire(r.src)
	r.src = nil
	if w != nil {
		r.mu.Lock()
		r.warnings = append(r.warnings, w)
		r.mu.Unlock()
	}
}

func (r *Reader) damaged(d *DamageError) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stats.Damaged == 0 {
		r.stats.Damage = d
	}
	r.stats.Damaged++
}

// Next returns the next event: a non-blank line of an NDJSON capture, or
// what another format's framer made of its lines. It returns io.EOF
// after the last one, and no other error: see Err.
func (r *Reader) Next() (l Line, err error) {
	// The framer is the one of the capture the line came from: next
	// returns a capture's last line before it leaves it.
	defer func() { l.framed = r.har != nil || r.frame != nil }()
	if !r.mapOK {
		return r.next()
	}
	for {
		if l, err, ok := r.nextGuarded(); ok {
			return l, err
		}
	}
}

func (r *Reader) next() (Line, error) {
	for {
		if cause := r.stop.Load(); cause != nil {
			r.stopHere(*cause)
			return Line{}, io.EOF
		}
		if r.src == nil && !r.nextSource() {
			return Line{}, io.EOF
		}
		if r.har != nil {
			l, ok := r.har.next()
			if !ok {
				r.endSource()
				continue
			}
			if l.TooLong {
				r.stats.TooLong++
			}
			return l, nil
		}
		if r.frame != nil {
			if l, ok := r.frame.pending(); ok {
				if l.TooLong {
					r.stats.TooLong++
				} else if l.bad == nil && wire.IsBlank(l.Data) {
					continue
				}
				return l, nil
			}
		}
		l, ok := r.line()
		if !ok && r.cut {
			continue // a line cut by Stop is not delivered
		}
		if !ok {
			if r.frame != nil {
				if l, ok := r.frame.flush(); ok {
					return l, nil
				}
			}
			r.endSource()
			continue
		}
		r.stats.Lines++
		blank := (!l.TooLong && wire.IsBlank(l.Data)) || l.blank
		if blank {
			r.stats.Blank++
		}
		if r.frame != nil {
			num := l.Num
			if r.mix != nil && num == 1 && !l.TooLong {
				l.Data = bytes.TrimPrefix(l.Data, utf8BOM) // as a browser strips it
			}
			l, ok = r.frame.line(l)
			if !blank {
				r.mix.placed(num)
			}
			if !ok || (!l.TooLong && l.bad == nil && wire.IsBlank(l.Data)) {
				continue
			}
		} else if blank {
			continue
		} else if l.Num <= r.skip {
			continue // framing, reported by endFormat
		} else if r.skip > 0 {
			r.after++
		}
		if l.TooLong {
			r.stats.TooLong++
		}
		return l, nil
	}
}

// line returns the next physical line of the current source, or false at
// its end.
func (r *Reader) line() (Line, bool) {
	scanned := 0
	for {
		if i := bytes.IndexByte(r.buf[r.r+scanned:r.w], '\n'); i >= 0 {
			end := r.r + scanned + i
			return r.emit(r.buf[r.r:end], end+1-r.r), true
		}
		scanned = r.w - r.r
		if scanned > r.maxLine+1 { // +1: a CR before the newline does not count
			return r.discard()
		}
		if r.eof {
			if r.w > r.r && !r.cut {
				l := r.emit(r.buf[r.r:r.w], r.w-r.r)
				l.Unterminated = true
				return l, true
			}
			return Line{}, false
		}
		r.fill()
	}
}

// inBuffer reports whether b lies in the reader's buffer.
func (r *Reader) inBuffer(b []byte) bool {
	if len(b) == 0 || len(r.buf) == 0 {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(r.buf)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return p >= start && p+uintptr(len(b)) <= start+uintptr(len(r.buf))
}

func (r *Reader) emit(data []byte, consumed int) Line {
	r.num++
	l := Line{File: r.name, Num: r.num, Off: r.off, Len: int64(len(data))}
	if n := len(data); n > 0 && data[n-1] == '\r' {
		data = data[:n-1]
	}
	if len(data) > r.maxLine {
		l.TooLong, l.Len, l.blank = true, int64(len(data)), wire.IsBlank(data)
		data = nil
	}
	l.Data = data
	r.r += consumed
	r.off += int64(consumed)
	return l
}

// discard skips the rest of a line longer than maxLine, counting it and
// noting whether it was only whitespace (then it is blank, not an event).
func (r *Reader) discard() (Line, bool) {
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
				r.empty()
			}
			if last == '\r' {
				n-- // the CR of a CRLF ending is not part of the line
			}
			l.Len, l.blank = n, ws.done()
			return l, true
		}
		r.empty()
		r.fill()
	}
}

// empty lets go of the buffer's bytes to read new ones from its start:
// the lines delivered from it may still point into it (see swap).
func (r *Reader) empty() {
	if r.inMap {
		// A window of the mapping: nothing to hand over.
		r.outOfMap()
		r.r, r.w = 0, 0
		return
	}
	if r.swap != nil && r.w > 0 {
		r.buf = r.swap(r.buf, 0)
	}
	r.r, r.w = 0, 0
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
			s.blank = wire.IsBlank(s.carry[:s.nc])
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
	s.blank = wire.IsBlank(b[:cut])
	s.nc = copy(s.carry[:], b[cut:])
}

func (s *blankScan) done() bool { return s.blank && s.nc == 0 }

// The line buffer starts at firstReadSize bytes and grows to readSize
// while the source has more to give, more when a line needs it.
const (
	firstReadSize = 16 << 10
	readSize      = 256 << 10
)

// fill reads more input into the buffer, growing it when it is full. An
// error ends the capture like its end would, once the bytes read with it
// are in the buffer: the lines before the damage are all delivered.
func (r *Reader) fill() {
	if r.src.m != nil {
		r.fillMapped()
		return
	}
	switch {
	case r.r > 0 && r.swap != nil:
		old := r.buf
		r.buf = r.swap(old, r.w-r.r)
		r.w, r.r = copy(r.buf, old[r.r:r.w]), 0
	case r.r > 0:
		if poison.Released {
			poison.Fill(r.buf[:r.r])
		}
		r.w, r.r = copy(r.buf, r.buf[r.r:r.w]), 0
	}
	// Grow when a line does not fit, and while the source fills the
	// buffer at each read, up to readSize: a small capture costs a small
	// buffer, a large one soon reads readSize at a time. Double, but
	// never far past what a line may hold: a longer line is discarded as
	// soon as it passes maxLine.
	if r.w == len(r.buf) || (r.full && len(r.buf) < readSize) {
		size := max(2*len(r.buf), firstReadSize)
		if limit := r.maxLine + 64<<10; size > limit {
			size = limit
		}
		if size > len(r.buf) {
			nb := make([]byte, size)
			copy(nb, r.buf[:r.w])
			r.buf = nb
		}
	}
	if r.onFill != nil {
		r.onFill()
	}
	n, err := r.src.Read(r.buf[r.w:])
	r.full = r.w+n == len(r.buf)
	r.w += n
	r.stats.Bytes += int64(n)
	if err == nil {
		return
	}
	r.eof = true
	if r.stop.Load() != nil && err != io.EOF {
		r.cut = true // Next records the stop instead
		return
	}
	var d *DamageError
	if errors.As(err, &d) && !r.isClosed() {
		r.damaged(d)
	}
}

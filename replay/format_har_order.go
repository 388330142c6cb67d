package replay

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"time"
)

// harSlot is an entry whose events count, as the index pass found it:
// where its values are, so that the read pass reads them from there, in
// whichever order the entries are due. Entries without events take no
// slot, so a HAR of ten million pages costs no memory.
type harSlot struct {
	sec   int64 // startedDateTime
	url   int64 // offsets in the document of the request URL, the response text and the WebSocket messages; -1 when absent
	text  int64
	ws    int64
	end   int64 // the offset just past the entry
	entry int32 // 1-based, in the document's order
	nsec  int32
	flags uint8
}

const (
	slotText      = 1 << iota // the response text holds turn events
	slotBase64                // the response text is base64
	slotBadBase64             // the response text is not base64, as its encoding says
	slotWS                    // a received WebSocket message holds turn events
)

func (a *harSlot) before(b *harSlot) bool {
	return a.sec < b.sec || a.sec == b.sec && a.nsec < b.nsec
}

// maxHARSpool is how much of a HAR that cannot be read again in place
// (compressed, or standard input) snapctl keeps on disk to read its
// entries in their order.
const maxHARSpool = 16 << 30

var errSpoolFull = fmt.Errorf("the document is over %d GiB decompressed, more than snapctl keeps on disk to read it", maxHARSpool>>30)

// spool keeps what is read of a capture in an unlinked temporary file.
type spool struct {
	in io.Reader
	f  *os.File
	w  *bufio.Writer
	n  int64
}

func newSpool(in io.Reader) (*spool, error) {
	f, err := os.CreateTemp("", "snapctl-har-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name()) // where the system allows it, gone with the process
	return &spool{in: in, f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

func (s *spool) Read(p []byte) (int, error) {
	n, err := s.in.Read(p)
	if s.n += int64(n); s.n > maxHARSpool {
		return 0, errSpoolFull
	}
	if _, werr := s.w.Write(p[:n]); werr != nil {
		return 0, werr
	}
	return n, err
}

// index reads the document once through, from in, keeping a slot for
// each entry whose events count, in startedDateTime order (an entry
// whose time does not parse keeps its place after the one before it),
// and what stopped the pass if the document is not whole. It returns
// where to read the slots' values.
func (h *harReader) index(in io.Reader) (io.ReaderAt, func(), error) {
	var doc io.ReaderAt
	done := func() {}
	flush := func() error { return nil }
	if h.seekable {
		f, err := os.Open(h.name)
		if err != nil {
			return nil, done, err
		}
		doc, done = f, func() { f.Close() }
	} else {
		sp, err := newSpool(in)
		if err != nil {
			return nil, done, err
		}
		in, doc = sp, sp.f
		done = func() { sp.f.Close(); os.Remove(sp.f.Name()) }
		flush = sp.w.Flush
	}
	s := newJSONScan(in, 0)
	ix := harIndexer{h: h, s: s}
	err := ix.document()
	if ferr := flush(); err == nil {
		err = ferr
	}
	if err != nil {
		h.fail = h.bad(err, ix.entries+1, s.off)
	}
	io.Copy(io.Discard, h.in) // the rest counts as read, damage and all
	if !sort.SliceIsSorted(h.slots, func(a, b int) bool { return h.slots[a].before(&h.slots[b]) }) {
		sort.SliceStable(h.slots, func(a, b int) bool { return h.slots[a].before(&h.slots[b]) })
	}
	return doc, done, nil
}

// harIndexer is the index pass over one document.
type harIndexer struct {
	h       *harReader
	s       *jsonScan
	entries int       // entries read whole
	last    time.Time // the time of the entry before
	buf     []byte
	// The finders of the text being read, kept for their buffers.
	plain, decoded markerFinder
	b64            b64Finder
}

var errNotHAR = errors.New("not a HAR document")

// document reads the document's object down to log.entries.
func (ix *harIndexer) document() error {
	s := ix.s
	var log, entries bool
	err := ix.want('{', func() error {
		return s.members(func(key string) error {
			if key != "log" || log {
				return s.skip()
			}
			log = true
			return ix.want('{', func() error {
				return s.members(func(key string) error {
					if key != "entries" || entries {
						return s.skip()
					}
					entries = true
					return ix.want('[', func() error { return s.elements(ix.entry) })
				})
			})
		})
	})
	switch {
	case err != nil:
		return err
	case !log:
		return fmt.Errorf("%w: no %q", errNotHAR, "log")
	case !entries:
		return fmt.Errorf("%w: no %q", errNotHAR, "entries")
	}
	return nil
}

// want reads the value that comes next with read when it starts with
// c, and is an error that the document is not a HAR when not.
func (ix *harIndexer) want(c byte, read func() error) error {
	got, err := ix.s.peek()
	if err != nil {
		return err
	}
	if got != c {
		kind := "a value"
		switch got {
		case '{', '}', '[', ']':
			kind = string(got)
		case '"':
			kind = "a string"
		case 'n':
			kind = "null"
		}
		return fmt.Errorf("%w: %s where %c was expected", errNotHAR, kind, c)
	}
	return read()
}

// ifNext reads the value that comes next with read when it starts with
// c, and skips it when not: a field of another type is no field.
func (s *jsonScan) ifNext(c byte, read func() error) error {
	got, err := s.peek()
	if err != nil {
		return err
	}
	if got != c {
		return s.skip()
	}
	return read()
}

// entry reads one entry, keeping a slot for it when its events count.
func (ix *harIndexer) entry() error {
	s, h := ix.s, ix.h
	slot := harSlot{url: -1, text: -1, ws: -1, entry: int32(ix.entries + 1)}
	var started, url, encoding string
	var raw, decoded bool // the text holds the turn marker, as is and base64-decoded
	b64 := true           // the text is base64
	err := s.ifNext('{', func() error {
		return s.members(func(key string) error {
			var err error
			switch key {
			case "startedDateTime":
				err = s.ifNext('"', func() (err error) { started, _, err = s.stringValue(64); return })
			case "request":
				err = s.ifNext('{', func() error {
					return s.members(func(key string) error {
						if key != "url" {
							return s.skip()
						}
						return s.ifNext('"', func() (err error) {
							slot.url = s.off
							url, _, err = s.stringValue(h.maxLine)
							return
						})
					})
				})
			case "response":
				err = s.ifNext('{', func() error {
					return s.members(func(key string) error {
						if key != "content" {
							return s.skip()
						}
						return s.ifNext('{', func() error {
							return s.members(func(key string) error {
								switch key {
								case "text":
									return s.ifNext('"', func() (err error) {
										slot.text = s.off
										raw, decoded, b64, err = ix.text()
										return
									})
								case "encoding":
									return s.ifNext('"', func() (err error) { encoding, _, err = s.stringValue(64); return })
								}
								return s.skip()
							})
						})
					})
				})
			case "_webSocketMessages":
				err = s.ifNext('[', func() error {
					slot.ws = s.off
					return s.elements(func() error {
						turns, err := ix.message()
						if turns {
							slot.flags |= slotWS
						}
						return err
					})
				})
			default:
				err = s.skip()
			}
			return err
		})
	})
	if err != nil {
		return err
	}
	slot.end = s.off
	ix.entries++
	t := ix.last
	if started != "" { // parsing nothing would allocate its error, for every entry
		if pt, err := time.Parse(time.RFC3339Nano, started); err == nil {
			t = pt
		}
	}
	ix.last = t
	slot.sec, slot.nsec = t.Unix(), int32(t.Nanosecond())
	switch {
	case slot.text < 0:
	case encoding != "base64":
		if raw {
			slot.flags |= slotText
		}
	case !b64:
		slot.flags |= slotBadBase64
	case decoded:
		slot.flags |= slotText | slotBase64
	}
	if slot.flags != 0 && (h.url == "" || bytes.Contains([]byte(url), []byte(h.url))) {
		h.slots = append(h.slots, slot)
	}
	return nil
}

// text reads a response text whose encoding may come after it: whether
// it holds the turn marker as it is, and base64-decoded, and whether it
// is base64.
func (ix *harIndexer) text() (raw, decoded, b64 bool, err error) {
	if err := ix.s.expect('"'); err != nil {
		return false, false, false, err
	}
	plain, dec, b := &ix.plain, &ix.decoded, &ix.b64
	plain.reset()
	dec.reset()
	b.reset(dec)
	if err := ix.stream(func(p []byte) { plain.write(p); b.write(p) }); err != nil {
		return false, false, false, err
	}
	b.close()
	return plain.found, dec.found, !b.bad, nil
}

// message reads a WebSocket message: whether it is received and holds
// the turn marker.
func (ix *harIndexer) message() (bool, error) {
	s := ix.s
	var typ string
	m := &ix.plain
	m.reset()
	err := s.ifNext('{', func() error {
		return s.members(func(key string) error {
			switch key {
			case "type":
				return s.ifNext('"', func() (err error) { typ, _, err = s.stringValue(64); return })
			case "data":
				return s.ifNext('"', func() error {
					s.readByte()
					return ix.stream(m.write)
				})
			}
			return s.skip()
		})
	})
	return typ == "receive" && m.found, err
}

// stream passes the text of the string whose opening quote was read to
// write, a buffer at a time.
func (ix *harIndexer) stream(write func([]byte)) error {
	if ix.buf == nil {
		ix.buf = make([]byte, 32<<10)
	}
	str := jsonString{s: ix.s}
	for {
		n, err := str.Read(ix.buf)
		write(ix.buf[:n])
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// markerFinder looks for the turn marker in a text written to it a piece
// at a time.
type markerFinder struct {
	found bool
	tail  []byte // the last bytes written, shorter than the marker
}

func (m *markerFinder) reset() { m.found, m.tail = false, m.tail[:0] }

func (m *markerFinder) write(p []byte) {
	if m.found || len(p) == 0 {
		return
	}
	k := len(turnMarker) - 1
	joint := append(m.tail, p[:min(k, len(p))]...)
	if bytes.Contains(joint, turnMarker) || bytes.Contains(p, turnMarker) {
		m.found = true
		return
	}
	if len(p) >= k {
		m.tail = append(m.tail[:0], p[len(p)-k:]...)
	} else {
		m.tail = append(m.tail[:0], joint[max(0, len(joint)-k):]...)
	}
}

// b64Finder decodes base64 written to it a piece at a time into out,
// ignoring line breaks as encoding/base64 does, and tells whether it
// was base64.
type b64Finder struct {
	out    *markerFinder
	q      []byte // characters not yet decoded
	dec    []byte
	padded bool // the last quantum decoded was padded: nothing may follow
	bad    bool
}

func (b *b64Finder) reset(out *markerFinder) {
	b.out, b.q, b.padded, b.bad = out, b.q[:0], false, false
}

func (b *b64Finder) write(p []byte) {
	for _, c := range p {
		if b.bad {
			return
		}
		if c == '\r' || c == '\n' {
			continue
		}
		if b.padded || !isBase64Byte(c) {
			b.bad = true
			return
		}
		b.q = append(b.q, c)
		if len(b.q) == 4<<10 {
			b.flush()
		}
	}
}

func (b *b64Finder) flush() {
	if b.bad || len(b.q) == 0 {
		return
	}
	if len(b.dec) < base64.StdEncoding.DecodedLen(len(b.q)) {
		b.dec = make([]byte, base64.StdEncoding.DecodedLen(4<<10))
	}
	n, err := base64.StdEncoding.Decode(b.dec, b.q)
	if err != nil {
		b.bad = true
		return
	}
	b.padded = b.q[len(b.q)-1] == '='
	b.out.write(b.dec[:n])
	b.q = b.q[:0]
}

func (b *b64Finder) close() { b.flush() }

func isBase64Byte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
}

package replay

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
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
	post  int64 // offset of the request body's text (postData.text) of a response with an error status; -1 when absent or none
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

// spool keeps what is read of a capture: in memory up to memSpool bytes,
// so that a small document on standard input costs no file, past that in
// an unlinked temporary file. It is then read back at offsets.
type spool struct {
	in  io.Reader
	mem []byte
	f   *os.File // nil while the document fits in mem
	w   *bufio.Writer
	n   int64
}

// memSpool is the most of a document a spool keeps in memory: small, so
// that what the growing buffer leaves to collect stays well under a
// megabyte (TestHARManyEmptyEntriesOneOutOfOrder), and enough for the
// documents of a test or a fuzz run.
const memSpool = 64 << 10

func (s *spool) Read(p []byte) (int, error) {
	n, err := s.in.Read(p)
	if s.n += int64(n); s.n > maxHARSpool {
		return 0, errSpoolFull
	}
	if werr := s.keep(p[:n]); werr != nil {
		return 0, werr
	}
	return n, err
}

// keep adds b to what is kept, moving it all to a file when it passes
// memSpool.
func (s *spool) keep(b []byte) error {
	if s.f == nil && len(s.mem)+len(b) <= memSpool {
		s.mem = append(s.mem, b...)
		return nil
	}
	if s.f == nil {
		f, err := os.CreateTemp("", "snapctl-har-*")
		if err != nil {
			return err
		}
		os.Remove(f.Name()) // where the system allows it, gone with the process
		s.f, s.w = f, bufio.NewWriterSize(f, 64<<10)
		if _, err := s.w.Write(s.mem); err != nil {
			return err
		}
		s.mem = nil
	}
	_, err := s.w.Write(b)
	return err
}

// flush writes what the file's buffer holds, before it is read back.
func (s *spool) flush() error {
	if s.w == nil {
		return nil
	}
	return s.w.Flush()
}

// ReadAt reads what was kept at off.
func (s *spool) ReadAt(p []byte, off int64) (int, error) {
	if s.f != nil {
		return s.f.ReadAt(p, off)
	}
	if off >= int64(len(s.mem)) {
		return 0, io.EOF
	}
	n := copy(p, s.mem[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (s *spool) close() {
	if s.f != nil {
		s.f.Close()
		os.Remove(s.f.Name())
	}
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
		sp := &spool{in: in}
		in, doc = sp, sp
		done, flush = sp.close, sp.flush
	}
	s := newJSONScan(in, 0)
	s.skipBOM()
	ix := harIndexer{h: h, s: s}
	err := ix.document()
	if ferr := flush(); err == nil {
		err = ferr
	}
	if err != nil {
		h.fail = h.bad(err, ix.at(), ix.place, s.off)
	} else if _, perr := s.peek(); perr == nil {
		// A HAR is one document: bytes after it (a capture appended to
		// it, say) are not read as events, and so are reported.
		at, held := s.off, int64(s.w-s.r)
		rest, _ := io.Copy(io.Discard, h.in)
		h.fail = h.trailing(at, held+rest)
	}
	io.Copy(io.Discard, h.in) // the rest counts as read, damage and all
	if err := h.slots.done(); err != nil && h.fail == nil {
		h.fail = h.bad(err, ix.at(), ix.place, s.off)
	}
	return doc, done, nil
}

// harIndexer is the index pass over one document.
type harIndexer struct {
	h       *harReader
	s       *jsonScan
	entries int       // entries read whole
	place   harPlace  // where in the document the pass is
	last    time.Time // the time of the entry before
	buf     []byte
	// The finders of the text being read, kept for their buffers.
	plain, decoded markerFinder
	b64            b64Finder
}

var errNotHAR = errors.New("not a HAR document")

// harPlace is where in the document the index pass is: before the
// entries array, inside an entry, between two, or past the array's end.
type harPlace uint8

const (
	beforeEntries harPlace = iota
	inEntries
	// betweenEntries is past the end of an entry, before the comma or
	// bracket after it.
	betweenEntries
	afterEntries
)

// at is the entry the pass is in, for a message about where the document
// stops: between entries the one before, 0 outside the entries array
// (before or after it, as place says).
func (ix *harIndexer) at() int {
	switch ix.place {
	case inEntries:
		return ix.entries + 1
	case betweenEntries:
		return ix.entries
	}
	return 0
}

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
					return ix.want('[', func() error {
						ix.place = inEntries
						err := s.elements(ix.entry)
						if err == nil {
							ix.place = afterEntries
						}
						return err
					})
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

// entryScan is what the index pass reads of one entry.
type entryScan struct {
	slot                   harSlot
	started, url, encoding string
	raw, decoded           bool // the text holds the turn marker, as is and base64-decoded
	b64                    bool // the text is base64
	// rawError and decodedError say whether the text is a server error
	// body, as is and base64-decoded, and status is the response's.
	rawError, decodedError bool
	status                 int64
}

// entry reads one entry, keeping a slot for it when its events count.
func (ix *harIndexer) entry() error {
	s := ix.s
	e := entryScan{slot: harSlot{url: -1, text: -1, ws: -1, post: -1, entry: int32(ix.entries + 1)}, b64: true}
	ix.place = inEntries
	err := s.ifNext('{', func() error {
		return s.members(func(key string) error {
			switch key {
			case "startedDateTime":
				return s.ifNext('"', func() (err error) { e.started, _, err = s.stringValue(64); return })
			case "request":
				return ix.request(&e)
			case "response":
				return ix.response(&e)
			case "_webSocketMessages":
				return ix.messages(&e)
			}
			return s.skip()
		})
	})
	if err != nil {
		return err
	}
	e.slot.end = s.off
	ix.entries++
	ix.place = betweenEntries
	ix.keep(&e)
	return nil
}

// request reads an entry's request: its URL, and where its body is.
func (ix *harIndexer) request(e *entryScan) error {
	s := ix.s
	return s.ifNext('{', func() error {
		return s.members(func(key string) error {
			switch key {
			case "url":
				return s.ifNext('"', func() (err error) {
					e.slot.url = s.off
					if ix.h.url == "" { // only a filter needs it now
						return s.skip()
					}
					e.url, _, err = s.stringValue(ix.h.maxLine)
					return
				})
			case "postData":
				return s.ifNext('{', func() error {
					return s.members(func(key string) error {
						if key != "text" {
							return s.skip()
						}
						return s.ifNext('"', func() error { e.slot.post = s.off; return s.skip() })
					})
				})
			}
			return s.skip()
		})
	})
}

// response reads an entry's response: the text and encoding of its
// content.
func (ix *harIndexer) response(e *entryScan) error {
	s := ix.s
	content := func() error {
		return s.members(func(key string) error {
			switch key {
			case "text":
				return s.ifNext('"', func() (err error) {
					e.slot.text = s.off
					e.raw, e.decoded, e.b64, err = ix.text()
					e.rawError, e.decodedError = ix.plain.errorBody(), ix.decoded.errorBody()
					return
				})
			case "encoding":
				return s.ifNext('"', func() (err error) { e.encoding, _, err = s.stringValue(64); return })
			}
			return s.skip()
		})
	}
	return s.ifNext('{', func() error {
		return s.members(func(key string) error {
			switch key {
			case "content":
				return s.ifNext('{', content)
			case "status":
				return ix.status(e)
			}
			return s.skip()
		})
	})
}

// status reads a response's status, when it is a number: its integer
// part, kept up to 999999 (a status has three digits).
func (ix *harIndexer) status(e *entryScan) error {
	s := ix.s
	c, err := s.peek()
	if err != nil {
		return err
	}
	if c < '1' || c > '9' {
		return s.skip()
	}
	var n int64
	for s.ensure(1) && s.buf[s.r] >= '0' && s.buf[s.r] <= '9' {
		n = min(n*10+int64(s.buf[s.r]-'0'), 999999)
		s.discard(1)
	}
	e.status = n
	// The fraction and exponent, if any: the integer part is read.
	return s.number('0')
}

// messages reads an entry's WebSocket messages.
func (ix *harIndexer) messages(e *entryScan) error {
	s := ix.s
	return s.ifNext('[', func() error {
		e.slot.ws = s.off
		return s.elements(func() error {
			turns, err := ix.message()
			if turns {
				e.slot.flags |= slotWS
			}
			return err
		})
	})
}

// keep keeps the slot of entry e when its events count: its time, and
// what its text holds.
func (ix *harIndexer) keep(e *entryScan) {
	t := ix.last
	if e.started != "" { // parsing nothing would allocate its error, for every entry
		if pt, err := time.Parse(time.RFC3339Nano, e.started); err == nil {
			t = pt
		}
	}
	ix.last = t
	slot := &e.slot
	slot.sec, slot.nsec = t.Unix(), int32(t.Nanosecond())
	// A server's error body answers a request with an error status: its
	// line is what an NDJSON capture of the responses holds.
	refused := e.status >= 400
	if !refused {
		// Only an error body needs its request's submit (Origin.
		// RequestSession): the read pass reads no other request body.
		slot.post = -1
	}
	switch {
	case slot.text < 0:
	case e.encoding != "base64":
		if e.raw || refused && e.rawError {
			slot.flags |= slotText
		}
	case !e.b64:
		slot.flags |= slotBadBase64
	case e.decoded || refused && e.decodedError:
		slot.flags |= slotText | slotBase64
	}
	h := ix.h
	if slot.flags == 0 {
		return
	}
	h.stats.HAREntries++
	if h.url == "" || strings.Contains(e.url, h.url) {
		h.stats.HARKept++
		h.slots.add(*slot)
		return
	}
	h.stats.noteURL(e.url)
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

package replay

import (
	"bufio"
	"encoding/base64"
	"errors"
	"fmt"
	"io"

	"github.com/agentskit/snapctl/replay/internal/wire"
	"github.com/tidwall/gjson"
)

// harReader reads a HAR 1.2 document in two passes. The index pass
// reads it once through, keeping a slot for each entry whose response
// body or received WebSocket messages (Chrome's and Firefox's
// _webSocketMessages) hold turn events, and, with a URL filter, whose
// request URL contains it. The read pass then reads the slots in
// startedDateTime order, each value from its offset: the document
// itself when it is a plain file, otherwise a spool of it (in memory up
// to memSpool, on disk past that).
// Every value is streamed, never held: memory holds a slot per entry
// with events, one line of a body and the URL.
type harReader struct {
	name     string
	stats    *Stats    // the reader's: body lines count as lines
	in       io.Reader // the capture, as the reader reads it
	url      string
	maxLine  int
	seekable bool // the capture is a plain file, to read again in place
	// fill is the reader's onFill, called as the read pass reads as much
	// as the reader's buffer holds: the run then hands on the events so
	// far, in batches no bigger than those of an NDJSON capture.
	fill   func()
	unread int // bytes read since fill was called

	indexed bool
	slots   harSlots
	fail    *Line
	doc     io.ReaderAt
	close   func()

	// The entry being read.
	origin *Origin
	slot   *harSlot
	body   harBody
	inBody bool
	ws     *jsonScan // in its WebSocket messages, when it has turns there
	wsNum  int       // messages read
	wsDone bool
	wsScan *jsonScan // ws, kept for its buffer
	scan   *jsonScan // the body's or URL's string
	bodyIn *bufio.Reader
}

// harBody is the body or message being cut into events.
type harBody struct {
	num   int // line number within the body
	frame framer
	flush bool
	buf   []byte
}

func newHARReader(name string, in io.Reader, url string, maxLine int, stats *Stats, seekable bool, fill func()) *harReader {
	return &harReader{name: name, in: in, url: url, maxLine: maxLine, stats: stats, seekable: seekable, fill: fill}
}

func isBlank(b []byte) bool { return wire.IsBlank(b) }

// turnMarker is in every turn event: a body without it holds none.
var turnMarker = []byte(`"agentskit.chat.turn"`)

// ErrorBodyPrefix starts an HTTP error body of the AgentsKit Chat server,
// {"error": TurnDiagnostic}: its answer to a request it refuses, with no
// session, turn or trailing newline. A HAR entry whose response has an
// error status and such a body is read like one with turn events, so that
// the refusal reaches the run as the malformed line it is in an NDJSON
// capture.
var ErrorBodyPrefix = []byte(`{"error"`)

// next returns the next event, or false at the document's end.
func (h *harReader) next() (Line, bool) {
	if !h.indexed {
		h.indexed = true
		doc, done, err := h.index(h.in)
		h.doc, h.close = doc, done
		if err != nil {
			h.fail = h.bad(err, 0, beforeEntries, 0)
		}
	}
	for {
		if h.inBody {
			if l, ok := h.bodyLine(); ok {
				return l, true
			}
			h.inBody = false
		}
		if h.ws != nil && !h.wsDone {
			if bad := h.nextMessage(); bad != nil {
				return *bad, true
			}
			continue
		}
		slot, ok, err := h.slots.next()
		if err != nil {
			h.origin = &Origin{}
			return *h.unreadable(err), true
		}
		if ok {
			if bad := h.use(slot); bad != nil {
				return *bad, true
			}
			continue
		}
		if h.fail != nil {
			l := *h.fail
			h.fail = nil
			return l, true
		}
		if h.close != nil {
			h.close()
			h.close = nil
		}
		h.slots.close()
		return Line{}, false
	}
}

// use starts reading the events of the entry of slot: its response body,
// then its received WebSocket messages.
func (h *harReader) use(slot *harSlot) *Line {
	h.slot, h.ws = slot, nil
	h.origin = &Origin{Entry: int(slot.entry)}
	if slot.url >= 0 {
		reset(&h.scan, h.doc, slot.url, slot.end)
		url, _, err := h.scan.stringValue(h.maxLine)
		if err != nil {
			return h.unreadable(err)
		}
		h.origin.URL = url
	}
	if slot.post >= 0 {
		reset(&h.scan, h.doc, slot.post, slot.end)
		body, cut, err := h.scan.stringValue(maxSubmitBody)
		if err != nil {
			return h.unreadable(err)
		}
		if !cut {
			h.origin.RequestSession, h.origin.RequestTurn = submitIDs(body)
		}
	}
	if slot.flags&slotWS != 0 {
		reset(&h.wsScan, h.doc, slot.ws, slot.end)
		h.ws, h.wsNum, h.wsDone = h.wsScan, 0, false
		if err := h.ws.expect('['); err != nil {
			return h.unreadable(err)
		}
	}
	switch {
	case slot.flags&slotBadBase64 != 0:
		l := Line{File: h.name, Num: 1, Origin: h.origin}
		l.bad = formatProblem(FormatHAR, fmt.Sprintf("entry %d: the response body is not base64, as its encoding says", slot.entry))
		return &l
	case slot.flags&slotText != 0:
		return h.startBody(slot.text, slot.flags&slotBase64 != 0, 0, true)
	}
	return nil
}

// reset points the scanner *s at offset of doc, to read up to end (so
// that a small entry costs a small read), reusing its buffer.
func reset(s **jsonScan, doc io.ReaderAt, offset, end int64) {
	sec := io.NewSectionReader(doc, offset, end-offset)
	if *s == nil {
		*s = newJSONScan(sec, offset)
		return
	}
	(*s).reset(sec, offset)
}

// startBody starts cutting the string at offset into events, base64
// decoded when b64, its first line numbered num+1; a response body (of
// an entry, not a message) may be SSE, dispatched as a browser does.
func (h *harReader) startBody(offset int64, b64 bool, num int, response bool) *Line {
	reset(&h.scan, h.doc, offset, h.slot.end)
	if err := h.scan.expect('"'); err != nil {
		return h.unreadable(err)
	}
	var text io.Reader = &jsonString{s: h.scan}
	if b64 {
		text = base64.NewDecoder(base64.StdEncoding, text)
	}
	if h.bodyIn == nil {
		h.bodyIn = bufio.NewReaderSize(text, 64<<10)
	} else {
		h.bodyIn.Reset(text)
	}
	h.body.num, h.body.flush, h.body.frame = num, false, nil
	if response {
		head, _ := h.bodyIn.Peek(bodySniffBytes)
		if f, _ := sniff(head, true); f == FormatSSE {
			h.body.frame = &sseFramer{maxLine: h.maxLine}
		}
	}
	h.inBody = true
	return nil
}

// nextMessage reads the entry's next WebSocket message, and starts
// cutting it into events when it was received.
func (h *harReader) nextMessage() *Line {
	s := h.ws
	c, err := s.peek()
	if err != nil {
		return h.endMessages(err)
	}
	if c == ']' {
		h.wsDone = true
		return nil
	}
	if h.wsNum > 0 {
		if c != ',' {
			s.readByte()
			return h.endMessages(s.syntax())
		}
		s.readByte()
	}
	h.wsNum++
	var typ string
	data := int64(-1)
	err = s.ifNext('{', func() error {
		return s.members(func(key string) error {
			switch key {
			case "type":
				return s.ifNext('"', func() (err error) { typ, _, err = s.stringValue(64); return })
			case "data":
				return s.ifNext('"', func() error { data = s.off; return s.skip() })
			}
			return s.skip()
		})
	})
	if err != nil {
		return h.endMessages(err)
	}
	if typ == "receive" && data >= 0 {
		return h.startBody(data, false, h.wsNum-1, false)
	}
	return nil
}

func (h *harReader) endMessages(err error) *Line {
	h.wsDone = true
	return h.unreadable(err)
}

// bodyLine returns the next event of the current body.
func (h *harReader) bodyLine() (Line, bool) {
	b := &h.body
	if b.frame != nil {
		for {
			l, ok := b.frame.pending()
			if !ok {
				break
			}
			if l.TooLong || l.bad != nil || !isBlank(l.Data) {
				return h.sseOrigin(l), true
			}
		}
	}
	for {
		l, err := h.readLine()
		if err != nil {
			if err != io.EOF {
				h.inBody = false
				return *h.unreadable(err), true
			}
			break
		}
		h.stats.Lines++
		if l.blank || (!l.TooLong && isBlank(l.Data)) {
			h.stats.Blank++
		}
		if b.frame != nil {
			var ok bool
			if l, ok = b.frame.line(l); !ok || (!l.TooLong && l.bad == nil && isBlank(l.Data)) {
				continue
			}
			return h.sseOrigin(l), true
		}
		if l.blank || (!l.TooLong && isBlank(l.Data)) {
			continue
		}
		return l, true
	}
	if b.frame != nil && !b.flush {
		b.flush = true
		if l, ok := b.frame.flush(); ok {
			l.Origin = h.origin
			return l, true
		}
	}
	return Line{}, false
}

// readLine reads the body's next line, keeping no more of it than the
// longest line allowed: past that it is too long, and only counted.
func (h *harReader) readLine() (Line, error) {
	if h.unread >= 256<<10 {
		h.unread = 0
		h.fill()
	}
	b := &h.body
	b.buf = b.buf[:0]
	var n int64
	var last, before byte // the line's last two bytes
	blank := true
	for {
		frag, err := h.bodyIn.ReadSlice('\n')
		n += int64(len(frag))
		if room := h.maxLine + 2 - len(b.buf); room > 0 {
			b.buf = append(b.buf, frag[:min(room, len(frag))]...)
		}
		switch len(frag) {
		case 0:
		case 1:
			before, last = last, frag[0]
		default:
			before, last = frag[len(frag)-2], frag[len(frag)-1]
		}
		blank = blank && isBlank(frag)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && (n == 0 || err != io.EOF) {
			return Line{}, err
		}
		break
	}
	if last == '\n' {
		n--
		last = before
	}
	if n > 0 && last == '\r' {
		n--
	}
	b.num++
	h.unread += int(min(n, 1<<30))
	l := Line{File: h.name, Num: b.num, Len: n, Origin: h.origin}
	if n > int64(h.maxLine) {
		l.TooLong, l.blank = true, blank
	} else {
		l.Data = b.buf[:n]
	}
	return l, nil
}

// sseOrigin gives an event of an SSE body its entry and URL beside its
// SSE id.
func (h *harReader) sseOrigin(l Line) Line {
	id := ""
	if l.Origin != nil {
		id = l.Origin.LastEventID
	}
	l.Origin = &Origin{Entry: h.origin.Entry, URL: h.origin.URL, LastEventID: id}
	return l
}

// unreadable is the malformed event of an entry the read pass could not
// read again, which ends the entry.
func (h *harReader) unreadable(err error) *Line {
	h.inBody, h.wsDone = false, true
	l := Line{File: h.name, Num: 0, Origin: h.origin}
	l.bad = formatProblem(FormatHAR, fmt.Sprintf("entry %d cannot be read again: %v", h.origin.Entry, err))
	return &l
}

// bad is the malformed event of a document that is not JSON, not a HAR,
// or breaks off, at byte off: inside entry (1-based), after every event
// of the entries before it, or (entry 0) before or after the entries
// array, as place says.
func (h *harReader) bad(err error, entry int, place harPlace, off int64) *Line {
	l := Line{File: h.name, Num: 0, Origin: &Origin{Entry: entry}}
	var msg string
	var se *jsonSyntaxError
	eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
	switch {
	case eof && place == beforeEntries:
		msg = fmt.Sprintf("the document ends at byte %d, before its entries", off)
	case eof && place == afterEntries:
		msg = fmt.Sprintf("the document ends at byte %d, after its entries", off)
	case eof && place == betweenEntries:
		msg = fmt.Sprintf("the document ends at byte %d, after entry %d", off, entry)
	case eof:
		msg = fmt.Sprintf("the document ends at byte %d, inside entry %d", off, entry)
	case entry == 0 && !errors.As(err, &se) && !errors.Is(err, errNotHAR) && !errors.Is(err, errSpoolFull):
		msg = fmt.Sprintf("the document cannot be read at byte %d: %v", off, err)
	case errors.As(err, &se):
		msg = fmt.Sprintf("the document is not JSON at byte %d", se.off)
	case errors.Is(err, errNotHAR), errors.Is(err, errSpoolFull):
		msg = err.Error()
	default:
		msg = fmt.Sprintf("entry %d cannot be read at byte %d: %v", entry, off, err)
	}
	l.bad = formatProblem(FormatHAR, msg)
	// A document that stops inside its entries, or between two of them
	// (more may have followed), breaks off; cut before them it holds
	// none, and with only its closing brackets missing every event.
	l.cut = eof && (place == inEntries || place == betweenEntries)
	return &l
}

// trailing is the malformed event of n bytes after the document's end,
// the first of them at byte at: after every event of the document.
func (h *harReader) trailing(at, n int64) *Line {
	l := Line{File: h.name, Num: 0, Origin: &Origin{}}
	l.bad = formatProblem(FormatHAR, fmt.Sprintf("%d bytes after the document's end, from byte %d, are not read: a HAR holds one document", n, at))
	return &l
}

// bodySniffBytes is how much of a response body is looked at to tell an
// SSE stream from NDJSON.
const bodySniffBytes = 4096

// maxSubmitBody is the longest request body whose submit names the
// session and turn of the entry's lines (Origin.RequestSession): a submit
// is its ids, its input and a little more.
const maxSubmitBody = 64 << 10

// submitIDs is the session and turn a request body names when it is a
// client.turn.submit, as JSON: how the entry's error body, which names
// neither, is attributed. A body that is no valid JSON, or no submit, or
// whose ids are not safe to show, names none: the server did not take
// it for a submit, or its ids would not be shown.
func submitIDs(body string) (session, turn string) {
	if !gjson.Valid(body) {
		return "", ""
	}
	// The last of keys that repeat is the one a server's JSON.parse
	// keeps, as the decoder does; gjson's Get would take the first.
	var event, sid, tid gjson.Result
	gjson.Parse(body).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "event":
			event = v
		case "sessionId":
			sid = v
		case "turnId":
			tid = v
		}
		return true
	})
	if event.Type != gjson.String || event.Str != "client.turn.submit" || sid.Type != gjson.String || tid.Type != gjson.String ||
		!IsSafeIdentifier(sid.Str) || !IsSafeIdentifier(tid.Str) {
		return "", ""
	}
	return sid.Str, tid.Str
}

package replay

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentskit/snapctl/replay/internal/wire"
)

// harEntry is what snapctl reads of a HAR 1.2 entry: where it went, when
// it started, its response body, and the WebSocket messages Chrome and
// Firefox record under _webSocketMessages.
type harEntry struct {
	StartedDateTime string `json:"startedDateTime"`
	Request         struct {
		URL string `json:"url"`
	} `json:"request"`
	Response struct {
		Content struct {
			Text     string `json:"text"`
			Encoding string `json:"encoding"`
		} `json:"content"`
	} `json:"response"`
	WebSocketMessages []struct {
		Type string `json:"type"`
		Data string `json:"data"`
	} `json:"_webSocketMessages"`
}

// harReader streams a HAR document, one entry in memory at a time: the
// turn events of each entry's response body (NDJSON or SSE), then of its
// received WebSocket messages, entry after entry. Only entries whose
// body or messages hold turn events count, and with a URL filter only
// those whose request URL contains it.
type harReader struct {
	name    string
	stats   *Stats    // the reader's: body lines count as lines
	in      io.Reader // the capture, as the reader reads it
	dec     *json.Decoder
	url     string
	maxLine int
	started bool
	done    bool
	entry   int // entries read so far

	// The body or message being cut into events.
	body   []byte
	num    int // line number within body
	origin *Origin
	frame  framer // SSE bodies; nil for NDJSON
	flush  bool
	queue  []wsMessage // received WebSocket messages left of the entry

	// passIdx counts the entries read by the current pass over the
	// document. order, when the entries are not in startedDateTime
	// order, lists their 0-based indexes in that order, and pos is the
	// next one due: each time an earlier entry is due, the document is
	// read again from its start (open), so memory still holds one entry.
	passIdx   int
	order     []int
	pos       int
	open      opener
	closePass func()
	// offsets, for a capture stored plain, are where each entry starts in
	// the file: an entry due out of order is then read from there alone.
	offsets []int64
}

// opener opens a capture again at the byte offset of its decompressed
// text, with the function that closes it. Only a capture stored plain
// can start past 0: seekable reports whether it is one.
type opener struct {
	open     func(offset int64) (io.Reader, func(), error)
	seekable bool
}

// wsMessage is a received WebSocket message and its 1-based index among
// the entry's messages, its position.
type wsMessage struct {
	num  int
	data []byte
}

func newHARReader(name string, in io.Reader, url string, maxLine int, stats *Stats) *harReader {
	return &harReader{name: name, in: in, dec: json.NewDecoder(in), url: url, maxLine: maxLine, stats: stats}
}

func isBlank(b []byte) bool { return wire.IsBlank(b) }

// turnMarker is in every turn event: a body without it holds none.
var turnMarker = []byte(`"agentskit.chat.turn"`)

// next returns the next event, or false at the document's end.
func (h *harReader) next() (Line, bool) {
	for {
		if l, ok := h.bodyLine(); ok {
			return l, true
		}
		if len(h.queue) > 0 {
			h.setBody(h.queue[0].data, false)
			h.num = h.queue[0].num - 1
			h.queue = h.queue[1:]
			continue
		}
		if h.done {
			if h.closePass != nil {
				h.closePass()
				h.closePass = nil
			}
			if h.order != nil && h.in != nil {
				// Read out of order, the capture is read to its end all
				// the same, so that its size and any damage are counted.
				io.Copy(io.Discard, h.in)
				h.in = nil
			}
			return Line{}, false
		}
		if bad := h.nextEntry(); bad != nil {
			return *bad, true
		}
	}
}

// setBody starts cutting b into events; sse bodies are dispatched as a
// browser does.
func (h *harReader) setBody(b []byte, sse bool) {
	h.body, h.num, h.flush, h.frame = b, 0, false, nil
	if sse {
		h.frame = &sseFramer{maxLine: h.maxLine}
	}
}

// bodyLine returns the next event of the current body.
func (h *harReader) bodyLine() (Line, bool) {
	if h.frame != nil {
		for {
			l, ok := h.frame.pending()
			if !ok {
				break
			}
			if l.TooLong || l.bad != nil || !isBlank(l.Data) {
				return h.sseOrigin(l), true
			}
		}
	}
	for len(h.body) > 0 {
		line := h.body
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line, h.body = line[:i], h.body[i+1:]
		} else {
			h.body = nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		h.num++
		h.stats.Lines++
		if isBlank(line) {
			h.stats.Blank++
		}
		l := Line{File: h.name, Num: h.num, Data: line, Len: int64(len(line)), Origin: h.origin}
		if len(line) > h.maxLine {
			l.TooLong, l.Data, l.blank = true, nil, isBlank(line)
		}
		if h.frame != nil {
			var ok bool
			if l, ok = h.frame.line(l); !ok || (!l.TooLong && l.bad == nil && isBlank(l.Data)) {
				continue
			}
			return h.sseOrigin(l), true
		}
		if l.blank || (!l.TooLong && isBlank(l.Data)) {
			continue
		}
		return l, true
	}
	if h.frame != nil && !h.flush {
		h.flush = true
		if l, ok := h.frame.flush(); ok {
			l.Origin = h.origin
			return l, true
		}
	}
	return Line{}, false
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

// nextEntry reads the next entry whose events count, and sets its body
// and messages up; it returns a malformed event when an entry's body
// does not decode, or the document is not a HAR or breaks off (which
// ends it).
func (h *harReader) nextEntry() *Line {
	if !h.started {
		h.started = true
		if err := h.enterEntries(); err != nil {
			return h.fail(err)
		}
	}
	for {
		e, index, ok, err := h.readEntry()
		if err != nil {
			return h.fail(err)
		}
		if !ok {
			h.done = true
			return nil
		}
		h.entry = index
		if h.url != "" && !strings.Contains(e.Request.URL, h.url) {
			continue
		}
		if bad := h.use(e); bad != nil || len(h.body) > 0 || len(h.queue) > 0 {
			return bad
		}
	}
}

// readEntry returns the next entry and its 1-based index in the
// document, or false after the last: in document order, or in
// startedDateTime order when the document is not in that order.
func (h *harReader) readEntry() (*harEntry, int, bool, error) {
	if h.order == nil {
		if !h.dec.More() {
			_, err := h.dec.Token() // the closing bracket
			return nil, 0, false, err
		}
		var e harEntry
		if err := h.dec.Decode(&e); err != nil {
			return nil, 0, false, err
		}
		h.passIdx++
		return &e, h.passIdx, true, nil
	}
	if h.pos >= len(h.order) {
		return nil, 0, false, nil
	}
	want := h.order[h.pos]
	if h.offsets != nil {
		e, err := h.readAt(h.offsets[want])
		h.pos++
		return e, want + 1, err == nil, err
	}
	if want < h.passIdx {
		// An earlier entry comes next: read the document again.
		if err := h.reread(); err != nil {
			return nil, 0, false, err
		}
	}
	for ; h.passIdx < want; h.passIdx++ {
		var skip json.RawMessage
		if err := h.dec.Decode(&skip); err != nil {
			return nil, 0, false, err
		}
	}
	var e harEntry
	if err := h.dec.Decode(&e); err != nil {
		return nil, 0, false, err
	}
	h.passIdx++
	h.pos++
	return &e, want + 1, true, nil
}

// use sets up the events of entry e: its received WebSocket messages and
// its response body.
func (h *harReader) use(e *harEntry) *Line {
	h.origin = &Origin{Entry: h.entry, URL: e.Request.URL}
	h.queue = h.queue[:0]
	// A socket that carried turn events carried them in every received
	// message: the others are malformed, not dropped.
	turns := false
	for _, m := range e.WebSocketMessages {
		turns = turns || m.Type == "receive" && strings.Contains(m.Data, string(turnMarker))
	}
	for i, m := range e.WebSocketMessages {
		if turns && m.Type == "receive" {
			h.queue = append(h.queue, wsMessage{num: i + 1, data: []byte(m.Data)})
		}
	}
	body := []byte(e.Response.Content.Text)
	if e.Response.Content.Encoding == "base64" {
		dec, err := base64.StdEncoding.DecodeString(e.Response.Content.Text)
		if err != nil {
			l := Line{File: h.name, Num: 1, Origin: h.origin}
			l.bad = formatProblem(FormatHAR, fmt.Sprintf("entry %d: the response body is not base64, as its encoding says", h.entry))
			return &l
		}
		body = dec
	}
	if bytes.Contains(body, turnMarker) {
		f, _ := sniff(body, true)
		h.setBody(body, f == FormatSSE)
	}
	return nil
}

// fail ends the document with the malformed event of err.
func (h *harReader) fail(err error) *Line {
	h.done = true
	return h.bad(err)
}

// enterEntries reads the document up to the first entry of log.entries.
func (h *harReader) enterEntries() error {
	if err := h.delim('{'); err != nil {
		return err
	}
	if err := h.toKey("log"); err != nil {
		return err
	}
	if err := h.delim('{'); err != nil {
		return err
	}
	if err := h.toKey("entries"); err != nil {
		return err
	}
	return h.delim('[')
}

var errNotHAR = errors.New("not a HAR document")

// delim reads the delimiter d.
func (h *harReader) delim(d json.Delim) error {
	t, err := h.dec.Token()
	if err != nil {
		return err
	}
	if t != d {
		return fmt.Errorf("%w: %v where %v was expected", errNotHAR, tokenKind(t), d)
	}
	return nil
}

// toKey skips the object's members up to key.
func (h *harReader) toKey(key string) error {
	for h.dec.More() {
		t, err := h.dec.Token()
		if err != nil {
			return err
		}
		if t == key {
			return nil
		}
		var skip json.RawMessage
		if err := h.dec.Decode(&skip); err != nil {
			return err
		}
	}
	return fmt.Errorf("%w: no %q", errNotHAR, key)
}

func tokenKind(t json.Token) string {
	switch t.(type) {
	case json.Delim:
		return fmt.Sprint(t)
	case string:
		return "a string"
	case nil:
		return "null"
	}
	return "a value"
}

// bad is the malformed event of a document that is not JSON, not a HAR,
// or breaks off: after every event of the entries before it.
func (h *harReader) bad(err error) *Line {
	l := Line{File: h.name, Num: 0, Origin: &Origin{Entry: h.entry + 1}}
	var msg string
	var se *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		msg = fmt.Sprintf("the document ends at byte %d, inside entry %d", h.dec.InputOffset(), h.entry+1)
	case errors.As(err, &se):
		msg = fmt.Sprintf("the document is not JSON at byte %d", se.Offset)
	case errors.Is(err, errNotHAR):
		msg = err.Error()
	default:
		msg = fmt.Sprintf("entry %d cannot be read at byte %d", h.entry+1, h.dec.InputOffset())
	}
	l.bad = formatProblem(FormatHAR, msg)
	return &l
}

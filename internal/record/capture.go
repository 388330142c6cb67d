package record

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// HeldLimit is how many bytes of unfinished lines all the open streams
// may hold together: a line that would take more is recorded as a cut
// record with its length (the client gets it whole), so that memory
// does not grow with the number of streams that are in a long line.
const HeldLimit = 64 << 20

// Capture writes context records and body lines to one writer, each
// block in one Write, in the order the proxy hands them over; it is safe
// for concurrent use. After the first failed write it writes nothing
// more.
type Capture struct {
	mu     sync.Mutex
	w      io.Writer
	tee    io.Writer // a second reader of the capture (live verdicts); nil when gone
	err    error
	onFail func(error)
	now    func() time.Time
	reqs   int
	// held counts the bytes of unfinished lines the streams hold, at most
	// heldLimit.
	held      atomic.Int64
	heldLimit int64
}

// NewCapture returns a capture writing to w and, while it accepts them,
// to tee (nil for none). onFail is called once, with the error, when a
// write to w fails.
func NewCapture(w, tee io.Writer, onFail func(error)) *Capture {
	return &Capture{w: w, tee: tee, onFail: onFail, now: time.Now, heldLimit: HeldLimit}
}

// hold reserves n more bytes of unfinished lines, if the limit allows.
func (c *Capture) hold(n int) bool {
	if c.held.Add(int64(n)) <= c.heldLimit {
		return true
	}
	c.held.Add(-int64(n))
	return false
}

// release returns n bytes that hold reserved.
func (c *Capture) release(n int) { c.held.Add(-int64(n)) }

// Err returns the write error that stopped the recording, if any.
func (c *Capture) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// stamp is the time written in a context record's "at".
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// Start writes the capture's first record, which names the upstream.
func (c *Capture) Start(upstream string) {
	c.write(c.record("capture", 0, func(b *recordBuf) {
		b.num("version", 1)
		b.str("upstream", upstream)
	}), nil)
}

// Close writes the capture's last record.
func (c *Capture) Close() {
	c.mu.Lock()
	n := c.reqs
	c.mu.Unlock()
	c.write(c.record("close", 0, func(b *recordBuf) { b.num("requests", n) }), nil)
}

// nextRequest numbers a new exchange.
func (c *Capture) nextRequest() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reqs++
	return c.reqs
}

// record builds one context record line of kind for exchange req (0 for
// none), with the members fill adds after "at".
func (c *Capture) record(kind string, req int, fill func(b *recordBuf)) []byte {
	b := &recordBuf{}
	b.buf.WriteString(`{"snapctl":`)
	b.buf.WriteString(strconv.Quote(kind))
	if req > 0 {
		b.num("req", req)
	}
	b.str("at", stamp(c.now()))
	if fill != nil {
		fill(b)
	}
	b.buf.WriteString("}\n")
	return b.buf.Bytes()
}

// write appends head and then body, which must end on a line boundary,
// in one Write.
func (c *Capture) write(head, body []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	block := head
	if len(body) > 0 {
		block = append(head, body...)
	}
	if _, err := c.w.Write(block); err != nil {
		c.err = err
		if c.onFail != nil {
			c.onFail(err)
		}
		return
	}
	if c.tee != nil {
		if _, err := c.tee.Write(block); err != nil {
			c.tee = nil // the live view ended; the recording goes on
		}
	}
}

// recordBuf builds a context record's members.
type recordBuf struct{ buf bytes.Buffer }

func (b *recordBuf) key(k string) {
	b.buf.WriteByte(',')
	b.buf.WriteString(strconv.Quote(k))
	b.buf.WriteByte(':')
}

func (b *recordBuf) num(k string, n int) {
	b.key(k)
	b.buf.WriteString(strconv.Itoa(n))
}

func (b *recordBuf) str(k, s string) {
	b.key(k)
	v, _ := json.Marshal(s) // a string always marshals; invalid UTF-8 becomes U+FFFD
	b.buf.Write(v)
}

func (b *recordBuf) boolean(k string, v bool) {
	b.key(k)
	b.buf.WriteString(strconv.FormatBool(v))
}

func (b *recordBuf) value(k string, v any) {
	j, err := json.Marshal(v)
	if err != nil {
		return
	}
	b.key(k)
	b.buf.Write(j)
}

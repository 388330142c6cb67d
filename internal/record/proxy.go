package record

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/agentskit/snapctl/replay"
)

// peekLimit is how much of a request body is read before the request is
// forwarded, to name the submit it carries in the request record.
const peekLimit = 1 << 20

// secretHeaders are forwarded but written only with KeepHeaders.
var secretHeaders = []string{"Authorization", "Cookie", "Set-Cookie", "Proxy-Authorization"}

// Options configures a Proxy.
type Options struct {
	// Upstream is the one server every request goes to.
	Upstream *url.URL
	// KeepHeaders writes the secret headers' values too.
	KeepHeaders bool
	// Redact writes no header value and no query string.
	Redact bool
	// Rewrite, when set, is applied to every body line before it is
	// written to the capture (never to the traffic): --redact's neutral
	// values.
	Rewrite func(line []byte) []byte
	// MaxLine is the longest line a stream holds; a longer one is written
	// as a "cut" record with its length.
	MaxLine int
	// Transport reaches the upstream; nil is a clone of
	// http.DefaultTransport.
	Transport http.RoundTripper
}

// Proxy is the reverse proxy that records what crosses it.
type Proxy struct {
	c    *Capture
	opts Options
	rp   *httputil.ReverseProxy
	wg   sync.WaitGroup
	// via is the Via entry the proxy adds to what it forwards, its own:
	// a request that carries it came back, through an upstream that is
	// the proxy itself (--upstream naming --listen), and is answered
	// 508 instead of being sent round again, without end.
	via string
}

// loopBody is the body of a 508 to a request that came back.
const loopBody = "snapctl record: the upstream is this proxy itself (--upstream names the --listen address, or leads back to it): the request was not forwarded again\n"

// exchangeKey carries an exchange in its request's context.
type exchangeKey struct{}

// NewProxy returns a proxy to opts.Upstream recording into c.
func NewProxy(c *Capture, opts Options) *Proxy {
	if opts.MaxLine <= 0 {
		opts.MaxLine = replay.DefaultMaxLine
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	p := &Proxy{c: c, opts: opts, via: "1.1 snapctl-record-" + hex.EncodeToString(id[:])}
	tr := opts.Transport
	if tr == nil {
		tr = http.DefaultTransport.(*http.Transport).Clone()
	}
	up := opts.Upstream
	p.rp = &httputil.ReverseProxy{
		// Rewrite, unlike Director, adds no X-Forwarded-For: the upstream
		// sees the request as the client sent it, but for its address and
		// the Via entry a proxy adds (RFC 9110, 7.6.3).
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(up)
			pr.Out.Header.Add("Via", p.via)
		},
		Transport:      tr,
		FlushInterval:  -1,
		ErrorLog:       log.New(io.Discard, "", 0), // the end record says it
		ModifyResponse: p.response,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if x, ok := r.Context().Value(exchangeKey{}).(*exchange); ok {
				x.fail(err)
			}
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	return p
}

// Wait waits for every exchange the proxy is serving to end.
func (p *Proxy) Wait() { p.wg.Wait() }

// exchange is one request and its response on their way through.
type exchange struct {
	p         *Proxy
	req       int
	sent      body
	recv      body
	ctx       context.Context
	mu        sync.Mutex
	err       error
	ended     bool
	eof       bool // the response body was read to its end
	sentAdded bool // the request body's last line got a newline in the capture
}

// sentFinish ends the request body's recording.
func (x *exchange) sentFinish() {
	added := x.sent.finish()
	x.mu.Lock()
	x.sentAdded = x.sentAdded || added
	x.mu.Unlock()
}

// ServeHTTP forwards one request to the upstream, and its response back,
// recording the exchange.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p.cameBack(r) {
		// Not recorded: the request that went round is, with this 508
		// as its response.
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusLoopDetected)
		_, _ = io.WriteString(w, loopBody)
		return
	}
	p.wg.Add(1)
	defer p.wg.Done()
	x := &exchange{p: p, req: p.c.nextRequest(), ctx: r.Context()}
	x.sent = body{c: p.c, req: x.req, kind: "sent", maxLine: p.opts.MaxLine, rewrite: p.opts.Rewrite}
	x.recv = body{c: p.c, req: x.req, kind: "received", maxLine: p.opts.MaxLine, rewrite: p.opts.Rewrite}
	head, rest, err := peek(r.Body)
	p.c.write(p.c.record("request", x.req, func(b *recordBuf) {
		b.str("method", r.Method)
		b.str("url", p.shownURL(r.URL))
		p.headers(b, r.Header)
		submitIDs(b, head)
	}), nil)
	x.sent.add(head)
	switch {
	case rest != nil:
		// head is recorded already: only the rest goes through the
		// recording reader.
		rb := &recordedBody{rc: r.Body, r: rest, b: &x.sent, x: x}
		r.Body = readCloser{io.MultiReader(bytes.NewReader(head), rb), rb}
	case r.Body != nil && r.Body != http.NoBody:
		x.sentFinish()
		if err != nil && !errors.Is(err, io.EOF) {
			x.fail(err)
		}
		r.Body = io.NopCloser(bytes.NewReader(head))
	}
	// The exchange ends when the response body is closed, or here when
	// the proxy answered itself (an unreachable upstream) or the handler
	// was aborted (the upstream died mid-stream).
	defer x.end()
	p.rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), exchangeKey{}, x)))
}

// cameBack says whether r carries the proxy's own Via entry.
func (p *Proxy) cameBack(r *http.Request) bool {
	for _, v := range r.Header.Values("Via") {
		for _, e := range strings.Split(v, ",") {
			if strings.TrimSpace(e) == p.via {
				return true
			}
		}
	}
	return false
}

// peek reads a request body up to peekLimit: rest is nil when head is
// all of it.
func peek(rc io.ReadCloser) (head []byte, rest io.Reader, err error) {
	if rc == nil || rc == http.NoBody {
		return nil, nil, nil
	}
	head, err = io.ReadAll(io.LimitReader(rc, peekLimit))
	if err == nil && len(head) == peekLimit {
		return head, rc, nil
	}
	return head, nil, err
}

// submitIDs adds the ids of the submit event a request body carried.
func submitIDs(b *recordBuf, head []byte) {
	line := bytes.TrimRight(head, " \t\r\n")
	if len(line) == 0 || bytes.IndexByte(line, '\n') >= 0 {
		return
	}
	var d replay.Decoder
	var ev replay.Event
	var session, turn, id string
	if err := d.Decode(line, &ev); err == nil {
		session, turn, id = ev.SessionID, ev.TurnID, ev.EventID
	} else if err.Envelope != nil {
		session, turn, id = err.Envelope.SessionID, err.Envelope.TurnID, err.Envelope.EventID
	}
	for _, f := range [][2]string{{"sessionId", session}, {"turnId", turn}, {"eventId", id}} {
		if replay.IsSafeIdentifier(f[1]) {
			b.str(f[0], f[1])
		}
	}
}

// response writes the response record and records the body as it is
// read.
func (p *Proxy) response(res *http.Response) error {
	x, ok := res.Request.Context().Value(exchangeKey{}).(*exchange)
	if !ok {
		return nil
	}
	p.c.write(p.c.record("response", x.req, func(b *recordBuf) {
		b.num("status", res.StatusCode)
		p.headers(b, res.Header)
	}), nil)
	res.Body = &recordedBody{rc: res.Body, r: res.Body, b: &x.recv, x: x, last: true}
	return nil
}

// shownURL is the request URL as the capture writes it.
func (p *Proxy) shownURL(u *url.URL) string {
	if p.opts.Redact {
		return u.EscapedPath()
	}
	return u.RequestURI()
}

// headers adds the "headers" member, and "headersNotKept" naming the
// secret headers left out.
func (p *Proxy) headers(b *recordBuf, h http.Header) {
	if p.opts.Redact {
		names := make([]string, 0, len(h))
		for k := range h {
			names = append(names, k)
		}
		sort.Strings(names)
		b.value("headerNames", names)
		return
	}
	kept := h
	var dropped []string
	if !p.opts.KeepHeaders {
		for _, k := range secretHeaders {
			if _, ok := h[k]; ok {
				if len(dropped) == 0 {
					kept = h.Clone()
				}
				kept.Del(k)
				dropped = append(dropped, k)
			}
		}
	}
	b.value("headers", kept)
	if len(dropped) > 0 {
		b.value("headersNotKept", dropped)
	}
}

// readCloser is a reader with another's Close.
type readCloser struct {
	io.Reader
	io.Closer
}

// recordedBody records a body as the proxy reads it.
type recordedBody struct {
	mu   sync.Mutex
	rc   io.Closer
	r    io.Reader
	b    *body
	x    *exchange
	last bool // the response body, whose end ends the exchange
}

func (rb *recordedBody) Read(p []byte) (int, error) {
	n, err := rb.r.Read(p)
	// A transport may close a request body on another goroutine.
	rb.mu.Lock()
	defer rb.mu.Unlock()
	rb.b.add(p[:n])
	if err != nil {
		if !errors.Is(err, io.EOF) {
			rb.x.fail(err)
		} else if rb.last {
			rb.x.mu.Lock()
			rb.x.eof = true
			rb.x.mu.Unlock()
		}
		if !rb.last {
			rb.x.sentFinish()
		}
	}
	return n, err
}

func (rb *recordedBody) Close() error {
	err := rb.rc.Close()
	if rb.last {
		rb.x.end()
		return err
	}
	// A request body the transport did not read to its end: its
	// unfinished line is recorded, and what it held released.
	rb.mu.Lock()
	rb.x.sentFinish()
	rb.mu.Unlock()
	return err
}

// fail notes the first error of the exchange.
func (x *exchange) fail(err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.err == nil {
		x.err = err
	}
}

// end writes the exchange's end record, once.
func (x *exchange) end() {
	x.mu.Lock()
	if x.ended {
		x.mu.Unlock()
		return
	}
	x.ended = true
	err, sentAdded, eof := x.err, x.sentAdded, x.eof
	x.mu.Unlock()
	added := x.recv.finish()
	why := ""
	switch {
	case eof:
		// Read to its end: a client that leaves after it lost nothing.
	case x.ctx.Err() != nil:
		why = "the client went away"
	case err != nil:
		why = err.Error()
	}
	c := x.p.c
	c.write(c.record("end", x.req, func(b *recordBuf) {
		b.num("bytes", int(x.recv.bytes))
		b.num("lines", x.recv.lines)
		if added {
			b.boolean("newlineAdded", true)
		}
		if sentAdded {
			b.boolean("requestNewlineAdded", true)
		}
		if why != "" {
			b.str("error", why)
		}
	}), nil)
}

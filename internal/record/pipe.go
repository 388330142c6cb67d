package record

import (
	"errors"
	"io"
	"sync"
)

// LiveLimit is how many bytes of the capture the live view may fall
// behind the recording before the recording waits for it.
const LiveLimit = 64 << 20

// errLiveGone is what a write to a pipe whose reader stopped returns.
var errLiveGone = errors.New("the live view stopped reading")

// pipe carries the capture to its live view: writes are buffered up to a
// limit, past which they wait for the reader, so that a slow terminal
// neither loses lines nor holds more than the limit.
type pipe struct {
	mu     sync.Mutex
	cond   *sync.Cond
	buf    []byte
	limit  int
	closed bool // no more writes: the reader gets io.EOF once drained
	gone   bool // the reader stopped: writes fail
}

// newPipe returns a pipe that buffers up to limit bytes.
func newPipe(limit int) *pipe {
	p := &pipe{limit: limit}
	p.cond = sync.NewCond(&p.mu)
	return p
}

// Write buffers b, waiting while the buffer is full.
func (p *pipe) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.buf) > 0 && len(p.buf)+len(b) > p.limit && !p.gone {
		p.cond.Wait()
	}
	if p.gone || p.closed {
		return 0, errLiveGone
	}
	p.buf = append(p.buf, b...)
	p.cond.Broadcast()
	return len(b), nil
}

// Read reads what is buffered, waiting while nothing is.
func (p *pipe) Read(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.buf) == 0 && !p.closed && !p.gone {
		p.cond.Wait()
	}
	if len(p.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(b, p.buf)
	p.buf = p.buf[n:]
	if len(p.buf) == 0 {
		p.buf = nil // let a burst's buffer go
	}
	p.cond.Broadcast()
	return n, nil
}

// Close ends the writing: the reader reads what is left, then io.EOF.
func (p *pipe) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	p.cond.Broadcast()
	return nil
}

// CloseRead says the reader stopped: pending and later writes fail.
func (p *pipe) CloseRead() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gone, p.buf = true, nil
	p.cond.Broadcast()
}

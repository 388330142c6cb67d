package record

import "bytes"

// body cuts one request or response body into lines as it streams, and
// hands the lines each read finished to the capture, announced by one
// "sent" or "received" record. It holds the unfinished line, up to
// maxLine bytes and while the capture's HeldLimit allows; a longer one
// is dropped as it comes and written as a "cut" record with its length.
type body struct {
	c       *Capture
	req     int
	kind    string // "sent" or "received"
	maxLine int
	rewrite func([]byte) []byte // applied to each line written, if set

	part  []byte // the unfinished line
	over  int64  // the length so far of an unfinished line past maxLine
	done  []byte // lines finished by this read, each with its newline
	count int    // how many
	bytes int64  // the body's bytes so far
	lines int    // its lines so far, cut ones included
}

// add takes the next bytes of the body.
func (b *body) add(p []byte) {
	b.bytes += int64(len(p))
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			b.hold(p)
			break
		}
		b.hold(p[:i])
		b.endLine()
		p = p[i+1:]
	}
	b.emit()
}

// hold adds bytes of the unfinished line.
func (b *body) hold(p []byte) {
	if b.over == 0 && len(b.part)+len(p) <= b.maxLine && b.c.hold(len(p)) {
		b.part = append(b.part, p...)
		return
	}
	if b.over == 0 {
		b.over = int64(len(b.part))
		b.c.release(len(b.part))
		b.part = b.part[:0]
	}
	b.over += int64(len(p))
}

// endLine finishes the unfinished line at its newline.
func (b *body) endLine() {
	b.lines++
	if b.over > 0 {
		b.emit() // the lines before it go first
		n := b.over
		b.over = 0
		b.c.write(b.c.record("cut", b.req, func(r *recordBuf) { r.num("bytes", int(n)) }), nil)
		return
	}
	line := b.part
	if b.rewrite != nil && len(bytes.TrimSpace(line)) > 0 {
		line = b.rewrite(line)
	}
	b.done = append(b.done, line...)
	b.done = append(b.done, '\n')
	b.c.release(len(b.part))
	b.part = b.part[:0]
	b.count++
}

// emit writes the lines finished so far.
func (b *body) emit() {
	if b.count == 0 {
		return
	}
	n := b.count
	b.c.write(b.c.record(b.kind, b.req, func(r *recordBuf) { r.num("lines", n) }), b.done)
	b.done, b.count = b.done[:0], 0
	if cap(b.done) > 64<<10 {
		b.done = nil // a read of long lines does not pin its buffer
	}
}

// finish ends the body: an unfinished last line gets the newline the
// capture needs (never the traffic), and newlineAdded says so.
func (b *body) finish() (newlineAdded bool) {
	if len(b.part) > 0 || b.over > 0 {
		newlineAdded = true
		b.endLine()
	}
	b.emit()
	b.part = nil
	return newlineAdded
}

package replay

// joined is an event joined from pieces of several lines: a log message
// split over entries, the data lines of an SSE event. It holds the event
// up to the line limit and no further: past the limit the pieces are
// only counted, so that the event's detail gives its real size, and the
// framer never holds more than the limit, however long the event.
type joined struct {
	data []byte
	size int64 // of the whole event, past the limit too
	over bool  // size is over the limit: data holds nothing
	// end is the event's last two bytes, held or not, for the line
	// ending a log message carries.
	end [2]byte
}

// keepJoined is the largest buffer a framer keeps from one event to the
// next: a buffer a long event grew is let go when the next one starts,
// so that one long message does not stay held for the rest of the
// capture.
const keepJoined = 1 << 20

// start begins a new event.
func (j *joined) start() {
	if cap(j.data) > keepJoined {
		j.data = nil
	}
	j.data, j.size, j.over, j.end = j.data[:0], 0, false, [2]byte{}
}

// add appends one piece of the event, or only counts it once the event
// is longer than limit.
func (j *joined) add(piece []byte, limit int) {
	j.size += int64(len(piece))
	switch n := len(piece); {
	case n >= 2:
		j.end = [2]byte{piece[n-2], piece[n-1]}
	case n == 1:
		j.end = [2]byte{j.end[1], piece[0]}
	}
	if j.over {
		return
	}
	if j.size > int64(limit) {
		j.over, j.data = true, nil
		return
	}
	if need := len(j.data) + len(piece); need > cap(j.data) {
		// Grow as append would, but never past the limit: append's
		// headroom would hold up to a quarter more than any event may
		// be.
		grown := make([]byte, len(j.data), min(max(need, 2*cap(j.data), 512), limit))
		copy(grown, j.data)
		j.data = grown
	}
	j.data = append(j.data, piece...)
}

// addHeld is add for a piece of which only the first len(held) of its
// size bytes may be held (all of them within the limit), and whose last
// two bytes are end (right-aligned when fewer).
func (j *joined) addHeld(held []byte, size int64, end [2]byte, limit int) {
	if int64(len(held)) == size {
		j.add(held, limit)
		return
	}
	// Only part of the piece was held: it is past the limit.
	j.size += size
	switch {
	case size >= 2:
		j.end = end
	case size == 1:
		j.end = [2]byte{j.end[1], end[1]}
	}
	j.over, j.data = true, nil
}

// skip counts n bytes of the event that were never held: a line over
// the limit, which makes the event too long.
func (j *joined) skip(n int64) {
	j.size += n
	j.over, j.data, j.end = true, nil, [2]byte{}
}

// newlineLen is the length of the line ending the event ends in: 2 for
// CRLF, 1 for LF, else 0.
func (j *joined) newlineLen() int {
	switch {
	case j.size >= 2 && j.end == [2]byte{'\r', '\n'}:
		return 2
	case j.size >= 1 && j.end[1] == '\n':
		return 1
	}
	return 0
}

package replay

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"strings"
)

// dockerEntry is what one json-file entry holds, as encoding/json would
// decode it into {Log *string; Stream, Time string}, but with the log
// unescaped in place, into the entry's line: decoding a whole
// message into a string and copying it into the message took three
// copies of a 60 MB entry beside its line.
type dockerEntry struct {
	// log is the log's first bytes, up to the limit the decoding was
	// given, in the entry's line or in dockerFramer.own; size is its whole length and end its last two bytes, held
	// or not (right-aligned when fewer).
	log    []byte
	size   int64
	end    [2]byte
	hasLog bool
	stderr bool
	time   string
}

// errNotEntry is a member of a type the entry's fields do not take:
// encoding/json would fail to decode the entry.
var errNotEntry = errors.New("not a json-file entry")

// decode reads the json-file entry in data into d.entry, keeping at most
// limit bytes of its log, and reports whether it is one: a JSON object
// with a log that is a string. The log is unescaped into data itself,
// over bytes already read, once data is known to be an entry: it takes
// no copy of its own, and a line that is no entry stays as it was.
func (d *dockerFramer) decode(data []byte, limit int) bool {
	// Valid first, as encoding/json checks before decoding: the same
	// documents are entries, however deep their other members nest.
	if !json.Valid(data) {
		return false
	}
	if d.scan == nil {
		d.scan = newJSONScan(&d.src, 0)
	}
	d.src.Reset(data)
	s := d.scan
	s.reset(&d.src, 0)
	e := &d.entry
	*e = dockerEntry{}
	if c, _ := s.peek(); c != '{' {
		return false // null, or a type encoding/json would refuse
	}
	at := int64(-1) // the offset of the last log's string
	err := s.members(func(key string) error {
		c, err := s.peek()
		if err != nil {
			return err
		}
		// encoding/json matches keys without regard to case; a null
		// leaves a string as it was and a pointer nil.
		isLog, isStream, isTime := strings.EqualFold(key, "log"), strings.EqualFold(key, "stream"), strings.EqualFold(key, "time")
		switch {
		case !isLog && !isStream && !isTime:
			return s.skip()
		case c == 'n':
			e.hasLog = e.hasLog && !isLog
			return s.skip()
		case c != '"':
			return errNotEntry
		case isLog:
			e.hasLog, at = true, s.off
			return s.skip()
		}
		v, _, err := s.stringValue(math.MaxInt)
		if isStream {
			e.stderr = v == "stderr"
		} else {
			e.time = v
		}
		return err
	})
	if err != nil || !e.hasLog {
		return false
	}
	d.src.Reset(data[at:])
	s.reset(&d.src, at)
	return d.logValue(data, limit) == nil
}

// logValue reads the log string that comes next into d.entry: into data
// from its start, over the bytes the scanner has read, or into a buffer
// of its own should invalid UTF-8 (one byte, three of U+FFFD) catch up
// with them; at most limit bytes are kept, the rest counted.
func (d *dockerFramer) logValue(data []byte, limit int) error {
	s, e := d.scan, &d.entry
	if err := s.expect('"'); err != nil {
		return err
	}
	e.log = data[:0]
	inPlace := true
	str := jsonString{s: s}
	var chunk [512]byte
	for {
		p, held := chunk[:], len(e.log) < limit
		if held {
			if read := len(data) - d.src.Len(); inPlace && read == len(e.log) {
				if cap(d.own) > keepJoined {
					d.own = nil
				}
				d.own = append(d.own[:0], e.log...)
				e.log, inPlace = d.own, false
			}
			end := limit
			if inPlace {
				end = min(end, len(data)-d.src.Len())
			} else if len(e.log) == cap(e.log) {
				e.log = append(e.log, 0)[:len(e.log)]
			}
			p = e.log[len(e.log):min(cap(e.log), end)]
		}
		n, err := str.Read(p)
		if held {
			e.log = e.log[:len(e.log)+n]
		}
		e.size += int64(n)
		switch {
		case n >= 2:
			e.end = [2]byte{p[n-2], p[n-1]}
		case n == 1:
			e.end = [2]byte{e.end[1], p[0]}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

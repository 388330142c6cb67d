package replay

import (
	"errors"
	"io"
)

// SetFormat makes the reader read every capture in format f rather than
// recognise each one's format by its first bytes (FormatAuto, the
// default, also when f is empty). It must be called before the first
// Next.
func (r *Reader) SetFormat(f Format) error {
	if f == "" {
		f = FormatAuto
	}
	if _, err := ParseFormat(string(f)); err != nil {
		return err
	}
	r.format = f
	return nil
}

// SetURLFilter makes the reader read, of a HAR capture, only the
// entries whose request URL contains s (all when s is empty). It must be
// called before the first Next.
func (r *Reader) SetURLFilter(s string) { r.url = s }

// startFormat sets up the framer of the capture just opened, sniffing
// its first bytes unless a format was asked for.
func (r *Reader) startFormat() {
	f := r.format
	r.mix, r.skip, r.after = nil, 0, 0
	if f == FormatAuto {
		var d detection
		paused := false
		for {
			var ready bool
			if paused {
				d, ready = detectPaused(r.buf[r.r:r.w])
			} else {
				d, ready = detect(r.buf[r.r:r.w], r.eof)
			}
			if ready || r.eof {
				break
			}
			r.fill()
			// fill moves what is held to the front and reads into the
			// rest: a buffer left unfilled is a short read.
			// A regular file never pauses: a short read there is its
			// end, whatever the buffer's size or whether it is mapped.
			paused = !r.eof && r.w < len(r.buf) && r.sources[r.cur].size < 0
		}
		f = d.format
		if f == "" {
			f = FormatNDJSON
		}
		r.mix = &mixer{m: Mixed{File: r.name, Format: f, Spans: d.prefix}}
		if n := len(d.prefix); n > 0 {
			r.skip = d.prefix[n-1].Last
		}
	}
	r.frame, r.har = newFramer(f, r.maxLine, r.mix), nil
	if f == FormatRecord {
		r.frame = &recordFramer{mix: r.mix, stats: &r.stats}
	}
	if f == FormatHAR {
		src := r.sources[r.cur]
		fill := func() {
			if r.onFill != nil {
				r.onFill()
			}
		}
		r.har = newHARReader(r.name, harInput{r}, r.url, r.maxLine, &r.stats, !src.stdin && src.size >= 0 && r.src.format == "", fill)
	}
	for _, seen := range r.stats.Formats {
		if seen == f {
			return
		}
	}
	r.stats.Formats = append(r.stats.Formats, f)
}

// endFormat reports, at a capture's end, what auto-detection read other
// than as its format: its prefix of framing then the NDJSON events after
// it, or the lines a framer noted.
func (r *Reader) endFormat() {
	x := r.mix
	r.mix = nil
	if x == nil || len(x.m.Spans) == 0 {
		return
	}
	m := x.m
	if r.skip > 0 && r.after > 0 {
		m.Spans = append(m.Spans, Span{First: r.skip + 1, Last: r.num, Lines: r.after, As: FormatNDJSON})
	}
	r.stats.Mixed = append(r.stats.Mixed, &m)
	r.mu.Lock()
	r.warnings = append(r.warnings, &m)
	r.mu.Unlock()
}

// harInput reads a HAR capture's bytes for its JSON decoder: first what
// the reader's buffer holds from sniffing it, then the rest of the
// stream, with damage counted as fill counts it.
type harInput struct{ r *Reader }

func (in harInput) Read(p []byte) (int, error) {
	r := in.r
	if r.r < r.w {
		n := copy(p, r.buf[r.r:r.w])
		r.r += n
		return n, nil
	}
	if r.eof {
		return 0, io.EOF
	}
	n, err := r.src.Read(p)
	r.stats.Bytes += int64(n)
	if err == nil {
		return n, nil
	}
	r.eof = true
	var d *DamageError
	if errors.As(err, &d) && !r.isClosed() {
		r.damaged(d)
	}
	if n > 0 {
		return n, nil
	}
	return 0, io.EOF
}

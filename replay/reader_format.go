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
	if f == FormatAuto {
		for {
			var ready bool
			if f, ready = sniff(r.buf[r.r:r.w], r.eof); ready || r.eof {
				break
			}
			r.fill()
		}
		if f == "" {
			f = FormatNDJSON
		}
	}
	r.frame, r.har = newFramer(f, r.maxLine), nil
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

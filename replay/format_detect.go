package replay

import (
	"bytes"
	"errors"
	"io"

	"github.com/agentskit/snapctl/replay/internal/wire"
)

// The window auto-detection weighs: a capture's first detectLines lines
// or detectBytes bytes, whichever ends first, enough for a framing line
// or two in front of an NDJSON capture to be outweighed by its events.
// A capture whose first detectSettled non-blank lines are all framing of
// one format is that format without waiting for the rest, so that a live
// stream in another format is recognised after a few lines.
const (
	detectBytes   = 32 << 10
	detectLines   = 32
	detectSettled = 4
)

// utf8BOM starts some captures; a browser strips it from an event
// stream.
var utf8BOM = []byte("\xef\xbb\xbf")

// detection is what detect makes of a capture's first bytes: its format,
// and for an NDJSON capture the runs of leading lines that are another
// format's framing, which are reported and not read as events.
type detection struct {
	format Format
	prefix []Span
}

// sniff recognises a capture's format from its first bytes (after
// decompression), as detect does, for a caller that wants only the
// format (a HAR response body).
func sniff(b []byte, eof bool) (Format, bool) {
	d, ready := detect(b, eof)
	return d.format, ready
}

// detect recognises a capture's format from its first bytes (after
// decompression). A capture whose first line is an event is NDJSON at
// once, so that a live NDJSON stream is never held back. Otherwise the
// lines of the window vote: a format is chosen only when the lines that
// are events do not outnumber its framing lines, and an NDJSON capture's
// leading framing lines make its prefix. ready is false when b is too
// short to tell and more input may come.
func detect(b []byte, eof bool) (d detection, ready bool) {
	return detectWith(b, eof, false)
}

// detectPaused is detect for a source that paused (a read returned less
// than it was asked for, as a live pipe does): the complete lines there
// are vote as at the end of a window, so that a live stream opening with
// lines of no format is not held back until its writer has sent a whole
// window. A HAR document or a first line still unfinished waits.
func detectPaused(b []byte) (d detection, ready bool) {
	return detectWith(b, false, true)
}

func detectWith(b []byte, eof, paused bool) (d detection, ready bool) {
	full := eof || len(b) >= detectBytes
	if len(b) > detectBytes {
		// Only the window counts, however much was read at once, so that
		// the same bytes are read the same from a file and a pipe.
		b, eof = b[:detectBytes], false
	}
	b = bytes.TrimPrefix(b, utf8BOM)
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	if i == len(b) {
		return detection{format: FormatNDJSON}, full
	}
	skip := 0 // lines of a HAR-shaped value in front of the rest
	if b[i] == '{' {
		f, ok := sniffObject(b[i+1:])
		switch {
		case !ok && !full:
			return detection{}, false
		case !ok || f == FormatNDJSON:
			return detection{format: FormatNDJSON}, true
		case f == FormatRecord:
			return detection{format: FormatRecord}, true
		case f == FormatHAR:
			doc, lines, ready := harDocument(b[i:], full)
			if !ready {
				return detection{}, false
			}
			if doc {
				return detection{format: FormatHAR}, true
			}
			if lines > 0 {
				skip = bytes.Count(b[:i], []byte{'\n'}) + lines
			}
		}
	}
	// A line cut by the end of a full window is as much of it as counts.
	lines, ready := windowLines(b, eof || full, skip+detectLines)
	if f := settled(lines); f != "" && skip == 0 {
		return detection{format: f}, true
	}
	if !ready && !full && !(paused && len(lines) > skip) {
		return detection{}, false
	}
	d = weigh(lines, skip)
	if skip > 0 && d.format == FormatNDJSON {
		doc := Span{First: 1, Last: skip, As: FormatHAR, What: "document"}
		for _, l := range lines[:min(skip, len(lines))] {
			if !wire.IsBlank(l) {
				doc.Lines++
			}
		}
		d.prefix = append([]Span{doc}, d.prefix...)
	}
	return d, true
}

// harDocument tells whether b, which opens like a HAR document, is one:
// its first JSON value runs past the window, or fills the capture with
// nothing but white space after it. A value with more after it is a HAR
// -shaped prefix of something else: lines is then the number of lines it
// spans, when nothing follows it on its last line.
func harDocument(b []byte, full bool) (doc bool, lines int, ready bool) {
	// The HAR reader's own scanner: it has no depth limit (a HAR may nest
	// a field it does not need 100,000 deep), as encoding/json has.
	s := newJSONScan(bytes.NewReader(b), 0)
	err := s.skip()
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return true, 0, full
	case err != nil:
		return false, 0, true // not JSON: the lines say what it is
	}
	end := int(s.off)
	rest := b[end:]
	if wire.IsBlank(rest) {
		return true, 0, full
	}
	if nl := bytes.IndexByte(rest, '\n'); nl >= 0 && wire.IsBlank(rest[:nl]) {
		return false, bytes.Count(b[:end], []byte{'\n'}) + 1, true
	}
	return false, 0, true
}

// windowLines returns the first max lines of the window that can be
// told apart: its complete lines, and a last unfinished one only when it
// opens an event (a cut framing line may not show what it is yet).
// ready is false while the window may still grow by lines.
func windowLines(b []byte, eof bool, max int) (lines [][]byte, ready bool) {
	for len(b) > 0 && len(lines) < max {
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			if eof || classify(b).kind == kindEvent {
				lines = append(lines, b)
			}
			break
		}
		lines = append(lines, bytes.TrimSuffix(b[:nl], []byte{'\r'}))
		b = b[nl+1:]
	}
	return lines, eof || len(lines) >= max
}

// lineKind is what one line looks like to auto-detection.
type lineKind uint8

const (
	kindBlank   lineKind = iota
	kindEvent            // a JSON object: an NDJSON event
	kindOther            // neither an event nor any format's framing
	kindSSE              // an SSE comment or field
	kindDocker           // a Docker json-file entry
	kindCRI              // a CRI log line
	kindKubectl          // a timestamped line, as kubectl logs --timestamps writes
	kindHAR              // a HAR-shaped object on one line
)

// kindFormats are the formats whose framing a line may be, as candidates
// for a whole capture, in the order a tie between them is settled.
var kindFormats = []struct {
	kind   lineKind
	format Format
}{{kindSSE, FormatSSE}, {kindDocker, FormatDocker}, {kindCRI, FormatCRI}, {kindKubectl, FormatKubectl}, {kindHAR, FormatHAR}}

// lineClass is a line's kind and, for framing, what it is in words.
type lineClass struct {
	kind lineKind
	what string
}

// classify tells what line looks like.
func classify(line []byte) lineClass {
	if wire.IsBlank(line) {
		return lineClass{kind: kindBlank}
	}
	if looksLikeEvent(line) {
		rest := bytes.TrimLeft(line, " \t")[1:]
		switch f, ok := sniffObject(rest); {
		case ok && f == FormatDocker:
			return lineClass{kindDocker, "log entry"}
		case ok && f == FormatHAR:
			return lineClass{kindHAR, "document"}
		}
		return lineClass{kind: kindEvent}
	}
	switch {
	case line[0] == ':':
		return lineClass{kindSSE, "comment"}
	case isSSEField(line):
		name, _, _ := bytes.Cut(line, []byte{':'})
		return lineClass{kindSSE, string(name) + " field"}
	case criPrefix(line) > 0:
		return lineClass{kindCRI, "log line"}
	case timestampPrefix(line) > 0:
		return lineClass{kindKubectl, "timestamped line"}
	}
	return lineClass{kind: kindOther}
}

// looksLikeEvent tells whether line opens a JSON object, as every NDJSON
// event does: such a line is read as an event rather than dropped by a
// format it does not belong to.
func looksLikeEvent(line []byte) bool {
	line = bytes.TrimLeft(line, " \t")
	return len(line) > 0 && line[0] == '{'
}

// weigh decides the format of the window's lines after the first skip:
// the format with the most framing lines, unless events outnumber them
// (a tie goes to the format, whose framer reads a line that looks like
// an event as one, while the prefix would read a log line as framing);
// NDJSON otherwise, with the leading framing lines as its prefix.
func weigh(lines [][]byte, skip int) detection {
	classes := make([]lineClass, len(lines))
	var count [kindHAR + 1]int
	for i := skip; i < len(lines); i++ {
		classes[i] = classify(lines[i])
		count[classes[i].kind]++
	}
	best := kindFormats[0]
	for _, k := range kindFormats[1:] {
		if k.format != FormatHAR && count[k.kind] > count[best.kind] {
			best = k
		}
	}
	if n := count[best.kind]; n > 0 && n >= count[kindEvent] {
		return detection{format: best.format}
	}
	d := detection{format: FormatNDJSON}
	for i := skip; i < len(lines); i++ {
		c := classes[i]
		if c.kind == kindBlank {
			continue
		}
		f := formatOf(c.kind)
		if f == "" {
			break
		}
		if n := len(d.prefix); n > 0 && d.prefix[n-1].As == f && d.prefix[n-1].What == c.what {
			d.prefix[n-1].Last = i + 1
			d.prefix[n-1].Lines++
			continue
		}
		d.prefix = append(d.prefix, Span{First: i + 1, Last: i + 1, Lines: 1, As: f, What: c.what})
	}
	return d
}

// settled returns the format whose framing the first detectSettled
// non-blank lines all are, "" unless there are that many and they are.
func settled(lines [][]byte) Format {
	var f Format
	n := 0
	for _, l := range lines {
		c := classify(l)
		if c.kind == kindBlank {
			continue
		}
		lf := formatOf(c.kind)
		if lf == "" || lf == FormatHAR || (n > 0 && lf != f) {
			return ""
		}
		if f, n = lf, n+1; n == detectSettled {
			return f
		}
	}
	return ""
}

// formatOf is the format whose framing a line of kind k is, "" for an
// event or a line of no format.
func formatOf(k lineKind) Format {
	for _, kf := range kindFormats {
		if kf.kind == k {
			return kf.format
		}
	}
	return ""
}

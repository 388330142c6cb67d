package replay

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Sniffer looks at the first malformed lines of a run, to say what a
// capture that is mostly malformed looks like and how to read it: a
// wrapper with the event under some key (and the --event-path that reads
// it), or another format altogether (SSE, HAR, a container log). It keeps
// a few sample lines and two counts, and never changes a verdict. The
// run must set Options.RawMalformed.
type Sniffer struct {
	// Known, when set, tells the malformed lines known for what they are
	// (a server's error body: inspect.ErrorBodyOf): they are no sign of
	// unusable input, and no sample; the hint counts them as malformed.
	Known func(res *Result) bool

	events, malformed, known int
	samples                  []sample
}

type sample struct {
	file string
	line int
	data []byte
	// event is set when the line reads as a protocol event that breaks
	// a rule: its envelope names an event.
	event bool
}

// Sniffing bounds: how many malformed lines are kept, and the longest.
const (
	sniffSamples = 8
	sniffBytes   = 64 << 10
	sniffKeys    = 64 // keys tried as --event-path, the common ones first
)

// Observe takes one result of the run.
// Events is how many results the sniffer observed: every event, a
// malformed line or a framing problem of a HAR among them.
func (s *Sniffer) Events() int { return s.events }

func (s *Sniffer) Observe(res *Result) {
	s.events++
	if res.Reason != ReasonMalformed {
		return
	}
	s.malformed++
	if s.Known != nil && s.Known(res) {
		s.known++
		return
	}
	if len(s.samples) < sniffSamples && res.Raw != nil && len(res.Raw) <= sniffBytes {
		e := res.Err.Envelope
		s.samples = append(s.samples, sample{res.File, res.Line, bytes.Clone(res.Raw), e != nil && e.Event != ""})
	}
}

// Hint is what unusable input looks like and what to do about it.
type Hint struct {
	// Malformed of Events lines were malformed.
	Malformed, Events int
	// Format names what the lines look like: "wrapped JSON",
	// "Server-Sent Events", "a HAR file", "container log lines" or
	// "JSON and text, not events", "binary data, not text", "text, not
	// JSON", or "protocol events that break its rules" (the input is
	// right, the events are not).
	Format string
	// EventPath is the --event-path that decodes the sample lines of
	// wrapped JSON, or "".
	EventPath string
	// Advice says what to do, in a sentence.
	Advice string
	// File and Line are the first malformed line looked at.
	File string
	Line int
}

// Hint returns the hint when most lines were malformed, or nil. eventPath
// is the run's own --event-path: a wrapper that it does not fit is named
// all the same.
func (s *Sniffer) Hint(eventPath string) *Hint {
	if s.malformed == 0 || (s.malformed-s.known)*2 <= s.events || len(s.samples) == 0 {
		return nil
	}
	h := &Hint{Malformed: s.malformed, Events: s.events, File: s.samples[0].file, Line: s.samples[0].line}
	switch {
	case 2*s.eventSamples() > len(s.samples):
		// Most are events, each breaking a rule: a line of junk among
		// them does not make the capture "JSON and text".
		h.Format, h.Advice = "protocol events that break its rules", "the capture is read right, the server sends invalid events: see each line's detail, or snapctl inspect --line N"
	case s.all(isSSE):
		h.Format, h.Advice = "Server-Sent Events", "read them as such with --format sse"
	case s.any(isContext):
		h.Format, h.Advice = "snapctl record's context records", "read the capture as such with --format record (or auto)"
	case s.any(isHAR):
		h.Format, h.Advice = "a HAR file", "read it as such with --format har"
	case s.all(isContainerLog):
		h.Format, h.Advice = "container log lines", "read CRI or kubectl --timestamps lines with --format cri or kubectl; cut a docker-compose service name off each line"
	case s.all(gjson.ValidBytes):
		h.Format = "wrapped JSON"
		if p := s.eventPath(eventPath); p != "" {
			h.EventPath = p
			h.Advice = fmt.Sprintf("the event is under %q: try --event-path %s", p, p)
		} else {
			h.Advice = "no key of them holds a valid event: check that the capture is agentskit.chat.turn v1"
		}
	case s.any(gjson.ValidBytes):
		h.Format, h.Advice = "JSON and text, not events", "a capture has one agentskit.chat.turn v1 event per line (NDJSON)"
	case s.any(isBinary):
		h.Format, h.Advice = "binary data, not text", "this is not a capture (a program, an image, an archive?): a capture has one agentskit.chat.turn v1 event per line (NDJSON), gzip or zstd compressed or not"
	default:
		h.Format, h.Advice = "text, not JSON", "a capture has one agentskit.chat.turn v1 event per line (NDJSON)"
	}
	return h
}

// eventSamples counts the samples that read as protocol events.
func (s *Sniffer) eventSamples() int {
	n := 0
	for _, x := range s.samples {
		if x.event {
			n++
		}
	}
	return n
}

// isBinary says whether a line is not text: it holds a NUL byte or is
// not UTF-8, as programs, images and archives do and logs do not.
func isBinary(b []byte) bool { return bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) }

func (s *Sniffer) all(f func([]byte) bool) bool {
	return !slices.ContainsFunc(s.samples, func(x sample) bool { return !f(x.data) })
}

func (s *Sniffer) any(f func([]byte) bool) bool {
	return slices.ContainsFunc(s.samples, func(x sample) bool { return f(x.data) })
}

// commonEventKeys are the keys wrappers usually keep an event under, tried
// before the others.
var commonEventKeys = []string{"event", "frame", "data", "message", "msg", "payload", "body", "record", "json", "log", "line", "value"}

// eventPath returns the path, among the common keys and every top-level
// key of the first sample, whose value decodes as an event in the most
// samples (at least one), skipping the run's own.
func (s *Sniffer) eventPath(tried string) string {
	keys := slices.Clone(commonEventKeys)
	gjson.ParseBytes(s.samples[0].data).ForEach(func(k, _ gjson.Result) bool {
		if !slices.Contains(keys, k.String()) {
			keys = append(keys, k.String())
		}
		return len(keys) < sniffKeys
	})
	best, bestN := "", 0
	var ev Event
	for _, k := range keys {
		path := gjsonEscape(k)
		if path == tried || path == "" {
			continue
		}
		d := Decoder{EventPath: path}
		n := 0
		for _, x := range s.samples {
			if d.Decode(x.data, &ev) == nil {
				n++
			}
		}
		if n > bestN {
			best, bestN = path, n
		}
	}
	return best
}

// gjsonEscape writes a key as a gjson path of one step.
func gjsonEscape(k string) string {
	var b []byte
	for i := 0; i < len(k); i++ {
		switch k[i] {
		case '.', '*', '?', '|', '#', '@', '\\', '!', '=', '<', '>', '%':
			b = append(b, '\\')
		}
		b = append(b, k[i])
	}
	return string(b)
}

func isSSE(line []byte) bool {
	for _, p := range []string{"data:", "event:", "id:", "retry:", ":"} {
		if bytes.HasPrefix(line, []byte(p)) {
			return true
		}
	}
	return false
}

// isContext spots a context record of a capture snapctl record wrote.
func isContext(line []byte) bool { return bytes.HasPrefix(line, recordKey) }

// isHAR spots the lines of a pretty-printed HAR file.
func isHAR(line []byte) bool {
	t := bytes.TrimSpace(line)
	return bytes.HasPrefix(t, []byte(`"log": {`)) || bytes.HasPrefix(t, []byte(`"entries": [`)) ||
		(bytes.HasPrefix(t, []byte(`{"log":`)) && bytes.Contains(t, []byte(`"entries"`)))
}

// containerLog matches a CRI log line (timestamp, stream, tag) and a
// docker-compose prefix ("name  | ").
var containerLog = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\d{4}-\d\d-\d\dT\S+ (stdout|stderr) [FP] |[\w.-]+\s+\| )`)
})

func isContainerLog(line []byte) bool { return containerLog().Match(line) }

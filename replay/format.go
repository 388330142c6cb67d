package replay

import (
	"bytes"
	"fmt"
	"strings"
)

// Format is the transport a capture's events came in: how its
// (decompressed) bytes are cut into events before each is decoded.
type Format string

// The formats a Reader reads. FormatAuto recognises each capture's
// format from its first lines (see sniff).
const (
	FormatAuto    Format = "auto"
	FormatNDJSON  Format = "ndjson"  // one event per line
	FormatSSE     Format = "sse"     // Server-Sent Events: data lines, blank-line separated
	FormatHAR     Format = "har"     // HAR 1.2: response bodies and WebSocket messages
	FormatDocker  Format = "docker"  // Docker json-file log entries
	FormatCRI     Format = "cri"     // CRI container log lines, P partials joined
	FormatKubectl Format = "kubectl" // kubectl logs --timestamps lines
	FormatRecord  Format = "record"  // what snapctl record wrote: NDJSON lines and context records
)

// Formats lists every format a Reader can be asked for, FormatAuto first.
var Formats = []Format{FormatAuto, FormatNDJSON, FormatSSE, FormatHAR, FormatDocker, FormatCRI, FormatKubectl, FormatRecord}

// ParseFormat returns the format named s, or an error listing the names.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown format %q (want %s)", s, strings.Join(names, ", "))
}

// Origin is what a transport says about an event beyond its file and
// line. It is nil for NDJSON, which says nothing more.
type Origin struct {
	// LoggedAt is the container log's own timestamp of the event's first
	// entry (Docker, CRI, kubectl).
	LoggedAt string
	// LastEventID is the SSE id in effect when the event was dispatched.
	LastEventID string
	// Entry is the 1-based index of the HAR entry whose response body or
	// WebSocket message held the event, in the document's order; URL is
	// that entry's request URL.
	Entry int
	URL   string
	// ReceivedAt, in a capture snapctl record wrote, is when the line
	// reached the proxy (RFC 3339, nanoseconds); Request is the 1-based
	// number of the HTTP exchange that carried it and URL its request's;
	// Sent marks a line of the request body (the client's submit) rather
	// than of the response; Status is the response's HTTP status.
	ReceivedAt string
	Request    int
	Sent       bool
	Status     int
	// RequestSession and RequestTurn are the session and turn of the
	// submit the exchange's request carried: how a server error body,
	// which names neither, is attributed (in a HAR, set for the lines of
	// a response with an error status only).
	RequestSession, RequestTurn string
}

// framer cuts the physical lines of one capture into events. Every
// physical line, blank ones included, goes through line; the records it
// returns borrow their Data until the next call.
type framer interface {
	// line takes the next physical line and returns an event when one is
	// complete.
	line(l Line) (Line, bool)
	// pending returns, one call at a time, the events a line completed
	// beyond the one line returned, before the next line is read.
	pending() (Line, bool)
	// flush returns, one call at a time, the events left unfinished at the
	// end of the capture: malformed, with the format's problem.
	flush() (Line, bool)
}

// newFramer returns the framer of f, nil for NDJSON, whose lines are its
// events. mix, under --format auto, takes the lines it reads otherwise.
func newFramer(f Format, maxLine int, mix *mixer) framer {
	switch f {
	case FormatSSE:
		return &sseFramer{maxLine: maxLine, mix: mix}
	case FormatDocker:
		return &dockerFramer{maxLine: maxLine, mix: mix}
	case FormatCRI:
		return &criFramer{maxLine: maxLine, mix: mix}
	case FormatKubectl:
		return kubectlFramer{mix: mix}
	}
	return nil
}

// sniffObject tells a Docker json-file entry ({"log":"…) and a HAR
// document ({"log":{…) from an NDJSON event, given what follows the
// opening brace.
func sniffObject(b []byte) (Format, bool) {
	k := 0
	ws := func() {
		for k < len(b) && isSpace(b[k]) {
			k++
		}
	}
	ws()
	const rec = `"snapctl"`
	if m := min(len(rec), len(b)-k); bytes.Equal(b[k:k+m], []byte(rec[:m])) {
		if m < len(rec) {
			return "", false
		}
		return FormatRecord, true // no event has the key: a context record
	}
	const key = `"log"`
	n := min(len(key), len(b)-k)
	if !bytes.Equal(b[k:k+n], []byte(key[:n])) {
		return FormatNDJSON, true
	}
	if n < len(key) {
		return "", false
	}
	k += n
	ws()
	if k >= len(b) {
		return "", false
	}
	if b[k] != ':' {
		return FormatNDJSON, true
	}
	k++
	ws()
	switch {
	case k >= len(b):
		return "", false
	case b[k] == '"':
		return FormatDocker, true
	case b[k] == '{':
		return FormatHAR, true
	}
	return FormatNDJSON, true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// isSSEField tells whether line is an SSE comment or one of its fields.
func isSSEField(line []byte) bool {
	if len(line) > 0 && line[0] == ':' {
		return true
	}
	for _, f := range []string{"data", "event", "id", "retry"} {
		if bytes.HasPrefix(line, []byte(f)) && (len(line) == len(f) || line[len(f)] == ':') {
			return true
		}
	}
	return false
}

// timestampPrefix returns the length of an RFC 3339 timestamp and the
// space after it at the start of line (as kubectl --timestamps and CRI
// write them), 0 when there is none.
func timestampPrefix(line []byte) int {
	sp := bytes.IndexByte(line, ' ')
	if sp < 20 || sp > 40 {
		return 0
	}
	ts := line[:sp]
	for _, i := range []int{0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18} {
		if ts[i] < '0' || ts[i] > '9' {
			return 0
		}
	}
	if ts[4] != '-' || ts[7] != '-' || ts[10] != 'T' || ts[13] != ':' || ts[16] != ':' {
		return 0
	}
	return sp + 1
}

// formatProblem is an event that its transport did not carry whole:
// malformed, with the format's words for what is wrong. The message
// quotes nothing from the capture, so it is its own redacted form.
func formatProblem(f Format, msg string) *DecodeError {
	m := string(f) + ": " + msg
	return &DecodeError{Code: CodeInvalidPayload, Offset: -1, Problems: []Problem{{Message: m, RedactedMessage: m}}}
}

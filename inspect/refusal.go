package inspect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/replay"
)

// Bounds on what is kept of error bodies, whatever a hostile capture
// holds: the distinct codes counted one by one, and the bytes of each
// code's first message.
const (
	maxRefusalCodes   = 32
	maxRefusalMessage = 200
	otherRefusalCode  = "(other codes)"
)

// codePattern is a diagnostic code of the protocol (diagnostic.code).
var codePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,63}$`) })

// refusal is what is kept of the error bodies of one code.
type refusal struct {
	code, message string
	retryable     bool
	t             tally
	// answered counts the bodies that came right after a submit, or in
	// the HTTP exchange of one, whose turn they refused; first names the
	// first such turn and how it is known.
	answered int
	first    string
}

// glued is one line where an error body and the next response's first
// event were written with nothing between them.
type glued struct {
	code string
	// lost says what the event glued after the body was: its event id,
	// session and sequence, or what little could be read of it.
	lost string
}

// refusals collects the server error bodies of a capture. It looks only at
// lines that failed to decode and start with {"error", and keeps a
// count, a few positions and one message per code.
type refusals struct {
	byCode map[string]*refusal
	order  []*refusal
	glued  tally
	first  []glued
	// lost holds, by session, the sequences of the events glued to an
	// error body (at most maxLostSequences in all): a client dropped
	// them with the body, yet they took their sequences, which are then
	// no gap of the server's (checkGap).
	lost  map[string][]int64
	nLost int
	evOK  bool
	dec   replay.Decoder
	ev    replay.Event
}

// maxLostSequences bounds the sequences of glued events kept for
// sequence-gap, whatever a hostile capture holds.
const maxLostSequences = 64

// errorBody is the JSON of a server error body.
type errorBody struct {
	Error *struct {
		Code      string `json:"code"`
		Message   string `json:"message"`
		Retryable bool   `json:"retryable"`
	} `json:"error"`
}

// ErrorBody is what a malformed line holds when it is a server error body,
// {"error": TurnDiagnostic}: the server's answer to a request it refused,
// not an event. Its verdict stays malformed, as the reference decides.
type ErrorBody struct {
	// Code is the diagnostic's code, a valid one of the protocol.
	Code string
	// Message is the diagnostic's message, capture content (untrusted),
	// cut to maxRefusalMessage bytes.
	Message   string
	Retryable bool
	// Glued says bytes follow the body on its line: the next response's
	// first event, written after it with no newline, which a client
	// drops with it.
	Glued bool
}

// ErrorBodyOf says whether a malformed result is a server error body,
// and what it says: res.Raw must be set (replay.Options.RawMalformed).
// eventPath is the run's --event-path: a capture of wrappers holds no
// bare body. It costs nothing on a line that decoded.
func ErrorBodyOf(res *replay.Result, eventPath string) (ErrorBody, bool) {
	b, _, ok := errorBodyOf(res, eventPath)
	return b, ok
}

// errorBodyOf is ErrorBodyOf with the bytes after the body, trimmed of
// blanks: what is glued to it.
func errorBodyOf(res *replay.Result, eventPath string) (ErrorBody, []byte, bool) {
	if res.Err == nil || eventPath != "" {
		return ErrorBody{}, nil, false
	}
	raw := bytes.TrimLeft(res.Raw, " \t")
	if !bytes.HasPrefix(raw, replay.ErrorBodyPrefix) {
		return ErrorBody{}, nil, false
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	var body errorBody
	if d.Decode(&body) != nil || body.Error == nil || !codePattern().MatchString(body.Error.Code) {
		return ErrorBody{}, nil, false
	}
	rest := bytes.TrimLeft(raw[d.InputOffset():], " \t\r")
	e := body.Error
	return ErrorBody{Code: e.Code, Message: clip(e.Message, maxRefusalMessage), Retryable: e.Retryable, Glued: len(rest) > 0}, rest, true
}

// observeRefusal looks at a malformed line for a server error body, and
// for the event glued after one. Its verdict stays malformed, as the
// reference decides: a client drops the whole line, glued event too.
// exchange, when not nil, is the submit of the body's own HTTP exchange
// (a capture snapctl record wrote says which).
func (in *Inspector) observeRefusal(res *replay.Result, exchange *pendingSubmit) {
	body, rest, ok := errorBodyOf(res, in.opts.EventPath)
	if !ok {
		return
	}
	r := &in.refused
	if r.byCode == nil {
		r.byCode = map[string]*refusal{}
	}
	code := body.Code
	if _, ok := r.byCode[code]; !ok && len(r.order) >= maxRefusalCodes {
		code = otherRefusalCode
	}
	ref := r.byCode[code]
	if ref == nil && code == otherRefusalCode {
		ref = &refusal{code: code}
		r.byCode[code] = ref
		r.order = append(r.order, ref)
	}
	if ref == nil {
		ref = &refusal{code: code, message: body.Message, retryable: body.Retryable}
		r.byCode[code] = ref
		r.order = append(r.order, ref)
	}
	at := model.PositionOf(res)
	p := in.pos(at)
	ref.t.hit("")
	ref.t.at(in.limit, p)
	// A body on the line after a submit, before any snapshot of its turn,
	// answers that submit: a client's own log shows the pair. A record
	// capture says which submit it answers.
	s, how := exchange, " in its HTTP exchange"
	if s == nil {
		s, how = in.pending, " on the line before"
	}
	switch o := res.Origin; {
	case s != nil && s.file == res.File && s.turn.Snapshots == 0:
		s.turn.Refuse(code, at)
		if ref.answered++; ref.answered == 1 {
			ref.first = "turn " + s.turn.ID + " of session " + s.session + how
		}
	case o != nil && o.Entry > 0 && o.RequestSession != "":
		// A HAR holds the request too: its body named the submit (the
		// reader takes only a valid client.turn.submit's safe ids).
		if ref.answered++; ref.answered == 1 {
			ref.first = "turn " + o.RequestTurn + " of session " + o.RequestSession + " in its HTTP request"
		}
	}
	if !body.Glued {
		return
	}
	r.glued.hit("")
	r.glued.at(in.limit, p)
	lost := r.describe(rest)
	if res.Cut {
		// The capture ends inside the glued event (replay.Result.Cut).
		lost = fmt.Sprintf("%d bytes of an event the capture ends inside (capture-cut)", len(rest))
	}
	if len(r.first) < 5 {
		r.first = append(r.first, glued{code: code, lost: lost})
	}
	if id := r.ev.SessionID; r.evOK && r.nLost < maxLostSequences && (in.opts.Session == "" || id == in.opts.Session) {
		if r.lost == nil {
			r.lost = map[string][]int64{}
		}
		r.lost[id] = append(r.lost[id], r.ev.Sequence)
		r.nLost++
	}
}

// describe says which event the bytes after an error body were; evOK
// is then set when they decode to a valid event, r.ev.
func (r *refusals) describe(rest []byte) string {
	err := r.dec.Decode(rest, &r.ev)
	r.evOK = err == nil
	var id, session, turn string
	var seq int64
	var kind replay.Kind
	switch {
	case err == nil:
		id, session, turn, seq, kind = r.ev.EventID, r.ev.SessionID, r.ev.TurnID, r.ev.Sequence, r.ev.Kind
	case err.Envelope != nil:
		e := err.Envelope
		id, session, turn, seq, kind = e.EventID, e.SessionID, e.TurnID, e.Sequence, replay.Kind(e.Event)
	default:
		return fmt.Sprintf("%d bytes that are not an event (%s)", len(rest), err.RedactedDetail())
	}
	if !replay.IsSafeIdentifier(id) || !replay.IsSafeIdentifier(session) {
		return fmt.Sprintf("%d bytes of an event without a readable id", len(rest))
	}
	what := "event"
	if kind == replay.KindSnapshot {
		what = "snapshot"
	}
	s := fmt.Sprintf("%s %s of session %s", what, strconv.Quote(id), session)
	if replay.IsSafeIdentifier(turn) {
		s += ", turn " + turn
	}
	return s + fmt.Sprintf(", sequence %d", seq)
}

// refusalFindings are the request-refused findings, one per code, and
// glued-lines. Error bodies name no session, so neither has one.
func (in *Inspector) refusalFindings(out []Finding) []Finding {
	r := &in.refused
	for _, ref := range r.order {
		retry := "not retryable"
		if ref.retryable {
			retry = "retryable"
		}
		known := "an error body names no session or turn, only its position is known"
		switch {
		case ref.answered == ref.t.n && ref.t.n == 1:
			known = "it answered the submit of " + ref.first
		case ref.answered == ref.t.n:
			known = "each answered a submit, first of " + ref.first
		case ref.answered > 0:
			known = fmt.Sprintf("%d answered a submit, first of %s; an error body names no session or turn", ref.answered, ref.first)
		}
		said := ": " + strconv.Quote(ref.message)
		if in.opts.Redact {
			said = "" // the server's words, capture content
		}
		msg := fmt.Sprintf("the server refused %s with %s%s (%s; %s)",
			count(ref.t.n, "request", "requests"), ref.code, said, retry, known)
		if ref.code == otherRefusalCode {
			msg = fmt.Sprintf("the server refused %s with codes past the first %d, not told apart (%s)",
				count(ref.t.n, "more request", "more requests"), maxRefusalCodes, known)
		}
		out = append(out, in.finding(RequestRefused, "", &ref.t, msg))
	}
	if r.glued.n > 0 {
		g := r.first[0]
		lost := "the event lost: " + g.lost
		if r.glued.n > 1 {
			lost = "first: " + lost
		}
		msg := fmt.Sprintf("%s a server error body (%s) and, glued to it with no newline, the next response's first event, which a client drops with it (%s)",
			count(r.glued.n, "line holds", "lines hold"), g.code, lost)
		out = append(out, in.finding(GluedLines, "", &r.glued, msg))
	}
	return out
}

// refusalCounts counts the server error bodies by code.
func (in *Inspector) refusalCounts() map[string]int {
	m := map[string]int{}
	for _, ref := range in.refused.order {
		m[ref.code] = ref.t.n
	}
	return m
}

// clip cuts s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

package render

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentskit/snapctl/cmd/internal/jsonout"
	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/internal/runes"
	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
)

// decodeDetail is the first problem of a malformed line, redacted or not.
func decodeDetail(e *replay.DecodeError, redact bool) string {
	if redact {
		return e.RedactedDetail()
	}
	return e.Detail()
}

// redactJSONPath shows a diff path ($.a["b c"][2]) with every object key
// hidden as *, unless keep names it. Indices stay: they say where, not
// what.
func redactJSONPath(path string, keep func(string) bool) string {
	var b strings.Builder
	i := 0
	if strings.HasPrefix(path, "$") {
		b.WriteByte('$')
		i = 1
	}
	for i < len(path) {
		switch {
		case path[i] == '.':
			j := i + 1
			for j < len(path) && path[j] != '.' && path[j] != '[' {
				j++
			}
			b.WriteByte('.')
			b.WriteString(keptKey(path[i+1:j], keep))
			i = j
		case strings.HasPrefix(path[i:], `["`):
			end := jsonStringEnd(path, i+1) + 1 // the closing bracket
			var key string
			if end >= len(path) || path[end] != ']' || json.Unmarshal([]byte(path[i+1:end]), &key) != nil {
				return b.String() + "*"
			}
			if keptKey(key, keep) == key {
				b.WriteString(path[i : end+1])
			} else {
				b.WriteString(".*")
			}
			i = end + 1
		case path[i] == '[':
			j := strings.IndexByte(path[i:], ']')
			if j < 0 {
				return b.String() + "*"
			}
			if _, err := strconv.Atoi(path[i+1 : i+j]); err != nil {
				return b.String() + "*"
			}
			b.WriteString(path[i : i+j+1])
			i += j + 1
		default:
			// Not a path snapctl writes: show nothing of the rest.
			return b.String() + "*"
		}
	}
	return b.String()
}

// keptKey is k when keep names it, otherwise *.
func keptKey(k string, keep func(string) bool) string {
	if keep != nil && keep(k) {
		return k
	}
	return "*"
}

// jsonStringEnd is the index of the closing quote of the JSON string
// that starts at s[i], or len(s)-1 when it does not end.
func jsonStringEnd(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(s) - 1
}

// The shape of an event that --redact shows in inspect's close-ups: the
// envelope and the protocol's own fields. Every other value, and every
// key the protocol does not name, is hidden; the values of content,
// parts text and sources, args, results, errors, metadata, input and
// diagnostic messages are hidden whole.
var (
	// redactContainers are the objects and arrays shown member by member.
	redactContainers = setOf("", "payload", "payload.usage", "payload.lineage", "payload.error",
		"payload.messages", "payload.messages[]", "payload.messages[].parts", "payload.messages[].parts[]",
		"payload.messages[].toolCalls", "payload.messages[].toolCalls[]",
		// A server's error body ({"error": {"code": …}}), a refusal.
		"error")
	// redactScalars are the values shown: numbers, booleans and null, and
	// strings that the field's rule allows (enumValue): ids and names that
	// are safe identifiers, enums and codes only when valid, timestamps
	// only in their own characters. A malformed value that holds free
	// text is hidden like any other.
	redactScalars = setOf("protocol", "version", "eventId", "sessionId", "turnId", "sequence", "emittedAt", "event",
		"payload.status", "payload.usage.promptTokens", "payload.usage.completionTokens", "payload.usage.totalTokens",
		"payload.lineage.operation", "payload.lineage.parentTurnId", "payload.lineage.sourceMessageId",
		"payload.error.version", "payload.error.code", "payload.error.retryable",
		"payload.version", "payload.code", "payload.retryable",
		"error.version", "error.code", "error.retryable",
		"payload.messages[].id", "payload.messages[].role", "payload.messages[].status",
		"payload.messages[].createdAt", "payload.messages[].toolCallId",
		"payload.messages[].parts[].type",
		"payload.messages[].parts[].detail", "payload.messages[].parts[].durationSec",
		"payload.messages[].toolCalls[].id", "payload.messages[].toolCalls[].name", "payload.messages[].toolCalls[].status")
	// redactEnums are the string fields whose value is shown only when it
	// is one the protocol allows.
	redactEnums = map[string][]string{
		"protocol":                              {"agentskit.chat.turn"},
		"event":                                 {string(replay.KindSubmit), string(replay.KindSnapshot), string(replay.KindDiagnostic)},
		"payload.status":                        {"idle", "streaming", "complete", "error"},
		"payload.lineage.operation":             {"submit", "retry", "edit", "regenerate"},
		"payload.messages[].role":               {"user", "assistant", "system", "tool"},
		"payload.messages[].status":             {"pending", "streaming", "complete", "error"},
		"payload.messages[].parts[].type":       {"text", "image", "audio", "video", "file"},
		"payload.messages[].parts[].detail":     {"low", "high", "auto"},
		"payload.messages[].toolCalls[].status": {"pending", "running", "complete", "error", "requires_confirmation"},
	}
)

// shownString reports whether --redact may show the string s at path.
func shownString(path, s string) bool {
	if values, ok := redactEnums[path]; ok {
		return slices.Contains(values, s)
	}
	switch path {
	case "emittedAt", "payload.messages[].createdAt":
		return s != "" && strings.Trim(s, "0123456789-:.TZ+") == ""
	case "payload.error.code", "payload.code", "error.code":
		return s != "" && strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == ""
	}
	return replay.IsSafeIdentifier(s)
}

// ShownField is the string field s at path of a decoded event as a view
// prints it: escaped for a terminal, and with redact its size instead
// when redactEvent would hide it (a tool call's name that is free text).
func ShownField(path, s string, redact bool) string {
	if redact && !shownString(path, s) {
		return hiddenText(len(s))
	}
	return termsafe.String(s)
}

func setOf(items ...string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, it := range items {
		m[it] = true
	}
	return m
}

// hiddenJSON is the placeholder of a hidden value: a JSON string that
// says how long the value was.
func hiddenJSON(raw []byte) []byte {
	return strconv.AppendQuote(nil, hiddenText(len(bytes.TrimSpace(raw))))
}

// RedactEvent returns the event line raw, which must be valid JSON, as
// compact JSON with everything hidden that --redact hides (see
// redactContainers and redactScalars).
func RedactEvent(raw []byte) []byte {
	return redactValue(nil, raw, "")
}

func redactValue(b, raw []byte, path string) []byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return append(b, hiddenJSON(raw)...)
	}
	switch raw[0] {
	case '{', '[':
		if !redactContainers[path] || (path != "" && len(raw) > redactWhole) {
			return append(b, hiddenJSON(raw)...)
		}
		return redactContainer(b, raw, path)
	case '"':
		var s string
		if !redactScalars[path] || json.Unmarshal(raw, &s) != nil || !shownString(path, s) {
			return append(b, hiddenJSON(raw)...)
		}
		return append(b, raw...)
	}
	if !redactScalars[path] {
		return append(b, hiddenJSON(raw)...)
	}
	return append(b, raw...)
}

// redactWhole is the size past which a redacted close-up hides a
// container of the protocol whole, as it hides free text: walking a
// payload of tens of MB member by member to show its ids and statuses
// would cost more than they are worth to a person.
const redactWhole = 1 << 20

// redactShown is how many members of one object or array a redacted
// close-up shows.
const redactShown = 1000

// redactContainer shows an object or array of the protocol member by
// member; an object's keys that the protocol does not name become
// "(hidden key N)". (Keys the protocol names say nothing about the
// conversation; their values may still be hidden.)
func redactContainer(b, raw []byte, path string) []byte {
	start := len(b)
	b = append(b, raw[0])
	hidden, rest := 0, 0
	isObj, ok := members(raw, func(n int, key string, v json.RawMessage) {
		if n >= redactShown {
			// A close-up is read by a person: past this many members,
			// count the rest instead of spelling out a placeholder each.
			rest++
			return
		}
		if n > 0 {
			b = append(b, ',')
		}
		if raw[0] == '{' {
			if replay.IsProtocolKey(key) {
				b = jsonout.AppendString(b, key)
			} else {
				hidden++
				b = jsonout.AppendString(b, "(hidden key "+strconv.Itoa(hidden)+")")
			}
			b = append(b, ':')
		}
		b = redactValue(b, v, childPath(path, key, raw[0] == '{'))
	})
	if !ok {
		return append(b[:start], hiddenJSON(raw)...)
	}
	if rest > 0 {
		b = append(b, ',')
		if isObj {
			b = jsonout.AppendString(b, "(hidden keys)")
			b = append(b, ':')
		}
		b = strconv.AppendQuote(b, "("+text.Plural(rest, "more member")+" hidden)")
	}
	return append(b, closing(isObj))
}

// members calls f with each member of raw, a JSON object or array with
// no blank before it, in order: its index, its key (an object's; "" in an
// array) and its value. ok is false when raw is not well-formed.
func members(raw []byte, f func(n int, key string, v json.RawMessage)) (isObj, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return false, false
	}
	isObj = raw[0] == '{'
	for n := 0; dec.More(); n++ {
		key := ""
		if isObj {
			tok, err := dec.Token()
			k, isKey := tok.(string)
			if err != nil || !isKey {
				return isObj, false
			}
			key = k
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return isObj, false
		}
		f(n, key, v)
	}
	return isObj, true
}

// childPath is the path of a member: key under path in an object, path[]
// in an array.
func childPath(path, key string, isObj bool) string {
	switch {
	case !isObj:
		return path + "[]"
	case path == "":
		return key
	}
	return path + "." + key
}

// closing is the bracket that ends an object or an array.
func closing(isObj bool) byte {
	if isObj {
		return '}'
	}
	return ']'
}

// shownEnvelope is the envelope of a malformed line as shown: with
// redact, only the ids that are safe identifiers and an event field that
// names a known kind, since an unvalidated field may hold anything.
func shownEnvelope(e *replay.Envelope, redact bool) *replay.Envelope {
	if e == nil || !redact {
		return e
	}
	out := *e
	for _, s := range []*string{&out.EventID, &out.SessionID, &out.TurnID} {
		if !replay.IsSafeIdentifier(*s) {
			*s = ""
		}
	}
	switch replay.Kind(out.Event) {
	case replay.KindSubmit, replay.KindSnapshot, replay.KindDiagnostic:
	default:
		out.Event = ""
	}
	return &out
}

// Neutralize returns an event line with every value and key that --redact
// hides replaced by a neutral one of the same shape, for a capture to be
// shared: a string by as many "x" as it has characters, a number by 0, an
// object key the protocol does not name by "k1", "k2"…, a container
// hidden whole by the same container of neutral values; ids, statuses,
// enums and the protocol's own keys stay, so the cursor and the model
// see the same events. A line that is not JSON keeps its punctuation and
// spaces, with letters as "x" and digits as "0".
func Neutralize(raw []byte) []byte { return (&Rewriter{Neutral: true}).Line(raw) }

// A Rewriter rewrites event lines for a capture to be shared: with
// Neutral, as Neutralize does; with IDs, every id of the protocol (event,
// session, turn, message and tool call ids, and the lineage and tool
// results that name them) mapped to e1, s1, t1, m1, c1…, the same id to
// the same name on every line it rewrites. Nothing else is taken for an
// id: a value of another field is never guessed to be one.
type Rewriter struct {
	Neutral bool
	IDs     bool
	names   map[string]map[string]string
}

// idKinds names the namespace of every field holding an id.
var idKinds = map[string]string{
	"eventId": "e", "sessionId": "s", "turnId": "t", "payload.lineage.parentTurnId": "t",
	"payload.messages[].id": "m", "payload.lineage.sourceMessageId": "m",
	"payload.messages[].toolCalls[].id": "c", "payload.messages[].toolCallId": "c",
}

// ID is the name the rewriter gives the id v of kind ("s" for a session):
// v itself when IDs is off.
func (r *Rewriter) ID(kind, v string) string {
	if !r.IDs {
		return v
	}
	if r.names == nil {
		r.names = map[string]map[string]string{}
	}
	m := r.names[kind]
	if m == nil {
		m = map[string]string{}
		r.names[kind] = m
	}
	n, ok := m[v]
	if !ok {
		n = kind + strconv.Itoa(len(m)+1)
		m[v] = n
	}
	return n
}

// Line rewrites one event line.
func (r *Rewriter) Line(raw []byte) []byte {
	if json.Valid(raw) {
		return r.value(nil, raw, "", true)
	}
	if !r.Neutral {
		return raw // no id can be told apart in what is not JSON
	}
	// Values glued on one line ({"error":…}{…}) are each rewritten, with
	// the blanks between them; from the first byte that is not JSON on,
	// the rest is text.
	var out []byte
	dec := json.NewDecoder(bytes.NewReader(raw))
	for {
		start := int(dec.InputOffset())
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return append(out, neutralText(raw[start:])...)
		}
		end := int(dec.InputOffset())
		value := bytes.TrimLeft(raw[start:end], " \t\r")
		out = append(out, raw[start:end-len(value)]...)
		out = r.value(out, v, "", true)
	}
}

// neutralText keeps a text's punctuation and spaces, with letters as "x"
// and digits as "0", and keeps JSON that it holds as far as it goes JSON
// of the same shape, so that an event cut short (capture-cut) is still
// one: in a string, an escape stays one (\u0078 for a \u escape); out of
// one, a number is 0 padded with spaces to its length, and true, false
// and null (or the start of one the text ends in) stay.
func neutralText(raw []byte) []byte {
	out := make([]byte, 0, len(raw))
	text := string(raw)
	inString := false
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case inString && r == '\\':
			out = append(out, '\\')
			i++
			if i == len(text) {
				continue
			}
			if text[i] != 'u' {
				out = append(out, neutralEscape(text[i]))
				i++
				continue
			}
			// \uXXXX as \u0078 (x); cut short, as many 0s as it has digits.
			n := 1
			for n < 5 && i+n < len(text) && isHex(text[i+n]) {
				n++
			}
			if n == 5 {
				out = append(out, "u0078"...)
			} else {
				out = append(out, "u0000"[:n]...)
			}
			i += n
		case r == '"':
			inString = !inString
			out = append(out, '"')
			i++
		case inString:
			out = append(out, neutralRune(r))
			i += size
		case r == '-' || (r >= '0' && r <= '9'):
			n := 1
			for i+n < len(text) && strings.IndexByte("0123456789.eE+-", text[i+n]) >= 0 {
				n++
			}
			out = append(out, '0')
			out = append(out, strings.Repeat(" ", n-1)...)
			i += n
		case r < utf8.RuneSelf && unicode.IsLetter(r):
			n := 1
			for i+n < len(text) && text[i+n] < utf8.RuneSelf && unicode.IsLetter(rune(text[i+n])) {
				n++
			}
			if w := text[i : i+n]; isLiteral(w, i+n == len(text)) {
				out = append(out, w...)
			} else {
				out = append(out, strings.Repeat("x", n)...)
			}
			i += n
		default:
			out = append(out, neutralRune(r))
			i += size
		}
	}
	return out
}

// neutralRune is a rune of neutral text: a digit as 0, a letter or any
// rune past ASCII as x, other ASCII as it is.
func neutralRune(r rune) byte {
	switch {
	case r >= '0' && r <= '9':
		return '0'
	case r < utf8.RuneSelf && !unicode.IsLetter(r):
		return byte(r)
	}
	return 'x'
}

// neutralEscape is the character after a backslash in a JSON string: one
// of JSON's escapes stays, so that the string stays one; anything else is
// neutral.
func neutralEscape(c byte) byte {
	if strings.IndexByte(`"\/bfnrt`, c) >= 0 {
		return c
	}
	return neutralRune(rune(c))
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// isLiteral says whether a word out of a string is JSON's true, false or
// null, or, at the end of the text, the start of one.
func isLiteral(w string, atEnd bool) bool {
	for _, l := range []string{"true", "false", "null"} {
		if w == l || (atEnd && strings.HasPrefix(l, w)) {
			return true
		}
	}
	return false
}

// value writes raw, the value at path; protocol is false inside a
// container hidden whole, where nothing is shown.
func (r *Rewriter) value(b, raw []byte, path string, protocol bool) []byte {
	raw = bytes.TrimSpace(raw)
	switch raw[0] {
	case '{', '[':
		return r.container(b, raw, path, protocol && redactContainers[path])
	case '"':
		var s string
		ok := json.Unmarshal(raw, &s) == nil
		if kind := idKinds[path]; ok && protocol && kind != "" && r.IDs {
			return jsonout.AppendString(b, r.ID(kind, s))
		}
		if !r.Neutral || ok && protocol && redactScalars[path] && shownString(path, s) {
			return append(b, raw...)
		}
		return jsonout.AppendString(b, strings.Repeat("x", runes.Count(s)))
	case 't', 'f', 'n':
		return append(b, raw...)
	}
	if !r.Neutral || protocol && redactScalars[path] {
		return append(b, raw...)
	}
	return append(b, '0')
}

func (r *Rewriter) container(b, raw []byte, path string, protocol bool) []byte {
	b = append(b, raw[0])
	hidden := 0
	isObj, _ := members(raw, func(n int, key string, v json.RawMessage) { // raw is valid JSON (Line checked it)
		if n > 0 {
			b = append(b, ',')
		}
		if raw[0] == '{' {
			if !r.Neutral || protocol && replay.IsProtocolKey(key) {
				b = jsonout.AppendString(b, key)
			} else {
				hidden++
				b = jsonout.AppendString(b, "k"+strconv.Itoa(hidden))
			}
			b = append(b, ':')
		}
		b = r.value(b, v, childPath(path, key, raw[0] == '{'), protocol)
	})
	return append(b, closing(isObj))
}

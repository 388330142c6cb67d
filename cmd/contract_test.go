package cmd

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/help"
	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/internal/samples"
	"github.com/agentskit/snapctl/replay"
)

// shape is the documented key paths of one kind of JSON output, each
// with the JSON types it may take: "[]" stands for every element of an
// array, "*" for every key of an object of counts (type "map"), whose
// keys are values, not contract keys; type "any" is a value the contract
// does not describe further (a close-up's line as written).
type shape map[string]string

// under returns s with every path put under prefix.
func (s shape) under(prefix string) shape {
	out := shape{}
	for p, t := range s {
		out[prefix+"."+p] = t
	}
	return out
}

// with returns the union of the shapes.
func with(shapes ...shape) shape {
	out := shape{}
	for _, s := range shapes {
		maps.Copy(out, s)
	}
	return out
}

var (
	verdictShape = shape{"clean": "boolean", "problems": "number", "worst": "string null", "errors": "number",
		"warnings": "number", "info": "number", "unfinished": "number"}
	positionShape  = shape{"file": "string", "entry": "number", "line": "number"}
	completedLater = shape{"file": "string", "entry": "number", "line": "number", "characters": "number", "prefix": "boolean"}
	finalShape     = shape{"file": "string", "entry": "number", "line": "number", "sequence": "number",
		"turnId": "string", "status": "string", "messages": "number"}
	usageShape = shape{"promptTokens": "number", "completionTokens": "number", "totalTokens": "number"}
	// readShape is what replay's summary, inspect's overview and an
	// --each row say of the reading.
	readShape = with(shape{"files": "number", "formats": "array", "formats.[]": "string", "mixed": "array",
		"mixed.[]": "object", "mixed.[].file": "string", "mixed.[].format": "string", "mixed.[].spans": "array",
		"mixed.[].spans.[]": "object", "mixed.[].spans.[].first": "number", "mixed.[].spans.[].last": "number",
		"mixed.[].spans.[].lines": "number", "mixed.[].spans.[].as": "string", "mixed.[].spans.[].what": "string",
		"mixed.[].more": "number", "bytes": "number", "lines": "number", "blank": "number", "context": "number",
		"events": "number", "accepted": "number", "inert": "number", "complete": "boolean",
		"damage": "object null", "damage.file": "string", "damage.format": "string", "damage.offset": "number",
		"damage.decoded": "number", "damage.error": "string", "tooLong": "number",
		"window": "object", "window.lines": "array", "window.lines.[]": "object", "window.lines.[].first": "number",
		"window.lines.[].last": "number", "window.since": "string null", "window.until": "string null", "window.leftOut": "number"})

	replayRecord = shape{"file": "string", "line": "number", "verdict": "string", "reason": "string",
		"event": "string", "eventId": "string", "sessionId": "string", "turnId": "string", "sequence": "number",
		"code": "string", "detail": "string", "gap": "number", "acceptedSequence": "number", "loggedAt": "string",
		"lastEventId": "string", "entry": "number", "url": "string", "request": "number", "receivedAt": "string",
		"sent": "boolean", "httpStatus": "number", "envelope": "object", "envelope.event": "string",
		"envelope.eventId": "string", "envelope.sessionId": "string", "envelope.turnId": "string",
		"envelope.sequence": "number", "errorBody": "object", "errorBody.code": "string",
		"errorBody.message": "string", "errorBody.retryable": "boolean", "errorBody.glued": "boolean"}
	replaySummary = with(readShape, shape{"reasons": "map", "reasons.*": "number", "codes": "map",
		"codes.*": "number", "pinnedSession": "string null", "perSession": "boolean", "sessions": "array",
		"sessions.[]": "object", "sessions.[].sessionId": "string", "sessions.[].events": "number",
		"sessions.[].reasons": "map", "sessions.[].reasons.*": "number", "sessions.[].final": "object null"},
		finalShape.under("sessions.[].final"))

	lineageSession = with(shape{"sessionId": "string", "verdict": "object", "roots": "array", "roots.[]": "string",
		"problems": "number", "turns": "array", "turns.[]": "object", "turns.[].turnId": "string",
		"turns.[].operation": "string", "turns.[].parentTurnId": "string null",
		"turns.[].sourceMessageId": "string null", "turns.[].firstSequence": "number",
		"turns.[].lastSequence": "number", "turns.[].status": "string", "turns.[].errorCode": "string null",
		"turns.[].firstEmittedAt": "string", "turns.[].lastEmittedAt": "string", "turns.[].usage": "object",
		"turns.[].preview": "string", "turns.[].input": "string", "turns.[].children": "array",
		"turns.[].children.[]": "string", "turns.[].problems": "array", "turns.[].problems.[]": "object",
		"turns.[].problems.[].kind": "string", "turns.[].problems.[].detail": "string",
		"earlierMessages": "number", "otherTurns": "array", "otherTurns.[]": "object", "otherTurns.[].turnId": "string",
		// A turn with no accepted snapshot has no reply a later one completed.
		"otherTurns.[].outcome": "string", "otherTurns.[].outcomeCode": "string null", "otherTurns.[].outcomeFile": "string null",
		"otherTurns.[].outcomeLine": "number null", "otherTurns.[].outcomeEntry": "number", "otherTurns.[].completedLater": "null"},
		verdictShape.under("verdict"), usageShape.under("turns.[].usage"), outcomeShape.under("turns.[]"))
	outcomeShape = with(shape{"outcome": "string", "outcomeCode": "string null", "outcomeFile": "string null",
		"outcomeLine": "number null", "outcomeEntry": "number", "completedLater": "object null"},
		completedLater.under("completedLater"))

	diffLineage = shape{"operation": "string", "parentTurnId": "string", "sourceMessageId": "string"}
	diffError   = shape{"code": "string", "message": "string", "messageLength": "number", "retryable": "boolean"}
	diffPair    = with(shape{"sessionId": "string", "turnId": "string", "fromTurnId": "string",
		"fromSequence": "number", "toSequence": "number", "fromFile": "string", "fromLine": "number",
		"toFile": "string", "toLine": "number", "fromEntry": "number", "toEntry": "number",
		"status": "object", "status.from": "string", "status.to": "string", "usage": "object null",
		"messages": "object", "messages.added": "array", "messages.added.[]": "string",
		"messages.removed": "array", "messages.removed.[]": "string", "messages.unexplained": "array",
		"messages.unexplained.[]": "string", "messages.changed": "array", "messages.changed.[]": "object",
		"messages.changed.[].id": "string", "messages.changed.[].fields": "array",
		"messages.changed.[].fields.[]": "string", "messages.changed.[].appended": "string",
		"messages.changed.[].appendedLength": "number", "messages.moved": "array",
		"messages.moved.[]": "string", "error": "object", "error.from": "object null", "error.to": "object null",
		"lineage": "object", "lineage.from": "object null", "lineage.to": "object null",
		"inertBetween": "map", "inertBetween.*": "number", "acceptedBetween": "number"},
		usageShape.under("usage"), diffError.under("error.from"), diffError.under("error.to"),
		diffLineage.under("lineage.from"), diffLineage.under("lineage.to"))

	finding = with(shape{"id": "string", "severity": "string", "sessionId": "string", "message": "string",
		"positions": "array", "positions.[]": "object", "positionCount": "number"},
		positionShape.under("positions.[]"))
	overview = with(readShape, shape{"kinds": "map", "kinds.*": "number", "reasons": "map", "reasons.*": "number",
		"malformed": "map", "malformed.*": "number", "refused": "map", "refused.*": "number",
		"pinnedSession": "string null", "sessions": "array", "sessions.[]": "object",
		"sessions.[].sessionId": "string", "sessions.[].verdict": "object", "sessions.[].events": "number",
		"sessions.[].accepted": "number", "sessions.[].inert": "number", "sessions.[].reasons": "map",
		"sessions.[].reasons.*": "number", "sessions.[].turns": "number", "sessions.[].snapshots": "number",
		"sessions.[].sequences": "object null", "sessions.[].sequences.min": "number",
		"sessions.[].sequences.max": "number", "sessions.[].emittedAt": "object",
		"sessions.[].emittedAt.first": "string", "sessions.[].emittedAt.last": "string",
		"sessions.[].final": "object null", "sessions.[].lineage": "map", "sessions.[].lineage.*": "number",
		"sessions.[].lineageTurns": "map", "sessions.[].lineageTurns.*": "number",
		"sessions.[].earlierMessages": "number",
		"sessions.[].turnOutcomes":    "array", "sessions.[].turnOutcomes.[]": "object",
		"sessions.[].turnOutcomes.[].turnId": "string"},
		verdictShape.under("sessions.[].verdict"), finalShape.under("sessions.[].final"),
		outcomeShape.under("sessions.[].turnOutcomes.[]"),
		// A turn a window cut (the window run below; entry: a HAR's).
		shape{"cutByWindow": "boolean", "pastWindow": "object", "pastWindow.file": "string", "pastWindow.line": "number"}.under("sessions.[].turnOutcomes.[]"))
	eachRow = with(readShape, shape{"file": "string", "sessions": "number", "reasons": "map", "reasons.*": "number",
		"findings": "map", "findings.*": "number", "severities": "map", "severities.*": "number",
		"verdict": "object"}, verdictShape.under("verdict"))
	closeup = with(shape{"file": "string", "entry": "number", "line": "number", "verdict": "string",
		"reason": "string", "event": "any", "raw": "string", "code": "string null", "problems": "array",
		"problems.[]": "object", "problems.[].path": "string", "problems.[].message": "string",
		"errorBody": "object", "errorBody.code": "string", "errorBody.message": "string",
		"errorBody.retryable": "boolean", "errorBody.glued": "boolean",
		"acceptedSequence": "number", "gap": "number", "dropped": "array", "dropped.[]": "object",
		"dropped.[].messageId": "string", "dropped.[].explained": "boolean", "dropped.[].lineage": "object null",
		"droppedFrom": "number", "findings": "array", "findings.[]": "object", "ended": "array",
		"ended.[]": "object", "ended.[].turnId": "string", "ended.[].outcome": "string",
		"ended.[].outcomeCode": "string null", "ended.[].completedLater": "object null", "tooLong": "boolean"},
		diffLineage.under("dropped.[].lineage"), completedLater.under("ended.[].completedLater"),
		finding.under("findings.[]"))
)

// The documents of -o json.
var (
	replayDoc  = with(shape{"events": "array", "events.[]": "object", "summary": "object"}, replayRecord.under("events.[]"), replaySummary.under("summary"))
	lineageDoc = with(shape{"sessions": "array", "sessions.[]": "object"}, lineageSession.under("sessions.[]"))
	diffDoc    = with(shape{"pairs": "array", "pairs.[]": "object"}, diffPair.under("pairs.[]"))
	inspectDoc = with(shape{"overview": "object", "findings": "array", "findings.[]": "object"}, overview.under("overview"), finding.under("findings.[]"))
)

// contract is the documented output of every command and output format:
// for a document the whole of it, for JSON Lines one record.
var contract = map[string]shape{
	"replay -o jsonl":         replayRecord,
	"replay -o json":          replayDoc,
	"lineage -o jsonl":        lineageSession,
	"lineage -o json":         lineageDoc,
	"diff -o jsonl":           diffPair,
	"diff -o json":            diffDoc,
	"inspect -o jsonl":        finding,
	"inspect -o json":         inspectDoc,
	"inspect --each -o jsonl": eachRow,
	// Under --each, each capture's -o json document begins with its
	// name (jsonout.OfCapture), whatever the command.
	"replay --each -o json":   with(shape{"file": "string"}, replayDoc),
	"lineage --each -o json":  with(shape{"file": "string"}, lineageDoc),
	"diff --each -o json":     with(shape{"file": "string"}, diffDoc),
	"inspect --each -o json":  with(shape{"file": "string"}, inspectDoc),
	"inspect --line -o jsonl": closeup,
	"inspect --line -o json":  with(shape{"matches": "number", "lines": "array", "lines.[]": "object"}, closeup.under("lines.[]")),
}

// seen records, per output, the paths met and their types.
type seen map[string]map[string]map[string]bool

// walk adds the paths of v, under path, to got, checked against want:
// a map's keys are "*", an array's elements "[]", an "any" not entered.
func walk(got map[string]map[string]bool, want shape, path string, v any) {
	typ := jsonType(v)
	if got[path] == nil {
		got[path] = map[string]bool{}
	}
	got[path][typ] = true
	if want[path] == "any" {
		return
	}
	child := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch v := v.(type) {
	case map[string]any:
		for k, c := range v {
			if want[path] == "map" {
				k = "*"
			}
			walk(got, want, child(k), c)
		}
	case []any:
		for _, c := range v {
			walk(got, want, child("[]"), c)
		}
	}
}

// jsonType names v's JSON type as jq does.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// collect runs snapctl with args and adds the paths of every JSON value
// it writes to s[output].
func (s seen) collect(t *testing.T, output string, args ...string) {
	t.Helper()
	// A line past the end, or a damaged capture, exits 2; what it writes
	// is checked all the same, and what it cannot write is missed below.
	ios, out, _ := iostreams.Test("")
	run(ios, args)
	dec := json.NewDecoder(out)
	dec.UseNumber()
	if s[output] == nil {
		s[output] = map[string]map[string]bool{}
	}
	for dec.More() {
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s: %v", strings.Join(args, " "), err)
		}
		walk(s[output], contract[output], "", v)
	}
}

// contractCaptures are the samples and the captures that make the keys
// no sample makes: a record capture (its exchanges, context records and
// HTTP statuses), a cut gzip (damage) and captures read partly in
// another format (mixed, with and without framing).
func contractCaptures(t *testing.T) []string {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	snap := func(id string, seq int) string {
		return fmt.Sprintf(`{"protocol":"agentskit.chat.turn","version":1,"eventId":"%s","sessionId":"sa","turnId":"t1","sequence":%d,"emittedAt":"2026-07-11T03:00:00Z","event":"server.turn.snapshot","payload":{"status":"streaming","usage":{"promptTokens":1,"completionTokens":0,"totalTokens":1},"messages":[]}}`, id, seq)
	}
	record := strings.Join([]string{
		`{"snapctl":"capture","at":"2026-12-01T12:00:00Z","version":1,"upstream":"http://127.0.0.1:3000"}`,
		`{"snapctl":"request","req":1,"at":"2026-12-01T12:00:00.1Z","method":"POST","url":"/chat","sessionId":"sa","turnId":"t1","eventId":"s1"}`,
		`{"snapctl":"sent","req":1,"at":"2026-12-01T12:00:00.1Z","lines":1}`,
		`{"protocol":"agentskit.chat.turn","version":1,"eventId":"s1","sessionId":"sa","turnId":"t1","sequence":0,"emittedAt":"2026-07-11T03:00:00.000Z","event":"client.turn.submit","payload":{"input":"hi"}}`,
		`{"snapctl":"response","req":1,"at":"2026-12-01T12:00:00.2Z","status":200}`,
		`{"snapctl":"received","req":1,"at":"2026-12-01T12:00:00.4Z","lines":1}`,
		snap("e1", 1),
		`{"snapctl":"end","req":1,"at":"2026-12-01T12:00:00.9Z","bytes":400,"lines":1}`,
		`{"snapctl":"close","at":"2026-12-01T12:00:01Z","requests":1}`,
	}, "\n") + "\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	for i := range 200 {
		fmt.Fprintln(zw, snap(fmt.Sprintf("e%d", i), i+1))
	}
	zw.Close()
	return append(samples.All(t),
		write("rec.jsonl", []byte(record)),
		write("cut.jsonl.gz", gz.Bytes()[:gz.Len()/2]),
		write("mixed.log", []byte("2026-07-11T03:00:00.123456789Z "+snap("e1", 1)+"\n"+snap("e2", 2)+"\n")),
		write("broken.har", []byte(`{"log": {"entries": [}`+"\n")),
		// A server's HTTP error body, whole and with an event glued after
		// it: replay's errorBody.
		write("refused.jsonl", []byte(snap("e1", 1)+"\n"+refusedBody+"\n"+refusedBody+snap("e2", 2)+"\n")),
		// A turn answered by a diagnostic alone, in a HAR: lineage's
		// otherTurns has its entry.
		write("diagnostic.har", []byte(`{"log": {"entries": [{"request": {"method": "POST", "url": "http://chat/turns"}, `+
			`"response": {"status": 200, "content": {"mimeType": "application/x-ndjson", "text": `+
			strconv.Quote(snap("e1", 1)+"\n"+strings.Replace(strings.Replace(snap("e2", 2), `"t1"`, `"t2"`, 1),
				`"event":"server.turn.snapshot","payload":{"status":"streaming","usage":{"promptTokens":1,"completionTokens":0,"totalTokens":1},"messages":[]}`,
				`"event":"server.turn.diagnostic","payload":{"version":1,"code":"X","message":"m","retryable":false}`, 1)+"\n")+`}}}]}}`+"\n")))
}

// refusedBody is an HTTP error body of the AgentsKit Chat server.
const refusedBody = `{"error":{"version":1,"code":"SESSION_BUSY","message":"Another turn is active for this session.","retryable":true}}`

// TestJSONContract: every key every command writes in -o json and -o
// jsonl, on every capture, with and without --redact, is in the
// contract with one of its documented types; every key of the contract
// is written by some capture; and the contract and `snapctl help
// json-contract` (with `snapctl help each` for the --each rows) name the
// same keys, so that an undocumented key, a documented key that cannot
// be written, or a renamed one fails here.
func TestJSONContract(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command on every capture")
	}
	got := seen{}
	for _, file := range contractCaptures(t) {
		for _, redact := range [][]string{nil, {"--redact"}} {
			for _, o := range []string{"json", "jsonl"} {
				for _, c := range []string{"replay", "lineage", "diff", "inspect"} {
					got.collect(t, c+" -o "+o, slices.Concat([]string{c, "-o", o}, redact, []string{file})...)
				}
				for _, n := range []string{"1", "2", "3", "4", "5", "7"} {
					got.collect(t, "inspect --line -o "+o, slices.Concat([]string{"inspect", "--line", n, "-o", o}, redact, []string{file})...)
				}
			}
			got.collect(t, "inspect --each -o jsonl", slices.Concat([]string{"inspect", "--each", "-o", "jsonl"}, redact, []string{file})...)
			for _, c := range []string{"replay", "lineage", "diff", "inspect"} {
				got.collect(t, c+" --each -o json", slices.Concat([]string{c, "--each", "-o", "json"}, redact, []string{file})...)
			}
		}
	}
	// A pinned session, and a line too long to show.
	pinned := filepath.Join(samples.Dir(), "reconnect.jsonl")
	got.collect(t, "replay -o json", "replay", "-o", "json", "--session", "session-reconnect", pinned)
	got.collect(t, "inspect -o json", "inspect", "-o", "json", "--session", "session-reconnect", pinned)
	// A window that leaves events out: lines, since and until.
	window := []string{"--lines", "2-", "--since", "1s", "--until", "2026-07-11T03:00:09Z", pinned}
	for _, c := range [][]string{{"replay", "-o", "json"}, {"inspect", "-o", "json"}, {"inspect", "--each", "-o", "jsonl"}, {"replay", "--each", "-o", "json"}, {"inspect", "--each", "-o", "json"}} {
		got.collect(t, strings.Join(c, " "), append(c, window...)...)
	}
	// The lines where a turn ended that a later snapshot completed.
	abort := filepath.Join(samples.Dir(), "real-server", "real-abort.jsonl")
	har := filepath.Join(samples.Dir(), "real-server", "proxied.har")
	for _, o := range []string{"json", "jsonl"} {
		got.collect(t, "inspect --line -o "+o, "inspect", "--line", "2", "--max-line", "10", "-o", o, pinned)
		got.collect(t, "inspect --line -o "+o, "inspect", "--line", "9", "-o", o, abort)
		got.collect(t, "inspect --line -o "+o, "inspect", "--line", "entry 11:line 22", "-o", o, har)
	}

	for _, output := range slices.Sorted(maps.Keys(contract)) {
		want := contract[output]
		for _, p := range slices.Sorted(maps.Keys(got[output])) {
			if p == "" {
				continue // the record or document itself
			}
			doc, ok := want[p]
			if !ok {
				t.Errorf("%s writes %q, which the contract does not list", output, p)
				continue
			}
			allowed := strings.Fields(strings.NewReplacer("map", "object", "any", "").Replace(doc))
			for typ := range got[output][p] {
				if doc != "any" && !slices.Contains(allowed, typ) {
					t.Errorf("%s writes %q as %s; documented: %s", output, p, typ, doc)
				}
			}
		}
		for _, p := range slices.Sorted(maps.Keys(want)) {
			if got[output][p] == nil {
				t.Errorf("%s never writes %q, which the contract lists", output, p)
			}
		}
	}

	// The contract's keys are the topic's.
	text := topicText(t, "json-contract") + topicText(t, "each")
	listed := map[string]bool{}
	for _, s := range contract {
		for p := range s {
			k := p[strings.LastIndex(p, ".")+1:]
			if k != "[]" && k != "*" && k != "" {
				listed[k] = true
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(listed)) {
		if !regexp.MustCompile("[`\".]" + k + "[`\".]").MatchString(text) {
			t.Errorf("key %q is written but `snapctl help json-contract` never names it", k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(documentedKeys(text))) {
		if !listed[k] {
			t.Errorf("`snapctl help json-contract` names key %q, which no command writes", k)
		}
	}
}

// documentedKeys are the keys the topic text names as keys: the heads of
// its definition lists (lines that start with a quoted key) and the keys
// of its JSON examples, but not the keys of its objects of counts, which
// are reasons, operations and severities.
func documentedKeys(text string) map[string]bool {
	counted := map[string]bool{"submit": true, "retry": true, "edit": true, "regenerate": true, "unknown": true, "warning": true}
	for _, r := range replay.Reasons {
		counted[string(r)] = true
	}
	keys := map[string]bool{}
	head := regexp.MustCompile("`([A-Za-z][A-Za-z.]*)`")
	exampleKey := regexp.MustCompile(`"([A-Za-z][A-Za-z]*)"\s*:`)
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "  `") {
			for _, m := range head.FindAllStringSubmatch(line, -1) {
				keys[m[1][strings.LastIndex(m[1], ".")+1:]] = true
			}
		}
		for _, m := range exampleKey.FindAllStringSubmatch(line, -1) {
			keys[m[1]] = true
		}
	}
	for k := range keys {
		if counted[k] && k != "malformed" {
			delete(keys, k)
		}
	}
	return keys
}

// topicText is the text of the help topic name.
func topicText(t *testing.T, name string) string {
	for _, tp := range help.Topics() {
		if tp.Name == name {
			return tp.Text
		}
	}
	t.Fatalf("no help topic %q", name)
	return ""
}

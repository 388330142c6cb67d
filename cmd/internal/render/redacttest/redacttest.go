// Package redacttest checks, for tests, that --redact hides every value
// it must: a capture with a marker in each such place, and a canary that
// searches outputs for them.
package redacttest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// Capture puts a distinct marker in every place --redact must hide:
// message content and parts text, tool call argument keys and values,
// results and errors, metadata keys and values, a snapshot's error and a
// diagnostic's message, submit input, and a malformed line's quoted
// value and object key, a tool call's name (shown only when it is a safe
// identifier, which the marker with its space is not). Ids are not
// secret, and carry no marker.
func Capture(tag string) string {
	msg := func(n int) string {
		return fmt.Sprintf(`{"id":"m1","role":"assistant","content":"the %[2]scontent%[1]d is here","status":"complete",`+
			`"createdAt":"2026-07-11T03:00:00.000Z","parts":[{"type":"text","text":"%[2]sparts%[1]d"}],`+
			`"toolCalls":[{"id":"tc1","name":"%[2]stoolname%[1]d call","args":{"%[2]sargkey%[1]d":"%[2]sargvalue%[1]d"},"status":"complete",`+
			`"result":"%[2]sresult%[1]d","error":"%[2]stoolerror%[1]d"}],"metadata":{"%[2]smetakey%[1]d":{"k":"%[2]smetavalue%[1]d"}}}`, n, tag)
	}
	env := func(id string, seq int, event, payload string) string {
		return fmt.Sprintf(`{"protocol":"agentskit.chat.turn","version":1,"eventId":"%s","sessionId":"s1","turnId":"t1","sequence":%d,`+
			`"emittedAt":"2026-07-11T03:00:0%dZ","event":"%s","payload":%s}`, id, seq, seq, event, payload)
	}
	snap := func(id string, seq, n int, extra string) string {
		return env(id, seq, "server.turn.snapshot", fmt.Sprintf(`{"status":"complete","lineage":{"operation":"submit"},`+
			`"usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"messages":[%s]%s}`, msg(n), extra))
	}
	lines := []string{
		env("e0", 0, "client.turn.submit", fmt.Sprintf(`{"input":"%sinput"}`, tag)),
		snap("e1", 1, 1, ""),
		snap("e2", 2, 2, fmt.Sprintf(`,"error":{"version":1,"code":"TOOL_FAILED","message":"%serrormessage","retryable":false}`, tag)),
		env("e3", 3, "server.turn.diagnostic", fmt.Sprintf(`{"version":1,"code":"ADAPTER_FAILED","message":"%sdiagnostic","retryable":true}`, tag)),
		strings.Replace(snap("e4", 4, 3, ""), `"metadata":{`, fmt.Sprintf(`"metadata":"%sbadvalue","x":{`, tag), 1),
		strings.Replace(snap("e5", 5, 3, ""), `"metadata":{`, fmt.Sprintf(`"metadata":{"%sbadkey":1e999},"x":{`, tag), 1),
		snap("e6", 6, 3, "")[:40] + tag + "cutline", // cut off: not JSON, no event id
		snap("e7", 7, 3, ""),
		// Protocol fields holding free text that happens to be a safe
		// identifier: a mime type, and an enum that is not one.
		strings.Replace(snap("e8", 8, 3, ""), `{"type":"text","text":"`,
			fmt.Sprintf(`{"type":"file","source":"s","mimeType":"%[1]smime"},{"type":"text","text":"`, tag), 1),
		strings.Replace(snap("e9", 9, 3, ""), `"role":"assistant"`, fmt.Sprintf(`"role":"%srole"`, tag), 1),
		// A server's HTTP error body: its message is the server's words.
		fmt.Sprintf(`{"error":{"version":1,"code":"SESSION_BUSY","message":"%serrorbody","retryable":true}}`, tag),
	}
	return strings.Join(lines, "\n") + "\n"
}

// HAR is a HAR document of one entry whose response body is
// Capture(tag) and whose request URL has a marker where a URL carries
// tokens: its userinfo (user and password), query and fragment. The host
// and the path, which say where the request went, carry none.
func HAR(tag string) string {
	url := fmt.Sprintf("https://%[1]suser:%[1]spass@chat.example:8443/api/s1/turns?access_token=%[1]squery&x=1#%[1]sfragment", tag)
	doc := map[string]any{"log": map[string]any{"version": "1.2", "creator": map[string]any{"name": "redacttest", "version": "1"},
		"entries": []any{map[string]any{
			"startedDateTime": "2026-07-11T03:00:00.000Z",
			"request":         map[string]any{"method": "POST", "url": url},
			"response": map[string]any{"status": 200,
				"content": map[string]any{"mimeType": "application/x-ndjson", "text": Capture(tag)}},
		}}}}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err) // a map of strings always marshals
	}
	return string(b) + "\n"
}

// EventMarkers follow the tag in every secret place of Capture; URLMarkers
// in every secret place of HAR's request URL.
var (
	EventMarkers = []string{"content", "parts", "argkey", "argvalue", "result", "toolerror", "metakey", "metavalue",
		"errormessage", "errorbody", "diagnostic", "input", "badvalue", "badkey", "cutline", "mime", "role", "toolname"}
	URLMarkers = []string{"user", "pass", "query", "fragment"}
)

// Canary searches outputs of Capture(tag) and HAR(tag): with --redact
// none may hold the tag; without, every marker it is given must show in
// one of them, so that the search can fail.
type Canary struct {
	t       *testing.T
	tag     string
	markers []string
	seen    map[string]bool
}

// NewCanary searches for tag in what Check is given, and for tag followed
// by each of markers in what it is given without --redact.
func NewCanary(t *testing.T, tag string, markers ...string) *Canary {
	return &Canary{t: t, tag: tag, markers: markers, seen: map[string]bool{}}
}

// Check searches one output, named name, made with or without --redact.
func (c *Canary) Check(name, out string, redact bool) {
	c.t.Helper()
	if redact {
		if i := strings.Index(out, c.tag); i >= 0 {
			c.t.Errorf("%s --redact leaks %q", name, out[i:min(len(out), i+len(c.tag)+14)])
		}
		return
	}
	for _, m := range c.markers {
		if strings.Contains(out, c.tag+m) {
			c.seen[m] = true
		}
	}
}

// Done fails the test when a marker showed in no output made without
// --redact.
func (c *Canary) Done() {
	c.t.Helper()
	for _, m := range c.markers {
		if !c.seen[m] {
			c.t.Errorf("marker %s%s shows nowhere without --redact: the test cannot see it leak", c.tag, m)
		}
	}
}

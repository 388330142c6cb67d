package render

import (
	"strconv"
	"strings"

	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/internal/termsafe"
)

// ErrorBodyWords says what a malformed line that is a server error body
// (inspect.ErrorBody) is, the same in every view, what matters first (a
// narrow column shows the start): `HTTP error body SESSION_BUSY
// (retryable) "Another turn is active.", not an event`, and of one with
// the next response's first event glued after it, `…; an event glued
// after it is dropped with it`. The message, which the
// capture wrote, is quoted and made safe for a terminal; with redact it
// is hidden and the code kept.
func ErrorBodyWords(b inspect.ErrorBody, redact bool) string {
	retry := "not retryable"
	if b.Retryable {
		retry = "retryable"
	}
	s := errorBodyLead + b.Code + " (" + retry + ")"
	if !redact {
		s += " " + termsafe.String(strconv.Quote(b.Message))
	}
	s += errorBodyNot
	if b.Glued {
		s += errorBodyGlued
	}
	return s
}

// The words of ErrorBodyWords that ErrorBodyChecks knows again.
const (
	errorBodyLead  = "HTTP error body "
	errorBodyNot   = ", not an event"
	errorBodyGlued = "; an event glued after it is dropped with it"
)

// ErrorBodyChecks are the findings that explain a detail of
// ErrorBodyWords pasted into explain: request-refused, and glued-lines
// for a body with an event glued after it; nil for any other query.
func ErrorBodyChecks(q string) []string {
	if !strings.Contains(q, strings.TrimSpace(errorBodyLead)) {
		return nil
	}
	if strings.Contains(q, strings.TrimPrefix(errorBodyGlued, "; ")) {
		return []string{"request-refused", "glued-lines"}
	}
	return []string{"request-refused"}
}

// errorBodyJSON is what a server error body says in -o json (replay's
// events, a close-up): the message only without redact.
type errorBodyJSON struct {
	Code      string  `json:"code"`
	Message   *string `json:"message,omitempty"`
	Retryable bool    `json:"retryable"`
	Glued     bool    `json:"glued"`
}

// newErrorBodyJSON is b in -o json, nil for no body.
func newErrorBodyJSON(b *inspect.ErrorBody, redact bool) *errorBodyJSON {
	if b == nil {
		return nil
	}
	j := &errorBodyJSON{Code: b.Code, Retryable: b.Retryable, Glued: b.Glued}
	if !redact {
		j.Message = &b.Message
	}
	return j
}

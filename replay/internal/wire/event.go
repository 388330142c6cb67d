package wire

import (
	"fmt"
	"strings"
	"time"
)

// protocolName is the envelope's protocol name.
const protocolName = "agentskit.chat.turn"

// Kind is the event field of a decoded event.
type Kind string

// The three event kinds of protocol v1.
const (
	KindSubmit     Kind = "client.turn.submit"
	KindSnapshot   Kind = "server.turn.snapshot"
	KindDiagnostic Kind = "server.turn.diagnostic"
)

// Code is the decode diagnostic code of a malformed line: one of the
// reference implementation's, or snapctl's own CodeLineTooLong.
type Code string

// The decode codes of the reference, in the order it checks them.
const (
	CodeInvalidPayload     Code = "PROTOCOL_INVALID_PAYLOAD"
	CodeUnsupportedVersion Code = "PROTOCOL_UNSUPPORTED_VERSION"
	CodeUnknownEvent       Code = "PROTOCOL_UNKNOWN_EVENT"
)

// CodeLineTooLong is snapctl's own code, not the reference's: a line over
// the reader's limit (--max-line), never decoded. The reference has no
// such limit and would decode the line, so it might have accepted it, and
// verdicts on the lines after it may differ from a real client's.
const CodeLineTooLong Code = "SNAPCTL_LINE_TOO_LONG"

// Status is a snapshot's turn status.
type Status string

// The turn statuses of protocol v1.
const (
	StatusIdle      Status = "idle"
	StatusStreaming Status = "streaming"
	StatusComplete  Status = "complete"
	StatusError     Status = "error"
)

// Operation is how a snapshot's turn came about (its lineage).
type Operation string

// The lineage operations of protocol v1.
const (
	OpSubmit     Operation = "submit"
	OpRetry      Operation = "retry"
	OpEdit       Operation = "edit"
	OpRegenerate Operation = "regenerate"
)

// Event is one decoded, valid protocol event. Strings are copies: an Event
// stays valid after the line it came from is gone.
type Event struct {
	Kind      Kind
	EventID   string
	SessionID string
	TurnID    string
	Sequence  int64
	EmittedAt string
	// Emitted is EmittedAt as an instant, parsed once by the decoder.
	Emitted time.Time

	// Input is the submit event's input.
	Input string
	// Diagnostic is the diagnostic event's payload.
	Diagnostic Diagnostic
	// Snapshot is the snapshot event's payload.
	Snapshot Snapshot
}

// Diagnostic is a protocol diagnostic record.
type Diagnostic struct {
	Code      string
	Message   string
	Retryable bool
}

// Usage is a snapshot's token usage.
type Usage struct {
	PromptTokens     int64
	CompletionTokens int64
	TotalTokens      int64
}

// Lineage says how a snapshot's turn came about. Operation is empty when
// the snapshot carried no lineage.
type Lineage struct {
	Operation       Operation
	ParentTurnID    string
	SourceMessageID string
}

// Snapshot is the payload of a server.turn.snapshot event.
type Snapshot struct {
	Status       Status
	Usage        Usage
	Lineage      Lineage
	HasError     bool
	Error        Diagnostic
	MessageCount int
	// Hash identifies the payload's bytes, so that two snapshots with one
	// sequence can be told apart without keeping either. It is set only
	// when the decoder was asked for it (Decoder.Hash).
	Hash uint64
	// IDsHash identifies the ids of Messages, in order, so that a
	// projection with the ids of the one before can be told without
	// reading them; set, like Hash, when the decoder was asked for it,
	// and with Messages. It is never 0 when set.
	IDsHash uint64
	// TailRunes and TailHash are the characters of the last message's
	// content and its TextHash, set with IDsHash for a snapshot neither
	// complete nor error (0 otherwise, and without messages).
	TailRunes int
	TailHash  uint64
	// Messages is the complete projection, filled only when the decoder
	// was asked for it (Decoder.Messages).
	Messages []Message
}

// Message is one message record of a snapshot's projection. Optional
// fields that were absent are empty, with Has* false where empty is a
// legal value. Parts, Metadata and ToolCall.Args are raw JSON.
type Message struct {
	ID            string
	Role          string
	Content       string
	Status        string
	CreatedAt     string
	ToolCallID    string
	HasToolCallID bool
	Parts         string
	ToolCalls     []ToolCall
	HasToolCalls  bool
	Metadata      string
}

// ToolCall is one tool call of a message.
type ToolCall struct {
	ID        string
	Name      string
	Status    string
	Args      string
	Result    string
	HasResult bool
	Error     string
	HasError  bool
}

// Problem is one rule an event breaks: the JSON path of the offending
// field ("" for the whole line) and what is wrong with it.
type Problem struct {
	Path    string
	Message string
	// RedactedPath and RedactedMessage are Path and Message without any
	// value or free-form key of the line, for --redact. An empty
	// RedactedMessage means the problem has no redacted form.
	RedactedPath, RedactedMessage string
}

// Redact returns the problem as --redact shows it: the redacted path and
// message, or a placeholder message when the problem has no redacted form.
func (p Problem) Redact() Problem {
	msg := p.RedactedMessage
	if msg == "" {
		msg = "(detail hidden)"
	}
	return Problem{Path: p.RedactedPath, Message: msg, RedactedPath: p.RedactedPath, RedactedMessage: msg}
}

func (p Problem) String() string {
	if p.Path == "" {
		return p.Message
	}
	return p.Path + ": " + p.Message
}

// DecodeError is a line that does not decode: the reference code and the
// problems found. Offset is the byte offset of a JSON syntax error, or -1.
// Lines that broke the same way may share one DecodeError: it is read,
// never changed.
type DecodeError struct {
	Code     Code
	Problems []Problem
	Offset   int
	// Envelope is what the envelope says when the line is JSON but the
	// event breaks a rule; nil when it is not JSON or says nothing.
	Envelope *Envelope
}

// Detail is the first problem, for the operator.
func (e *DecodeError) Detail() string {
	if len(e.Problems) == 0 {
		return string(e.Code)
	}
	return e.Problems[0].String()
}

// RedactedDetail is Detail without any value or free-form key of the line.
func (e *DecodeError) RedactedDetail() string {
	if len(e.Problems) == 0 {
		return string(e.Code)
	}
	return e.Problems[0].Redact().String()
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("%s: %s", e.Code, e.Detail())
}

// AllDetails joins every problem, one per line.
func (e *DecodeError) AllDetails() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.String())
	}
	return b.String()
}

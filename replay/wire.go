package replay

import "github.com/agentskit/snapctl/replay/internal/wire"

// The decoded event and its parts. They are defined where the decoder
// fills them, in replay/internal/wire; `go doc` on that package lists
// their fields and methods.
type (
	// Event is one decoded, valid protocol event. Strings are copies: an
	// Event stays valid after the line it came from is gone.
	Event = wire.Event
	// Snapshot is the payload of a server.turn.snapshot event.
	Snapshot = wire.Snapshot
	// Message is one message record of a snapshot's projection.
	Message = wire.Message
	// ToolCall is one tool call of a message.
	ToolCall = wire.ToolCall
	// Diagnostic is a protocol diagnostic record.
	Diagnostic = wire.Diagnostic
	// Usage is a snapshot's token usage.
	Usage = wire.Usage
	// Lineage says how a snapshot's turn came about.
	Lineage = wire.Lineage
	// DecodeError is a line that does not decode: the reference code
	// and the problems found.
	DecodeError = wire.DecodeError
	// Envelope is the envelope of a malformed event, read without
	// validation (DecodeError.Envelope).
	Envelope = wire.Envelope
	// Problem is one rule an event breaks: the JSON path of the
	// offending field and what is wrong with it.
	Problem = wire.Problem
)

// Kind is the event field of a decoded event.
type Kind = wire.Kind

// The three event kinds of protocol v1.
const (
	KindSubmit     Kind = wire.KindSubmit
	KindSnapshot   Kind = wire.KindSnapshot
	KindDiagnostic Kind = wire.KindDiagnostic
)

// Status is a snapshot's turn status.
type Status = wire.Status

// The turn statuses of protocol v1.
const (
	StatusIdle      Status = wire.StatusIdle
	StatusStreaming Status = wire.StatusStreaming
	StatusComplete  Status = wire.StatusComplete
	StatusError     Status = wire.StatusError
)

// Operation is how a snapshot's turn came about (its lineage).
type Operation = wire.Operation

// The lineage operations of protocol v1.
const (
	OpSubmit     Operation = wire.OpSubmit
	OpRetry      Operation = wire.OpRetry
	OpEdit       Operation = wire.OpEdit
	OpRegenerate Operation = wire.OpRegenerate
)

// Code is the decode diagnostic code of a malformed line: one of the
// reference implementation's, or snapctl's own CodeLineTooLong.
type Code = wire.Code

// The decode codes of the reference, in the order it checks them.
const (
	CodeInvalidPayload     Code = wire.CodeInvalidPayload
	CodeUnsupportedVersion Code = wire.CodeUnsupportedVersion
	CodeUnknownEvent       Code = wire.CodeUnknownEvent
)

// CodeLineTooLong is snapctl's own code, not the reference's: a line over
// the reader's limit (--max-line), never decoded. The reference has no
// such limit and would decode the line, so it might have accepted it, and
// verdicts on the lines after it may differ from a real client's.
const CodeLineTooLong Code = wire.CodeLineTooLong

// Codes lists every code, the reference's first, for summaries.
var Codes = []Code{CodeInvalidPayload, CodeUnsupportedVersion, CodeUnknownEvent, CodeLineTooLong}

// SafeIdentifierPattern is the protocol's pattern for ids, as people read it.
const SafeIdentifierPattern = wire.SafeIdentifierPattern

// IsSafeIdentifier reports whether s matches SafeIdentifierPattern.
func IsSafeIdentifier(s string) bool { return wire.IsSafeIdentifier(s) }

// IsProtocolKey reports whether k is an object key the protocol names:
// such a key says nothing about the conversation, so --redact shows it.
func IsProtocolKey(k string) bool { return wire.IsProtocolKey(k) }

// TextHash hashes text as Snapshot.TailHash does, within one run: the
// hash to compare a message's text with a snapshot's tail.
func TextHash(text string) uint64 { return wire.TextHash(text) }

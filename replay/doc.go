// Package replay reads captures of the agentskit.chat.turn v1 protocol
// and runs their lines through the monotonic snapshot cursor, as a
// reconnecting client would.
//
// The supported API for other Go programs:
//
//   - decode one line: a Decoder's Decode fills an Event, or returns a
//     *DecodeError whose Code is the one the reference gives;
//   - run a cursor: NewCursor, then Cursor.Apply for each decoded event
//     (nil for a malformed line) returns its Reason;
//   - run a whole capture: Open returns a Reader over one or more
//     captures (plain, gzip or zstd), and Run decodes every event and
//     calls back with each Result in input order, then returns a Summary;
//   - read captures in other formats: a Reader recognises each capture's
//     format (Format: NDJSON, SSE, HAR, Docker json-file, CRI, kubectl
//     --timestamps) by its first bytes, or reads the one SetFormat names;
//     Result.Origin holds what the format says beyond the position;
//   - read a Result: its Event, DecodeError, Reason and Verdict.
//
// The event types (Event, Snapshot, Message, ToolCall, Diagnostic, Usage,
// Lineage, Problem, DecodeError and the typed strings Kind, Status,
// Operation and Code) are defined by the decoder in replay/internal/wire
// and are the same types here, under these names. Everything below
// replay/internal is internal to snapctl: the JSON scanner, the
// unescaping and key rules, and the protocol's checks, which may change
// at any time.
package replay

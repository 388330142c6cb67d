// Package replay reads captures of the agentskit.chat.turn v1 protocol
// and runs their lines through the monotonic snapshot cursor, as a
// reconnecting client would. The rules it enforces are in PROTOCOL.md,
// beside this file (Protocol returns it, ProtocolRules its rules by id).
//
// The supported API for other Go programs, each with a runnable example:
//
//   - decode one line: a Decoder's Decode fills an Event, or returns a
//     *DecodeError whose Code is the one the reference gives and whose
//     Detail is the first problem;
//   - run a cursor: NewCursor, then Cursor.Apply for each decoded event
//     (nil for a malformed line) returns its Reason;
//   - run a whole capture: Open returns a Reader over one or more
//     captures (plain, gzip or zstd; StdinName reads the given reader),
//     and Run decodes every line and calls back with each Result in
//     input order, then returns a Summary (with its Stats, Counts and
//     SessionStats); Reader.Err then reports damaged input
//     (*DamageError), and Open a capture it cannot read (*InputError);
//   - read captures in other formats: a Reader recognises each capture's
//     format (Format: NDJSON, SSE, HAR, Docker json-file, CRI, kubectl
//     --timestamps) from its first lines, or reads the one SetFormat names;
//   - read a Result: its File and Line, Origin (what the capture's format
//     says beyond the position), Event (nil when the line is
//     malformed), Err (the *DecodeError), Reason, Verdict, Gap, and Raw
//     when Options.KeepRaw asks for it.
//
// Run is built on Runner, which applies one Line at a time on the calling
// goroutine; prefer Run, which decodes on every core.
//
// The event types (Event, Snapshot, Message, ToolCall, Diagnostic, Usage,
// Lineage, Problem, DecodeError and the typed strings Kind, Status,
// Operation and Code) are defined by the decoder in replay/internal/wire
// and are the same types here, under these names. Everything below
// replay/internal is internal to snapctl: the JSON scanner, the
// unescaping and key rules, and the protocol's checks, which may change
// at any time.
package replay

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
//     --timestamps, and what snapctl record writes) from its first lines,
//     or reads the one SetFormat names;
//   - read a Result: its File and Line, Origin (what the capture's format
//     says beyond the position), Event (nil when the line is
//     malformed), Err (the *DecodeError), Reason, Verdict, Gap, and Raw
//     when Options.KeepRaw asks for it.
//
// Run is built on Runner, which applies one Line at a time on the calling
// goroutine; prefer Run, which decodes on every core. Run maps a regular
// file of plain lines of 1 MiB or more into memory instead of reading it
// (on Linux; see mapped.go): no byte is copied from the kernel, the pages
// behind the lines in flight are given back, each mapping goes once no
// line of it is in flight, and a file truncated while it is read is
// damaged at the line whose bytes are gone, never a crash.
//
// The event types (Event, Snapshot, Message, ToolCall, Diagnostic, Usage,
// Lineage, Problem, DecodeError and the typed strings Kind, Status,
// Operation and Code) are defined by the decoder in replay/internal/wire
// and are the same types here, under these names. Everything below
// replay/internal is internal to snapctl: the JSON scanner, the
// unescaping and key rules, and the protocol's checks, which may change
// at any time (go doc ./replay/internal/wire Event lists the fields of
// the event types).
//
// Reader.SetFormat and Reader.SetURLFilter choose the format and the HAR
// entries; Summary.Input.Formats says what was read. A Result's Origin
// holds what a format other than NDJSON says of the event (LoggedAt,
// LastEventID, Entry, URL; for a record capture its HTTP exchange and
// receipt time); it is nil for NDJSON. Each of these has a
// runnable example in example_test.go (go test -run Example -v ./replay);
// Protocol returns PROTOCOL.md and ProtocolRules its rules by id.
//
// # Hostile input
//
// No step of the decoder costs more than a constant per byte of the line,
// whatever its shape (snapctl help hostile-input says what an operator can
// rely on). TestHostileShapesAreLinear (replay/internal/wire/hostile_test.go)
// counts the decoder's steps on doubling inputs of twelve hostile shapes
// (many keys, escaped keys, one key repeated, keys repeated in turn,
// escaped keys repeated in turn, repeats in nested objects, values nested
// in repeats, deep nesting, many tiny values, repeated messages, a huge
// message, long escape runs) and fails when doubling the input more than
// doubles the work; FuzzDecodeBudget fails on any line that costs more
// than 20 steps a byte. The slowest shape is a record that needs the
// second reading (a message record that needs more than 40,000 nodes is
// read again, recording only the members that survive) and holds tens of
// MB nested about 30 objects deep: each object level passes once over
// what it holds, by brackets and strings only, eight bytes at a time,
// about 40 MB/s (1 s for a 40 MB line, 5 s before); it never holds more
// memory than the other shapes. The benchmarks of each shape, and what
// they printed, are in scripts/README.md.
package replay

package inspect

// Check describes one kind of finding: its id, its severity, a summary
// for lists, and its documentation, the one source of `snapctl explain
// ID`, `snapctl help findings` and inspect's hints.
type Check struct {
	ID       string
	Severity Severity
	Summary  string
	// Means says what the finding means and what its positions are;
	// Arises how it comes about, naming the server behaviours that cause
	// it or look like it; Do what to do, in a sentence or two (inspect's
	// hint under each finding).
	Means, Arises, Do string
}

// Checks lists every check in report order: worst first, then roughly by
// how much an operator should care.
var Checks = []Check{
	{ID: InvalidEvent, Severity: SeverityError,
		Summary: "events with the session's id that break the protocol: a client drops them",
		Means: "Lines that carry the trusted session's id (the pinned one, or any session with a valid event) and are JSON, " +
			"but break a rule of the protocol (`PROTOCOL_INVALID_PAYLOAD`): a client drops them. The message names the first line " +
			"and its first broken rule, without quoting values; `inspect --line N` shows every problem. Unknown events and other " +
			"versions (`PROTOCOL_UNKNOWN_EVENT`, `PROTOCOL_UNSUPPORTED_VERSION`) are forward compatibility, not findings.",
		Arises: "A server or proxy that writes a field wrong (missing, mistyped or out of range), or a tool that changed the line after it was sent.",
		Do:     "Validate events before sending them; the broken rule is in the detail (`snapctl explain` with the detail pasted prints it)."},
	{ID: TimestampSequence, Severity: SeverityError,
		Summary: "sequences look like Unix-millisecond timestamps",
		Means: "More than half of a session's accepted sequences are at least 10^12 (after 2001 in Unix ms) and within 24 h " +
			"of the same event's `emittedAt` in milliseconds.",
		Arises: "The server uses a wall clock as the sequence: two events in one millisecond share a sequence and the cursor " +
			"drops the second (\"the user message disappears\").",
		Do: "Number events with a per-session counter that increases once per emitted event, as the AgentsKit Chat server's stored cursor does."},
	{ID: SequenceCollision, Severity: SeverityError,
		Summary: "two snapshots share a sequence but differ: a lost update",
		Means: "A snapshot kept inert as `duplicate` or `stale` differs in content or event id from the snapshot accepted at " +
			"that same sequence: a lost update. Positions: the accepted line and each dropped line.",
		Arises: "Two writers numbering one session, a sequence taken before the snapshot is built, or a redelivery " +
			"re-serialised with another key order (content is compared by a hash of the payload bytes).",
		Do: "Never reuse a sequence for different state: assign it after building the snapshot, atomically, and redeliver events byte for byte."},
	{ID: MessageVanished, Severity: SeverityError,
		Summary: "a message left the accepted projection without a retry, edit or regenerate",
		Means: "A message of one accepted projection has no counterpart in the next accepted one (matched by id as `diff` " +
			"matches them: the k-th occurrence of an id with the k-th), and that snapshot's lineage doesn't explain it (a " +
			"`retry`/`edit`/`regenerate` whose `sourceMessageId` is M explains M and every message after M).",
		Arises: "A server that sends a window or a delta instead of the complete projection, or that leaves the lineage off " +
			"the snapshot that drops the messages.",
		Do: "Send the complete projection in every snapshot, and put the lineage on the snapshot that drops messages."},
	{ID: StatusRegression, Severity: SeverityError,
		Summary: "a turn went from complete or error back to streaming",
		Means:   "A turn's accepted snapshots go from `complete` or `error` back to `streaming`.",
		Arises:  "Old streaming states re-emitted with new sequences, or a retry that reuses the finished turn's id.",
		Do:      "Finished turns are final: start a new turn, with lineage, for a retry."},
	{ID: TurnNeverAccepted, Severity: SeverityError,
		Summary: "a turn whose snapshots were all kept inert: the client never showed it",
		Means: "The cursor kept every snapshot of a turn inert, so a client never showed the turn at all (its outcome is " +
			"`never-accepted`). Positions: each such turn's first snapshot.",
		Arises: "The turn's response reached the client after a later turn's had been accepted (out-of-order-delivery says " +
			"so when its event ids were new), or the server numbered it below the session's cursor.",
		Do: "Deliver each session's responses in the order the server sent them; if only the capture reordered them, the turn was not lost to the real client."},
	{ID: EmittedAtRegression, Severity: SeverityWarning,
		Summary: "emittedAt went backwards while accepted sequences went forwards",
		Means:   "`emittedAt` goes backwards between two consecutive accepted snapshots while their sequences go forwards.",
		Arises:  "The server numbers events in display order rather than delivery order, or its clocks disagree.",
		Do:      "Number events in the order they are sent, and take `emittedAt` from one clock."},
	{ID: DuplicateEventID, Severity: SeverityWarning,
		Summary: "one event id on lines with different content",
		Means:   "A line carries the event id of an earlier line of the session, with different content.",
		Arises:  "Event ids reused across events, or a redelivery that is not byte for byte the event it repeats.",
		Do:      "Make event ids unique per event (the AgentsKit Chat server uses random UUIDs); a redelivery must repeat the event exactly."},
	{ID: ForeignSession, Severity: SeverityWarning,
		Summary: "lines of other sessions than the pinned one",
		Means:   "With `--session` pinned, lines of other sessions (one finding per session).",
		Arises:  "A capture of several sessions read with one pinned, or a server leaking events across sessions.",
		Do:      "Check the pinned id; if the stream really carries other sessions, the server is leaking events across sessions."},
	{ID: OrphanSubmit, Severity: SeverityWarning,
		Summary: "a submit whose turn never received a snapshot",
		Means: "A submit whose turn never receives a snapshot. When a diagnostic of the turn came instead, the message " +
			"names its code (the turn's outcome is that diagnostic's: timed-out, cancelled or diagnostic).",
		Arises: "The server dropped the turn, failed it before its first snapshot (a diagnostic alone), or refused the " +
			"request (the AgentsKit Chat server answers a submit on a busy session with an HTTP 409 error body, see " +
			"request-refused), or the capture ends too early.",
		Do: "Look for a diagnostic or an error body after the submit; retry a refused submit with a new event id."},
	{ID: OutOfOrder, Severity: SeverityWarning,
		Summary: "snapshots never delivered before arrived behind the cursor: delivered out of order",
		Means: "Stale or duplicate snapshots whose event ids were never delivered before: they came late, not again, and the " +
			"cursor kept them inert. One position per run; the message names the first late turn and the turn accepted before it.",
		Arises: "A proxy, load balancer or capture that puts a whole response after a later one (mitmproxy's HAR export lists " +
			"entries in the order responses completed), or a client that runs two requests of one session at once.",
		Do: "Keep each session's responses in order from server to client; turn-never-accepted names a turn lost whole."},
	{ID: GluedLines, Severity: SeverityWarning,
		Summary: "a server error body and the next event on one line: a client drops both",
		Means: "A line holds two JSON objects: a server error body and, with no newline between them, the next response's " +
			"first event. The line is malformed, so a client drops both; the message names the event lost (event id, session, " +
			"turn, sequence).",
		Arises: "The AgentsKit Chat server's HTTP error bodies end without a newline: responses appended to one file " +
			"(`curl >> capture.jsonl`) glue the next response's first line to them.",
		Do: "Write a newline after each saved response; the lost event was real, so the gap after it is not the server's."},
	{ID: CaptureCut, Severity: SeverityWarning,
		Summary: "the capture ends inside an event: it was cut short",
		Means: "The capture breaks off in the middle of an event: its last line has no newline and its JSON stops before " +
			"its end (or that of an event glued after a server's error body there: glued-lines), or a HAR document, an SSE " +
			"stream or a container log ends inside an event. That event is malformed, and " +
			"whatever the server sent after it is not in the capture, so a turn the capture leaves unfinished may have ended " +
			"after the cut. One position per event cut (a container log may end inside one of each stream); the message names the first capture cut.",
		Arises: "A copy or download stopped early, `head -c` or a size limit, a log rotated or still being written, a " +
			"recording stopped mid-response, a HAR exported before its last response had arrived.",
		Do: "Save the transport again to its end (or wait for the writer to finish) before reading an unfinished turn at the end as the server's."},
	{ID: RequestRefused, Severity: SeverityInfo,
		Summary: "the server answered a request with an error body",
		Means: "An HTTP error body, `{\"error\": {\"code\", \"message\", \"retryable\"}}`, in the capture: a malformed line, as the " +
			"reference decides, which the overview counts by code (`refused`). One finding per code, with its message and lines.",
		Arises: "The AgentsKit Chat server refuses a submit on a session whose turn is active (409 `SESSION_BUSY`, retryable), " +
			"a body that is not JSON (`REQUEST_INVALID_JSON`) or not a turn submission (`REQUEST_INVALID_EVENT`), and another " +
			"content type (415 `REQUEST_UNSUPPORTED_MEDIA_TYPE`). An error body names no session or turn: only its position is known, " +
			"unless the submit is on the line before, `snapctl record` wrote the capture (its context names each exchange's submit), " +
			"or a HAR holds the request (its body is the submit).",
		Do: "Retry a retryable refusal once the active turn ends, with a new event id; fix the request for the others."},
	{ID: DeliveryGap, Severity: SeverityInfo,
		Summary: "a response went quiet for 2 s or more between two lines (record captures)",
		Means: "In a capture `snapctl record` wrote, a line of a response reached the proxy 2 s or more after the line before it " +
			"in the same HTTP exchange (their `receivedAt`). Positions: the line after each gap. The message gives the longest and " +
			"how far apart the two lines' `emittedAt` are: as far apart, the server paused; much closer, the stream was held " +
			"between the server and the proxy.",
		Arises: "A slow model or tool call (the server paused), a buffering proxy or load balancer in front of the server, or a " +
			"server that flushes late.",
		Do: "For a held stream, turn off buffering on the way (proxy_buffering off, flush each line); for a paused server, look at " +
			"what the turn waited on."},
	{ID: StaleRedelivery, Severity: SeverityInfo,
		Summary: "events delivered again behind the cursor, kept inert",
		Means: "Duplicate or stale snapshots that repeat events already delivered (same event id), kept inert: a rollback the " +
			"cursor prevented. Positions: one per run, the first redelivered line after each accepted snapshot.",
		Arises: "A client that reconnects and a server that resumes from behind the client's cursor.",
		Do:     "Normal after a reconnect; many of them mean the server resumes too far back: resume from the client's cursor."},
	{ID: SequenceGap, Severity: SeverityInfo,
		Summary: "accepted sequences skip values that no snapshot took",
		Means: "An accepted snapshot's sequence skips values past the previous accepted one (the gap `replay` reports), and " +
			"neither the session's submits and diagnostics in between nor the server's numbering of turns took them all. A " +
			"gap of exactly 2 where a new turn starts (2 more for each turn in between that a timeout or cancel diagnostic ended " +
			"before its first snapshot) is the server's numbering and no finding. The message says how many gaps " +
			"are at a turn boundary, how many values submits or diagnostics took and, where a turn boundary's gap is larger " +
			"than the numbering's, how many values are left unaccounted for; values that events glued to an error body " +
			"took (glued-lines) are no gap, and the message counts them apart.",
		Arises: "The AgentsKit Chat server advances its stored cursor when it claims and when it releases a turn, without a " +
			"snapshot: every turn boundary skips exactly 2 values (a timeout or cancel diagnostic shares the release's), which " +
			"is why those raise nothing. Its coalescing never leaves a gap. A gap across events of the session that a window " +
			"(`--lines`, `--since`, `--until`) left out is the window's, and raises nothing. Any other gap is snapshots the " +
			"capture lacks: lines lost, or an event glued to an error body (glued-lines).",
		Do: "Look for the lines missing between the two positions."},
	{ID: UnusableInput, Severity: SeverityInfo,
		Summary: "most lines are malformed: what they look like and how to read them",
		Means: "More than half the lines are malformed; the message says what they look like (wrapped JSON, Server-Sent " +
			"Events, a HAR file, container log lines, text) and what to do. A server's error bodies (request-refused) are read " +
			"right and do not count. It has no session; its position is the first malformed line looked at.",
		Arises: "A capture in another format than the one it was read as, or events wrapped in another record.",
		Do:     "Follow the hint: pass `--event-path` or `--format`, or extract the events into NDJSON."},
}

// CheckByID returns the check with the given id.
func CheckByID(id string) (Check, bool) {
	if i := checkIndex(id); i < len(Checks) {
		return Checks[i], true
	}
	return Check{}, false
}

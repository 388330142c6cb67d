// Package record is snapctl record's transparent reverse proxy for one
// chat server and the capture it writes of the traffic.
//
// # The capture format
//
// A record capture is NDJSON: every line of every request and response
// body exactly as it crossed the proxy, and in front of each run of them
// a context record, one JSON object on its own line whose first key is
// "snapctl". It is NDJSON rather than a HAR written as it goes because
// only NDJSON keeps what the reference and every snapctl command already
// read line for line: the reference decodes each context record as one
// malformed line, which changes no cursor, and gives every event the
// verdict it gets in the bodies read directly; a HAR is one document that
// a crash leaves unreadable, holds a body as one string (no time per
// line), and comes to the cursor only through snapctl's HAR reader.
// snapctl reads the capture as format "record" (recognised by its first
// line): context records are framing, counted in the summary
// (replay.Stats.Context), never events, and the lines they announce are
// events with their receipt time, exchange and HTTP status in their
// replay.Origin.
//
// The context records, each with "at", the proxy's clock when it was
// written (RFC 3339 with nanoseconds), and "req", the exchange's number:
//
//	{"snapctl":"capture","version":1,"at":…,"upstream":URL}
//	{"snapctl":"request","req":N,"at":…,"method":…,"url":…,"headers":{…},
//	    "sessionId":…,"turnId":…,"eventId":…}
//	{"snapctl":"sent","req":N,"at":…,"lines":K}       then K request lines
//	{"snapctl":"response","req":N,"at":…,"status":409,"headers":{…}}
//	{"snapctl":"received","req":N,"at":…,"lines":K}   then K response lines
//	{"snapctl":"cut","req":N,"at":…,"bytes":B}        a line over --max-line
//	{"snapctl":"end","req":N,"at":…,"bytes":B,"lines":K,"newlineAdded":true,
//	    "requestNewlineAdded":true,"error":"…"}
//	{"snapctl":"close","at":…,"requests":N}
//
// A "sent" or "received" record announces the K physical lines after it,
// blank ones included, that completed in one read: they share its "at",
// the time their last byte arrived. A reader takes those K lines as
// events whatever they hold, so a body line shaped like a context record
// is never read as one. The ids of the request record are those of the
// client.turn.submit its body carried, when it did: a server error body
// ({"error":…}, which names no session or turn) is attributed to them.
//
// Lines are never glued: a body whose last line has no newline (the
// real server's error bodies) gets one in the capture only, and its end
// record says "newlineAdded" ("requestNewlineAdded" for a request body). Authorization, Cookie, Set-Cookie and
// Proxy-Authorization are forwarded but written only with KeepHeaders;
// otherwise "headersNotKept" names them.
//
// # Transparency and safety
//
// The proxy is httputil.ReverseProxy to the one upstream, flushing every
// chunk as it arrives (FlushInterval -1) and adding no header: a client
// that goes away cancels the upstream request, and an upstream that dies
// mid-stream aborts the client's response, as the server dying would.
// The capture is written by one Write per context record and its lines,
// under a lock, on an unbuffered file: a crash loses at most the lines
// being written. A failed write stops the recording (Capture.Err) and is
// reported once through Options.Logf; the traffic goes on. A request body
// is read ahead up to 1 MiB to name the submit in the request record
// before forwarding it; the rest streams.
//
// # Memory
//
// What the proxy holds does not grow with the number or length of
// streams past fixed bounds: the live view's pipe holds at most
// LiveLimit (64 MiB) of capture it has not shown (the recording waits
// past it); the streams' unfinished lines take at most HeldLimit (64 MiB)
// together, each at most MaxLine (a line that would take more is written
// as a "cut" record with its length; its client gets it whole); the
// lines one read finished are copied once while they are written (at
// most twice the longest line); and each open stream has a fixed cost
// (its connections and ReverseProxy's 32 KiB copy buffer). TestLoad
// bounds the heap of 200 concurrent streams at 256 KiB a stream, client
// and upstream included, and TestLoadLengthIndependent finds no growth
// with the length of streams.
package record

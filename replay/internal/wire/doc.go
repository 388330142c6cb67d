// Package wire decodes one line of an agentskit.chat.turn v1 capture the
// way the reference implementation does: a JSON scanner that records only
// the values some rule reads on a flat tape, the unescaping and key
// comparison of JSON.parse, the checks of the envelope, the payloads and
// the message record, the --event-path unwrapping, and the redacted form
// of every problem.
//
// It is snapctl's own: package replay is its only user and re-exports the
// event types and the Decoder. Nothing here is a supported API.
//
// On amd64 with AVX2, the long runs of strings are scanned by assembly
// (plain_amd64.s); the build tag purego, gccgo or any other machine keeps the
// portable scan, which the tests run on every machine.
package wire

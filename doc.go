// Command snapctl replays agentskit.chat.turn v1 captures through the
// snapshot cursor and explains every verdict.
//
// This comment is for those who change snapctl: where the code lives and
// how it is tested. Operators read README.md, `snapctl help` and
// `snapctl CMD --help`; programs that import the decoder read
// `go doc ./replay`; the benchmarks are in scripts/README.md.
//
// # Layout
//
//   - replay/: the supported library API: line reader and decompression,
//     the format stage (replay/format*.go: recognising a capture's format,
//     and one framer per format that turns its lines into events with
//     their positions: SSE, Docker, CRI, kubectl; HAR is streamed with
//     encoding/json's token reader), decoder, cursor, Run; PROTOCOL.md,
//     the contract rule by rule.
//   - replay/internal/wire: snapctl's own: the JSON tape scanner,
//     unescaping and key rules, the protocol's record and rule checks,
//     --event-path unwrapping, redaction of problems.
//   - inspect/model: the analysis model: per session the last accepted
//     projection's ids, the turns with lineage and status, and the one
//     rule that decides which removed messages a retry, edit or
//     regenerate explains; inspect, inspect/lineage and diff consume it.
//   - inspect/ (overview and findings) and inspect/lineage/ (the lineage
//     graph).
//   - diff/.
//   - cmd/: the cobra commands, and for now their output. Below it,
//     cmd/internal holds one package per subject, none importing cobra:
//     iostreams (the streams, terminal width, colour, pager, progress and
//     the stop of a run), text (tables, wrapping, Plural and OrList),
//     jsonout (the one JSON encoder, and --jq) and help (the text of the
//     help topics, `snapctl help TOPIC`, and their man pages).
//     cmd/layout_test.go keeps their dependencies running one way.
//   - internal/termsafe (terminal-safe text).
//   - scripts/ (benchmark tooling, see scripts/README.md).
//
// Capture text is untrusted: every string from a capture printed in human
// output goes through termsafe, which makes control characters, escape
// sequences and bidi overrides visible (\x1b, \u202e); JSON output uses
// JSON escaping.
//
// # Testing
//
// .ci/run is CI: gofmt, go mod tidy -diff (go.mod and go.sum must be
// tidy), go vet ./..., go test ./....
//
// go test ./... runs everything: unit tests, the conformance corpus, the
// protocol reference's drift test (TestProtocolDrift: every rule of
// replay/PROTOCOL.md has a case, every case in
// testdata/conformance/decode.jsonl names a rule in its rule field, every
// cursor capture is mapped in testdata/conformance/cursor/rules.txt), the
// runnable examples of replay, and the CLI scripts in
// testdata/script/*.txtar (testscript). The sample captures
// testdata/*.jsonl are copied into every script's work directory under
// their own names (a file the script inlines under the same name is its
// own and wins); scripts inline only the inputs that are theirs. After a
// deliberate output change, UPDATE_SCRIPTS=1 go test ./cmd rewrites their
// expected output; review the diff. cmd/readme_test.go fails when
// README.md names a help topic, a flag or a finding that does not exist,
// or grows past 350 lines.
//
// SNAPCTL_FORCE_TTY=N forces terminal output of N columns; the scripts
// table_fit, lineage_fit and inspect_fit are golden tests at 80 and 120
// columns, and the script command fits N checks that no line of the last
// output is wider than N cells. pager.txtar uses a fake pager
// (SNAPCTL_PAGER='sed s/^/paged:/').
//
// report_test.go checks the generated pages without a browser. To look at
// one (Debian: apt-get install chromium-headless-shell):
//
//	go run . report --force --out /tmp/r.html testdata/reconnect.jsonl &&
//	chromium --headless --screenshot=/tmp/r.png --window-size=1200,2000 file:///tmp/r.html
//
// TestMemoryPerSession (in inspect, inspect/lineage and diff) measures the
// heap kept per session on doubling session counts, about 860, 740 and
// 1,140 bytes (each was about 75,000 when a session kept its whole
// snapshot); TestWorkLinear fails when doubling the sessions or chained
// turns more than doubles the allocations; TestManySessions (in replay,
// inspect, inspect/lineage, diff and cmd for report) fails when 5,000 to
// 10,000 one-line sessions add more than 1 KiB of heap a session (256 bytes
// for replay's summary; for diff, beside the projection it keeps whole):
// about 220 for replay, 940 for inspect and report, 960 for lineage and
// 1,210 for diff (limit 1,558); TestWordsBounded checks that
// word diffs of 1, 2 and 4 MiB texts allocate at most 64 KiB.
//
// # Fuzzing
//
// Each fuzz target, run with go test -fuzz=NAME PACKAGE:
//
//   - FuzzDecode ./replay/internal/wire: the decoder.
//   - FuzzDecodeBudget ./replay/internal/wire: a linear budget of work and
//     a fixed tape for every line; both ways of reading a message record
//     agree.
//   - FuzzReader ./replay: the capture reader.
//   - FuzzReaderDamaged ./replay: gzip or zstd cut anywhere or followed by
//     any bytes: no panic, damage reported exactly when Err says so, every
//     line delivered is the capture's.
//   - FuzzHumanOutput ./cmd: every human format: no panic, no hang, no
//     control character printed.
//   - FuzzJSONOutput ./cmd: every -o json/jsonl output parses and holds no
//     raw control, separator or format character.
//   - FuzzCommandsAgree ./cmd: replay, inspect, diff and lineage agree on
//     which lines were accepted.
//   - FuzzFormats ./replay: every capture format from memory.
//   - FuzzAutoDetect ./replay: --format auto accounts for every line, and
//     an NDJSON capture behind any first line keeps all its events.
//   - FuzzJSONScan ./replay: the HAR scanner agrees with encoding/json.
//   - FuzzAppendJSONString ./cmd/internal/jsonout, FuzzString
//     ./internal/termsafe.
//
// scripts/fuzz.sh runs them all, for FUZZTIME each (60 s by default), and
// fails on any crasher; the inputs they found are kept in each package's
// testdata/fuzz/ and replayed by go test ./... (scripts/README.md has the
// recorded run).
package main

package inspect

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/replay"
)

// realCapture is a capture of the real AgentsKit Chat server;
// testdata/real-server/README.md says what happened in each.
func realCapture(name string) string { return filepath.Join("..", "testdata", "real-server", name) }

// realLines reads the lines of a real capture, without their newlines.
func realLines(t *testing.T, name string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(realCapture(name))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

// findingsOf returns the findings with the given id.
func findingsOf(rep Report, id string) []Finding {
	var out []Finding
	for _, f := range rep.Findings {
		if f.ID == id {
			out = append(out, f)
		}
	}
	return out
}

// TestRealServerRefusals: proxied-mix.jsonl holds the server's JSON error
// bodies as lines of their own. They stay malformed, as the reference
// decides, and each code is named, with its message and lines.
func TestRealServerRefusals(t *testing.T) {
	rep := run(t, Options{}, realCapture("proxied-mix.jsonl"))
	if got := rep.Overview.Counts.Reasons[replay.ReasonMalformed]; got != 5 {
		t.Errorf("malformed: %d, want the 5 error bodies", got)
	}
	want := map[string]string{
		"SESSION_BUSY":                   `2 requests with SESSION_BUSY: "Another turn is active for this session." (retryable;@536,657`,
		"REQUEST_INVALID_JSON":           `1 request with REQUEST_INVALID_JSON: "Request body is not valid JSON." (not retryable;@654`,
		"REQUEST_INVALID_EVENT":          `1 request with REQUEST_INVALID_EVENT: "Request body must be a valid turn submission." (not retryable;@655`,
		"REQUEST_UNSUPPORTED_MEDIA_TYPE": `1 request with REQUEST_UNSUPPORTED_MEDIA_TYPE: "Content-Type must be application/json." (not retryable;@656`,
	}
	fs := findingsOf(rep, RequestRefused)
	if len(fs) != len(want) {
		t.Fatalf("%d request-refused findings, want %d: %+v", len(fs), len(want), fs)
	}
	for _, f := range fs {
		code := strings.Fields(strings.SplitN(f.Message, " with ", 2)[1])[0]
		code = strings.TrimSuffix(code, ":")
		text, lines, _ := strings.Cut(want[code], "@")
		if !strings.Contains(f.Message, text) || strings.Join(lineNumbers(f), ",") != lines || f.SessionID != "" {
			t.Errorf("%s: %q at %v; want %q at %s", code, f.Message, lineNumbers(f), text, lines)
		}
		if rep.Overview.Refused[code] != len(strings.Split(lines, ",")) {
			t.Errorf("overview counts %d of %s", rep.Overview.Refused[code], code)
		}
	}
	if fs := findingsOf(rep, GluedLines); len(fs) != 0 {
		t.Errorf("glued-lines on a capture of whole lines: %+v", fs)
	}
}

// TestGluedErrorBody: the SESSION_BUSY body of proxied-mix.jsonl, appended
// without its (absent) newline before real-busy.jsonl's turn-2, as `curl
// >> capture.jsonl` does: the line holds two objects, and the snapshot
// glued to the body is named, since a client never sees it.
func TestGluedErrorBody(t *testing.T) {
	mix, busy := realLines(t, "proxied-mix.jsonl"), realLines(t, "real-busy.jsonl")
	var b bytes.Buffer
	for i, l := range busy {
		if i == 43 { // line 44, turn-2's first snapshot
			b.Write(mix[535])
		}
		b.Write(l)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "glued.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := run(t, Options{}, path)
	if got := rep.Overview.Counts.Reasons[replay.ReasonMalformed]; got != 1 {
		t.Errorf("malformed: %d, want the glued line", got)
	}
	fs := findingsOf(rep, GluedLines)
	if len(fs) != 1 || strings.Join(lineNumbers(fs[0]), ",") != "44" {
		t.Fatalf("glued-lines: %+v, want one at line 44", fs)
	}
	for _, want := range []string{"a server error body (SESSION_BUSY) and", `event lost: snapshot "6cfedf84-a18c-4185-b10b-9c43e7188e80"`, "of session s-busy, turn turn-2, sequence 47"} {
		if !strings.Contains(fs[0].Message, want) {
			t.Errorf("glued-lines message %q lacks %q", fs[0].Message, want)
		}
	}
	if fs := findingsOf(rep, RequestRefused); len(fs) != 1 || rep.Overview.Refused["SESSION_BUSY"] != 1 {
		t.Errorf("request-refused: %+v, counts %v", fs, rep.Overview.Refused)
	}
}

func lineNumbers(f Finding) []string {
	var out []string
	for _, p := range f.Positions {
		out = append(out, strconv.Itoa(p.Line))
	}
	return out
}

// writeLines writes lines of a capture to a temporary file.
func writeLines(t *testing.T, lines [][]byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "capture.jsonl")
	if err := os.WriteFile(path, append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// overtaken writes real-alpha.jsonl with turn-2 (lines 44-86) after
// turn-3.
func overtaken(t *testing.T) string {
	l := realLines(t, "real-alpha.jsonl")
	var moved [][]byte
	moved = append(moved, l[:43]...)
	moved = append(moved, l[86:]...)
	moved = append(moved, l[43:86]...)
	return writeLines(t, moved)
}

// TestOvertakenTurn: real-alpha.jsonl with turn-2 (lines 44-86) delivered
// after turn-3, as a proxy that forwards responses in the order they
// complete would. Those event ids were never delivered before: the
// snapshots came out of order, no reconnect redelivered them, and the
// whole turn never reached the client.
func TestOvertakenTurn(t *testing.T) {
	l := realLines(t, "real-alpha.jsonl")
	rep := run(t, Options{}, overtaken(t))
	got := brief(rep.Findings)
	want := []string{"error turn-never-accepted s-alpha [capture.jsonl:87]", "warning out-of-order-delivery s-alpha [capture.jsonl:87]",
		"info sequence-gap s-alpha [capture.jsonl:44]"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, f := range rep.Findings {
		if strings.Contains(f.Message, "reconnect") {
			t.Errorf("%s claims a reconnect: %s", f.ID, f.Message)
		}
	}
	late := findingsOf(rep, OutOfOrder)[0]
	if !strings.Contains(late.Message, "43 snapshots of event ids never delivered before") || !strings.Contains(late.Message, "turn turn-2, overtaken by turn turn-3") {
		t.Errorf("out-of-order-delivery: %s", late.Message)
	}
	if lost := findingsOf(rep, TurnNeverAccepted)[0]; !strings.Contains(lost.Message, "(turn-2)") {
		t.Errorf("turn-never-accepted: %s", lost.Message)
	}

	// The same turn delivered twice (a redelivery of ids already seen) is
	// what a reconnect does: stale-redelivery, and no turn is lost.
	again := append(append([][]byte{}, l...), l[43:86]...)
	rep = run(t, Options{}, writeLines(t, again))
	if got := brief(rep.Findings); len(got) != 1 || got[0] != "info stale-redelivery s-alpha [capture.jsonl:130]" {
		t.Errorf("redelivered turn: %q", got)
	}
}

// TestRealServerGaps: every turn boundary of the real server skips
// exactly 2 sequence values (in real-timeout.jsonl the diagnostic took
// one of them): its own numbering, which raises no sequence-gap. A gap
// of any other size, or inside a turn, still does, counted as replay
// counts it (replay.SequenceGap), with what is known and no mechanism
// guessed.
func TestRealServerGaps(t *testing.T) {
	for _, file := range []string{"real-alpha.jsonl", "real-timeout.jsonl", "real-abort.jsonl", "real-busy.jsonl", "real-fail.jsonl", "proxied-mix.jsonl", "proxied.har"} {
		if fs := findingsOf(run(t, Options{}, realCapture(file)), SequenceGap); len(fs) > 0 {
			t.Errorf("%s: %+v, want no sequence-gap", file, fs)
		}
	}
	l := realLines(t, "real-alpha.jsonl")
	for _, tc := range []struct {
		name  string
		drop  int // the 0-based line left out
		want  string
		lines [][]byte
	}{
		// Line 44 is turn-2's first snapshot, 2 past turn-1's last.
		{name: "a turn's first snapshot lost", drop: 43, want: "1 accepted snapshot skipped 3 sequence values that no snapshot took, at most 3 at once (1 at a turn boundary); " +
			"with the server's numbering of turns taken out (2 values for each turn that starts), 1 value is unaccounted for"},
		{name: "a snapshot lost inside a turn", drop: 20, want: "1 accepted snapshot skipped 1 sequence value that no snapshot took, at most 1 at once"},
	} {
		lines := append(append([][]byte{}, l[:tc.drop]...), l[tc.drop+1:]...)
		rep := run(t, Options{}, writeLines(t, lines))
		fs := findingsOf(rep, SequenceGap)
		if len(fs) != 1 || fs[0].Message != tc.want {
			t.Errorf("%s: %+v\nwant %s", tc.name, fs, tc.want)
		}
		for _, f := range rep.Findings {
			if strings.Contains(f.Message, "coalesc") || strings.Contains(f.Message, "reconnect") {
				t.Errorf("%s: %s guesses a mechanism: %s", tc.name, f.ID, f.Message)
			}
		}
	}
	// The same lines left out by a window instead: the capture holds them,
	// so the gap is the window's and no finding; a window that leaves out
	// lines elsewhere still judges the gaps where it left none out.
	lost44 := writeLines(t, append(append([][]byte{}, l[:43]...), l[44:]...))
	for _, tc := range []struct {
		name, file string
		lines      []replay.LineRange
		want       int
	}{
		{"turn-2's first snapshot", realCapture("real-alpha.jsonl"), []replay.LineRange{{First: 1, Last: 43}, {First: 45, Last: len(l)}}, 0},
		{"a snapshot inside turn-1", realCapture("real-alpha.jsonl"), []replay.LineRange{{First: 1, Last: 20}, {First: 22, Last: len(l)}}, 0},
		{"a later snapshot, line 44 lost", lost44, []replay.LineRange{{First: 1, Last: 80}, {First: 82, Last: len(l)}}, 1},
	} {
		rep := run(t, Options{Window: &replay.Window{Lines: tc.lines}}, tc.file)
		if fs := findingsOf(rep, SequenceGap); len(fs) != tc.want {
			t.Errorf("%s left out by --lines: %+v, want %d sequence-gap", tc.name, fs, tc.want)
		}
	}
	// A turn that a timeout ended before its first snapshot is one more
	// boundary of 2: turn-x between real-timeout's turns, its diagnostic
	// at 25 (its claim took 24, its release 25) and turn-2 moved 2 on.
	tl := realLines(t, "real-timeout.jsonl")
	seq := regexp.MustCompile(`"sequence":(\d+)`)
	moved := func(line []byte, by int) []byte {
		return seq.ReplaceAllFunc(line, func(m []byte) []byte {
			n, _ := strconv.Atoi(string(seq.FindSubmatch(m)[1]))
			return []byte(`"sequence":` + strconv.Itoa(n+by))
		})
	}
	diagX := bytes.Replace(bytes.Replace(moved(tl[21], 2), []byte(`"turn-1"`), []byte(`"turn-x"`), 1), []byte(`"eventId":"`), []byte(`"eventId":"x-`), 1)
	lines := append(append([][]byte{}, tl[:22]...), diagX)
	for _, l := range tl[22:] {
		lines = append(lines, moved(l, 2))
	}
	if fs := findingsOf(run(t, Options{}, writeLines(t, lines)), SequenceGap); len(fs) > 0 {
		t.Errorf("a turn timed out before its first snapshot: %+v, want no sequence-gap", fs)
	}
	lost := append(append([][]byte{}, lines[:23]...), lines[24:]...)
	if fs := findingsOf(run(t, Options{}, writeLines(t, lost)), SequenceGap); len(fs) != 1 || !strings.Contains(fs[0].Message, "skipped 5 sequence values") ||
		!strings.HasSuffix(fs[0].Message, "with the server's numbering of turns taken out (2 values for each turn that starts), 1 value is unaccounted for") {
		t.Errorf("and the next turn's first snapshot lost: %+v, want a gap of 5", fs)
	}
	// replay reports the same gap for real-timeout.jsonl's line 23.
	rd, err := replay.Open([]string{realCapture("real-timeout.jsonl")}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	_, err = replay.Run(rd, replay.Options{}, func(res *replay.Result) error {
		if res.Line == 23 && res.Gap != 2 {
			t.Errorf("replay's gap at line 23: %d, want 2", res.Gap)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRefusedTurn: a client's log of p-s-busy in proxied-mix.jsonl with
// its submits (busy-submits.jsonl, from proxied.har): turn-2's first
// submit is answered by the SESSION_BUSY body on the next line, so the
// turn is refused, and named; once the retry's response follows, the turn
// is complete.
func TestRefusedTurn(t *testing.T) {
	mix, submits := realLines(t, "proxied-mix.jsonl"), realLines(t, "busy-submits.jsonl")
	var lines [][]byte
	lines = append(lines, mix[536:579]...) // turn-1, lines 537-579
	lines = append(lines, submits[0], mix[535])
	refusedAt := len(lines)
	rep := run(t, Options{}, writeLines(t, lines))
	outs := rep.Overview.Sessions[0].Endings()
	if len(outs) != 2 || outs[1].Ending != model.EndRefused || outs[1].Code != "SESSION_BUSY" || outs[1].At.Line != refusedAt {
		t.Fatalf("outcomes: %+v; want turn-2 refused SESSION_BUSY at line %d", outs, refusedAt)
	}
	fs := findingsOf(rep, RequestRefused)
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "it answered the submit of turn turn-2 of session p-s-busy on the line before") {
		t.Errorf("request-refused: %+v", fs)
	}
	if fs := findingsOf(rep, OrphanSubmit); len(fs) != 0 {
		t.Errorf("a refused submit is no orphan: %+v", fs)
	}

	lines = append(lines, submits[1])
	lines = append(lines, mix[579:602]...) // the retry's response, lines 580-602
	rep = run(t, Options{}, writeLines(t, lines))
	if o := rep.Overview.Sessions[0].Endings()[1]; o.Ending != model.EndComplete {
		t.Errorf("turn-2 after its retry: %+v, want complete", o)
	}
}

// TestRealServerTruths asserts, over every real capture, what
// testdata/real-server/README.md says the server does beyond the protocol
// documents: a session's first snapshot is sequence 2, sequences are
// contiguous within a turn, every turn boundary skips exactly 2 (a timeout
// diagnostic takes the first), usage is 0 until a turn's final snapshot,
// the handler writes only submit lineage, and real-alpha's snapshots are
// all accepted.
func TestRealServerTruths(t *testing.T) {
	for _, name := range []string{"real-alpha.jsonl", "real-abort.jsonl", "real-timeout.jsonl", "real-busy.jsonl", "real-fail.jsonl"} {
		t.Run(name, func(t *testing.T) {
			rd, err := replay.Open([]string{realCapture(name)}, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			var turn string
			var diag int64
			first := true
			ids := map[string]bool{}
			_, err = replay.Run(rd, replay.Options{}, func(res *replay.Result) error {
				ev := res.Event
				if ids[ev.EventID] {
					t.Errorf("line %d: event id %s again", res.Line, ev.EventID)
				}
				ids[ev.EventID] = true
				if ev.Kind == replay.KindDiagnostic {
					diag = ev.Sequence
					return nil
				}
				snap := &ev.Snapshot
				switch {
				case first && ev.Sequence != 2:
					t.Errorf("line %d: first sequence %d, want 2", res.Line, ev.Sequence)
				case !first && ev.TurnID == turn && res.Gap != 0:
					t.Errorf("line %d: gap %d within %s", res.Line, res.Gap, turn)
				case !first && ev.TurnID != turn && res.Gap != 2:
					t.Errorf("line %d: gap %d at the turn boundary, want 2", res.Line, res.Gap)
				case diag != 0 && ev.Sequence != diag+2:
					t.Errorf("line %d: sequence %d after a diagnostic at %d, want %d", res.Line, ev.Sequence, diag, diag+2)
				}
				if res.Verdict() != replay.Accepted {
					t.Errorf("line %d: %s", res.Line, res.Reason)
				}
				if snap.Status != replay.StatusComplete && snap.Usage.TotalTokens != 0 {
					t.Errorf("line %d: usage %d before the turn's final snapshot", res.Line, snap.Usage.TotalTokens)
				}
				if snap.Lineage.Operation != replay.OpSubmit || snap.Lineage.ParentTurnID != "" {
					t.Errorf("line %d: lineage %+v, want submit only", res.Line, snap.Lineage)
				}
				first, turn, diag = false, ev.TurnID, 0
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestRefusalBounds: a capture of error bodies with ever new codes and
// huge messages keeps a bounded count of codes and bytes of message.
func TestRefusalBounds(t *testing.T) {
	var lines [][]byte
	long := strings.Repeat("é", 10000)
	for i := range 100 {
		lines = append(lines, []byte(`{"error":{"version":1,"code":"CODE_`+strconv.Itoa(i)+`","message":"`+long+`","retryable":false}}`))
	}
	rep := run(t, Options{}, writeLines(t, lines))
	if n := len(rep.Overview.Refused); n != maxRefusalCodes+1 || rep.Overview.Refused[otherRefusalCode] != 100-maxRefusalCodes {
		t.Errorf("%d codes counted, %d as other; want %d and %d", n, rep.Overview.Refused[otherRefusalCode], maxRefusalCodes+1, 100-maxRefusalCodes)
	}
	for _, f := range findingsOf(rep, RequestRefused) {
		if len(f.Message) > maxRefusalMessage+300 {
			t.Errorf("a message of %d bytes", len(f.Message))
		}
	}
}

// TestOutOfOrderBudget: past the budget of tracked event ids, an id not
// kept counts as delivered before, so the late turn of TestOvertakenTurn is
// then a redelivery, never claimed out of order.
func TestOutOfOrderBudget(t *testing.T) {
	rd, err := replay.Open([]string{overtaken(t)}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	in := New(Options{})
	in.budget = 50 * idSize
	sum, err := replay.Run(rd, in.replayOptions(), func(res *replay.Result) error { in.Observe(res); return nil })
	if err != nil {
		t.Fatal(err)
	}
	rep := in.Report(sum)
	if fs := findingsOf(rep, OutOfOrder); len(fs) != 0 {
		t.Errorf("out-of-order claimed past the budget: %+v", fs)
	}
	if fs := findingsOf(rep, StaleRedelivery); len(fs) != 1 {
		t.Errorf("stale-redelivery: %+v", fs)
	}
}

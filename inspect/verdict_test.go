package inspect

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/internal/samples"
	"github.com/agentskit/snapctl/replay"
)

// TestVerdictAgreesWithFindings: on every capture, each session's verdict
// counts exactly the findings that name it, by severity, and the turns
// whose ending no finding names; a session with an error or warning
// finding, or such a turn, is never clean. The expectation is derived
// here from the findings list and the overview's endings, not from the
// verdict's own code.
func TestVerdictAgreesWithFindings(t *testing.T) {
	for _, file := range samples.All(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			rep := run(t, Options{}, file)
			var total Verdict
			for _, s := range rep.Overview.Sessions {
				var want Verdict
				for _, f := range rep.Findings {
					if f.SessionID == s.SessionID {
						want.Findings[f.Severity.Rank()]++
					}
				}
				for _, e := range s.Endings() {
					switch e.Ending {
					case model.EndComplete:
					case model.EndNeverAccepted:
						if !has(rep, TurnNeverAccepted, s.SessionID) {
							t.Errorf("%s: turn %s never accepted and no turn-never-accepted finding", s.SessionID, e.TurnID)
						}
					case model.EndUnanswered:
						if !has(rep, OrphanSubmit, s.SessionID) {
							t.Errorf("%s: turn %s unanswered and no orphan-submit finding", s.SessionID, e.TurnID)
						}
					default:
						// A turn orphan-submit names counts as that
						// finding: a diagnostic that answered a submit
						// with no snapshot is one problem, not two.
						if !names(rep, OrphanSubmit, s.SessionID, e.TurnID) {
							want.Unfinished++
						}
					}
				}
				if s.Verdict() != want {
					t.Errorf("%s: verdict %+v, want %+v", s.SessionID, s.Verdict(), want)
				}
				errs := want.Findings[0] + want.Findings[1]
				if s.Verdict().Clean() != (errs == 0 && want.Unfinished == 0) {
					t.Errorf("%s: Clean %v with %d error or warning findings and %d unfinished turns",
						s.SessionID, s.Verdict().Clean(), errs, want.Unfinished)
				}
				if errs > 0 && s.Verdict().Worst() != SeverityError && s.Verdict().Worst() != SeverityWarning {
					t.Errorf("%s: worst %q with %d error or warning findings", s.SessionID, s.Verdict().Worst(), errs)
				}
				total.Unfinished += want.Unfinished
			}
			for _, f := range rep.Findings {
				total.Findings[f.Severity.Rank()]++
			}
			if got := rep.Verdict(); got != total {
				t.Errorf("capture verdict %+v, want %+v", got, total)
			}
		})
	}
}

// names says whether a finding id of session lists turn in its message's
// closing parentheses, as orphan-submit and turn-never-accepted list
// theirs ("(t1, t2)", or "(t1 answered by diagnostic X alone)").
func names(rep Report, id, session, turn string) bool {
	for _, f := range rep.Findings {
		if f.ID != id || f.SessionID != session || !strings.HasSuffix(f.Message, ")") {
			continue
		}
		list := f.Message[strings.LastIndex(f.Message, "(")+1 : len(f.Message)-1]
		if slices.ContainsFunc(strings.Split(list, ", "), func(item string) bool { return strings.Fields(item)[0] == turn }) {
			return true
		}
	}
	return false
}

func has(rep Report, id, session string) bool {
	for _, f := range rep.Findings {
		if f.ID == id && f.SessionID == session {
			return true
		}
	}
	return false
}

// TestVerdictOfRealServer: what the real captures' README says happened,
// as each session's verdict puts it.
func TestVerdictOfRealServer(t *testing.T) {
	tests := []struct {
		file, session   string
		problems, notes int
		worst           Severity
		clean           bool
	}{
		{"real-alpha.jsonl", "s-alpha", 0, 0, "", true},
		{"real-busy.jsonl", "s-busy", 0, 0, "", true},
		{"real-timeout.jsonl", "s-timeout", 1, 0, "", false},
		{"real-abort.jsonl", "s-abort", 1, 0, "", false},
		{"real-fail.jsonl", "s-fail", 1, 0, "", false},
		{"busy-submits.jsonl", "p-s-busy", 1, 0, SeverityWarning, false},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			rep := run(t, Options{}, realCapture(tt.file))
			v, ok := rep.Verdicts()[tt.session]
			if !ok {
				t.Fatalf("no session %s", tt.session)
			}
			if v.Problems() != tt.problems || v.Notes() != tt.notes || v.Worst() != tt.worst || v.Clean() != tt.clean {
				t.Errorf("verdict %+v: %d problems, %d notes, worst %q, clean %v; want %d, %d, %q, %v",
					v, v.Problems(), v.Notes(), v.Worst(), v.Clean(), tt.problems, tt.notes, tt.worst, tt.clean)
			}
		})
	}
}

// TestVerdictErrorFinding: a session with an error finding is never
// clean, whatever its turns did.
func TestVerdictErrorFinding(t *testing.T) {
	rep := run(t, Options{}, filepath.Join("..", "testdata", "inspect", "message-vanished.jsonl"))
	v := rep.Verdicts()["s-vanish"]
	if v.Clean() || v.Worst() != SeverityError || v.Count(SeverityError) != 1 {
		t.Errorf("verdict %+v: clean %v, worst %q", v, v.Clean(), v.Worst())
	}
}

// TestProblemReason: the lines that are problems in themselves, in every
// view's list of lines, are the malformed ones and the snapshots the
// cursor kept inert as stale, duplicate or foreign-session; a submit, a
// diagnostic or an accepted snapshot is none (real-timeout's
// SERVER_TIMEOUT diagnostic is one only as where turn-1 ended, and
// real-alpha's gaps of 2 at each turn boundary are the server's numbering).
func TestProblemReason(t *testing.T) {
	want := map[replay.Reason]bool{replay.ReasonMalformed: true, replay.ReasonStale: true, replay.ReasonDuplicate: true, replay.ReasonForeignSession: true}
	for _, r := range replay.Reasons {
		if got := ProblemReason(r); got != want[r] {
			t.Errorf("ProblemReason(%s) = %v, want %v", r, got, want[r])
		}
	}
	if len(replay.Reasons) <= len(want) {
		t.Errorf("only %d reasons: the test proves nothing", len(replay.Reasons))
	}
}

// TestVerdictOrphanCountsOnce: a submitted turn that a diagnostic
// answered with no snapshot (orphan-submit.jsonl's t2) is one problem of
// its session, as the orphan-submit finding that names it, not also an
// unfinished turn: the verdict's doc says such a turn counts once, and no
// view lists it unfinished.
func TestVerdictOrphanCountsOnce(t *testing.T) {
	rep := run(t, Options{}, filepath.Join("..", "testdata", "inspect", "orphan-submit.jsonl"))
	v := rep.Verdicts()["s-orphan"]
	if v.Problems() != 1 || v.Unfinished != 0 || v.Count(SeverityWarning) != 1 {
		t.Errorf("verdict %+v: %d problems; want the 1 warning alone", v, v.Problems())
	}
	if len(findingsOf(rep, OrphanSubmit)) != 1 {
		t.Fatalf("findings %+v: want orphan-submit", rep.Findings)
	}
	for i := range rep.Overview.Sessions {
		s := &rep.Overview.Sessions[i]
		if u := s.Unfinished(); len(u) != 0 {
			t.Errorf("session %s lists %+v unfinished", s.SessionID, u)
		}
		var diag bool
		for _, e := range s.Endings() {
			diag = diag || e.TurnID == "t2" && e.Ending == model.EndDiagnostic
		}
		if !diag {
			t.Errorf("session %s: t2 did not end on its diagnostic: %+v", s.SessionID, s.Endings())
		}
	}
}

// TestOrphanSubmitNamesItsDiagnostic: the orphan-submit finding on a turn
// that a diagnostic answered with no snapshot says which diagnostic came,
// as the turn's outcome does (diagnostic ADAPTER_FAILED), rather than
// leave the reader to look for one; a turn nothing answered is named
// alone.
func TestOrphanSubmitNamesItsDiagnostic(t *testing.T) {
	for _, tt := range []struct{ file, want string }{
		{filepath.Join("..", "testdata", "inspect", "orphan-submit.jsonl"), "(t2 answered by diagnostic ADAPTER_FAILED alone)"},
		{filepath.Join("..", "testdata", "inspect", "foreign-session.jsonl"), "(t10)"},
	} {
		fs := findingsOf(run(t, Options{}, tt.file), OrphanSubmit)
		if len(fs) != 1 || !strings.HasSuffix(fs[0].Message, tt.want) {
			t.Errorf("%s: orphan-submit %+v; want a message ending %q", filepath.Base(tt.file), fs, tt.want)
		}
	}
}

// TestSequenceGapLeavesOutGluedEvents: glued-lines.jsonl's line 2 holds
// an error body with the snapshot of sequence 47 glued to it, which a
// client drops. sequence-gap must not say that no snapshot took 47, as
// glued-lines says one did: the gap from 44 to 48 is the turn boundary's
// 2 (45, 46), the server's numbering, and 47, so no sequence-gap. With
// line 3 at 49, one value (48) is missing, and 47 is counted apart.
func TestSequenceGapLeavesOutGluedEvents(t *testing.T) {
	file := filepath.Join("..", "testdata", "inspect", "glued-lines.jsonl")
	rep := run(t, Options{}, file)
	if len(findingsOf(rep, GluedLines)) != 1 {
		t.Fatalf("findings %+v: want glued-lines", rep.Findings)
	}
	if gaps := findingsOf(rep, SequenceGap); len(gaps) > 0 {
		t.Errorf("sequence-gap %+v, want none", gaps)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	lines[2] = bytes.Replace(lines[2], []byte(`"sequence":48`), []byte(`"sequence":49`), 1)
	gaps := findingsOf(run(t, Options{}, writeLines(t, lines)), SequenceGap)
	want := "1 accepted snapshot skipped 3 sequence values that no snapshot took, at most 3 at once (1 at a turn boundary); " +
		"with the server's numbering of turns taken out (2 values for each turn that starts), 1 value is unaccounted for; " +
		"1 value besides was taken by an event glued to an error body, which a client drops (glued-lines)"
	if len(gaps) != 1 || gaps[0].Message != want {
		t.Errorf("sequence-gap %+v\nwant the message %q", gaps, want)
	}
}

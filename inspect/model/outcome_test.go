package model_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/replay"
)

// outcomes runs a capture through the model and describes the outcome of
// every turn, in order: "session/turn outcome [code] [@line] [later ...]".
func outcomes(t *testing.T, name string) []string {
	t.Helper()
	rd := open(t, name, nil)
	defer rd.Close()
	m := model.New("", false)
	var sessions []*model.Session
	_, err := replay.Run(rd, replay.Options{Messages: true}, func(res *replay.Result) error {
		if st := m.Observe(res); st.Session != nil && st.Session.Index == len(sessions) {
			sessions = append(sessions, st.Session)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range sessions {
		for tu := s.FirstTurn(); tu != nil; tu = tu.Next() {
			o, code, at := tu.Ending()
			d := fmt.Sprintf("%s/%s %s", s.ID, tu.ID, o)
			if code != "" {
				d += " " + code
			}
			if at.Line > 0 {
				d += fmt.Sprintf(" @%d", at.Line)
			}
			if l := tu.Later(); l != nil {
				d += fmt.Sprintf(" completed later @%d %+d prefix=%v", l.At.Line, l.Chars, l.Prefix)
			}
			out = append(out, d)
		}
	}
	return out
}

// TestOutcomeRealServer asserts the truths of testdata/real-server/README.md
// about how each turn ended.
func TestOutcomeRealServer(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"real-alpha.jsonl", []string{"s-alpha/turn-1 complete @43", "s-alpha/turn-2 complete @86", "s-alpha/turn-3 complete @129"}},
		// The client aborted turn-1 after line 9; turn-2's first snapshot
		// shows the reply complete (here with the very text the client had).
		{"real-abort.jsonl", []string{"s-abort/turn-1 cut-off @9 completed later @10 +0 prefix=true", "s-abort/turn-2 complete @32"}},
		{"real-timeout.jsonl", []string{"s-timeout/turn-1 timed-out SERVER_TIMEOUT @22 completed later @23 +0 prefix=true", "s-timeout/turn-2 complete @35"}},
		{"real-fail.jsonl", []string{"s-fail/turn-1 complete @18", "s-fail/turn-2 error CHAT_TURN_FAILED @33", "s-fail/turn-3 complete @51"}},
		{"real-busy.jsonl", []string{"s-busy/turn-1 complete @43", "s-busy/turn-2 complete @66"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got := outcomes(t, filepath.Join("..", "..", "testdata", "real-server", tc.file))
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("outcomes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestEndingMeanings: every ending has a meaning for snapctl explain, and
// its name finds it again, whatever the case.
func TestEndingMeanings(t *testing.T) {
	for _, e := range model.Endings {
		if e.Meaning() == "" {
			t.Errorf("%s has no meaning", e)
		}
		if got, ok := model.EndingNamed(strings.ToUpper(e.String())); !ok || got != e {
			t.Errorf("EndingNamed(%q) = %v, %v", strings.ToUpper(e.String()), got, ok)
		}
	}
	if _, ok := model.EndingNamed("json.syntax"); ok {
		t.Error("a rule's name is an ending")
	}
}

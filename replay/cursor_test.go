package replay

import "testing"

func TestCursorReasons(t *testing.T) {
	snap := func(session string, seq int64) *Event {
		return &Event{Kind: KindSnapshot, SessionID: session, Sequence: seq}
	}
	type step struct {
		ev     *Event
		reason Reason
		gap    int64
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"malformed before anything", []step{{nil, ReasonMalformed, 0}, {snap("s", 5), ReasonInitial, 0}}},
		{"first snapshot is initial whatever its sequence", []step{{snap("s", 900), ReasonInitial, 0}}},
		{"sequence zero can be initial", []step{{snap("s", 0), ReasonInitial, 0}, {snap("s", 0), ReasonDuplicate, 0}}},
		{"advanced with and without gap", []step{{snap("s", 1), ReasonInitial, 0}, {snap("s", 2), ReasonAdvanced, 0}, {snap("s", 7), ReasonAdvanced, 4}}},
		{"duplicate", []step{{snap("s", 3), ReasonInitial, 0}, {snap("s", 3), ReasonDuplicate, 0}}},
		{"stale", []step{{snap("s", 3), ReasonInitial, 0}, {snap("s", 2), ReasonStale, 0}, {snap("s", 4), ReasonAdvanced, 0}}},
		{"non-snapshot never moves the cursor", []step{
			{&Event{Kind: KindSubmit, SessionID: "s", Sequence: 10}, ReasonNonSnapshot, 0},
			{&Event{Kind: KindDiagnostic, SessionID: "s", Sequence: 11}, ReasonNonSnapshot, 0},
			{snap("s", 1), ReasonInitial, 0}}},
		{"foreign session before and after the first accept", []step{
			{snap("other", 1), ReasonForeignSession, 0}, {snap("s", 2), ReasonInitial, 0}, {snap("other", 3), ReasonForeignSession, 0}, {snap("s", 3), ReasonAdvanced, 0}}},
		{"non-snapshot of another session is non-snapshot", []step{{&Event{Kind: KindSubmit, SessionID: "other"}, ReasonNonSnapshot, 0}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewCursor("s")
			if err != nil {
				t.Fatal(err)
			}
			for i, st := range tc.steps {
				r, gap := c.Apply(st.ev)
				if r != st.reason || gap != st.gap {
					t.Fatalf("step %d: got %s gap %d, want %s gap %d", i, r, gap, st.reason, st.gap)
				}
			}
		})
	}
}

func TestNewCursorRejectsUnsafeSession(t *testing.T) {
	for _, s := range []string{"", "-lead", "has space", "é", string(make([]byte, 129))} {
		if _, err := NewCursor(s); err == nil {
			t.Errorf("NewCursor(%q) accepted an unsafe session", s)
		}
	}
	long := make([]byte, 128)
	for i := range long {
		long[i] = 'a'
	}
	if _, err := NewCursor(string(long)); err != nil {
		t.Errorf("a 128-character session was rejected: %v", err)
	}
}

func TestRunnerPerSessionCursors(t *testing.T) {
	r, err := NewRunner(Options{})
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{
		snapshotLine("a", 5), snapshotLine("b", 1), snapshotLine("a", 5), snapshotLine("b", 2), snapshotLine("a", 4),
	}
	want := []Reason{ReasonInitial, ReasonInitial, ReasonDuplicate, ReasonAdvanced, ReasonStale}
	for i, l := range lines {
		res := r.Step(Line{File: "x", Num: i + 1, Data: []byte(l)})
		if res.Reason != want[i] {
			t.Fatalf("line %d: got %s (%v), want %s", i+1, res.Reason, res.Err, want[i])
		}
	}
	sum := r.Summary(Stats{})
	if !sum.PerSession || len(sum.Sessions) != 2 {
		t.Fatalf("summary: per-session %v, %d sessions", sum.PerSession, len(sum.Sessions))
	}
	if f := sum.Sessions[0].Final; f == nil || f.Sequence != 5 || f.Line != 1 {
		t.Fatalf("session a final: %+v", f)
	}
}

// TestReasonCounts checks that ReasonCounts has one counter per reason,
// each reason its own, and that Map and Accepted read them back.
func TestReasonCounts(t *testing.T) {
	var c ReasonCounts
	if len(c) != len(Reasons) {
		t.Fatalf("ReasonCounts has %d counters for %d reasons", len(c), len(Reasons))
	}
	for i, r := range Reasons {
		for k := 0; k <= i; k++ {
			c.add(r)
		}
	}
	m := c.Map()
	for i, r := range Reasons {
		if c.Of(r) != i+1 || m[r] != i+1 {
			t.Errorf("%s: Of %d, Map %d, want %d", r, c.Of(r), m[r], i+1)
		}
	}
	c.add("nonsense")
	if len(m) != len(Reasons) || c.Of("nonsense") != 0 || c.Of(ReasonInitial) != 1 {
		t.Errorf("map %v, Of(nonsense) %d", m, c.Of("nonsense"))
	}
	if got, want := c.Accepted(), c.Of(ReasonInitial)+c.Of(ReasonAdvanced); got != want {
		t.Errorf("accepted %d, want %d", got, want)
	}
	if m := (&ReasonCounts{}).Map(); len(m) != 0 {
		t.Errorf("empty counts map to %v", m)
	}
}

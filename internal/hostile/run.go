package hostile

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/agentskit/snapctl/replay"
)

// Replay runs a capture held in memory through replay.Run, giving every
// result to fn, and returns the run's summary; it fails tb on any error.
func Replay(tb testing.TB, capture []byte, opts replay.Options, fn func(*replay.Result) error) replay.Summary {
	tb.Helper()
	rd, err := replay.Open([]string{replay.StdinName}, bytes.NewReader(capture), 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer rd.Close()
	sum, err := replay.Run(rd, opts, fn)
	if err != nil {
		tb.Fatal(err)
	}
	return sum
}

// PerSession checks that what keep retains of a capture of n sessions,
// each with k snapshots of size bytes, grows by at most limit bytes per
// session when the sessions double from 100 to 200: a per-session cost
// that does not depend on the size of the snapshots. what names the
// keeper in the failure.
func PerSession(t *testing.T, what string, k, size int, limit int64, keep func(capture []byte) any) {
	t.Helper()
	kept := func(n int) int64 {
		capture := Sessions(n, k, size)
		kept := Retained(func() any { return keep(capture) })
		runtime.KeepAlive(capture)
		return kept
	}
	small, large := kept(100), kept(200)
	per := (large - small) / 100
	t.Logf("%d bytes per session (100 sessions: %d, 200: %d)", per, small, large)
	if per > limit {
		t.Errorf("%s keeps %d bytes per session of %d snapshot(s) of %d bytes; want at most %d", what, per, k, size, limit)
	}
}

// ManySessions checks that what keep retains of a capture of many
// sessions, each one accepted snapshot of a 16-byte reply, grows by at
// most limit bytes per session when the sessions double from 5,000 to
// 10,000: enough sessions that fixed costs and the collector's noise
// fade, few enough for a test. It returns the bytes per session.
func ManySessions(t *testing.T, what string, limit int64, keep func(capture []byte) any) int64 {
	t.Helper()
	return ManySessionsOf(t, 5000, what, limit, keep)
}

// ManySessionsOf is ManySessions from n to 2n sessions.
func ManySessionsOf(t *testing.T, n int, what string, limit int64, keep func(capture []byte) any) int64 {
	t.Helper()
	kept := func(n int) int64 {
		capture := Sessions(n, 1, 16)
		kept := Retained(func() any { return keep(capture) })
		runtime.KeepAlive(capture)
		return kept
	}
	small, large := kept(n), kept(2*n)
	per := (large - small) / int64(n)
	t.Logf("%s: %d bytes per session (%d sessions: %d, %d: %d)", what, per, n, small, 2*n, large)
	if per > limit {
		t.Errorf("%s keeps %d bytes per session of a capture of many one-line sessions; want at most %d", what, per, limit)
	}
	return per
}

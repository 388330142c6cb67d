// Package hostile builds the captures an attacker would send to the
// commands that keep state per session (many sessions, huge messages) and
// measures what that state costs, for tests and benchmarks that check
// memory by counting bytes rather than by timing.
package hostile

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
)

// WriteSessions writes a capture of n sessions, each with k accepted
// snapshots (sequences 1 to k) of one turn holding a user message and an
// assistant message of size bytes. Snapshots come in rounds: the first of
// every session, then the second of every session, and so on, so every
// session's previous projection is in flight at once.
func WriteSessions(w io.Writer, n, k, size int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	for j := 0; j < k; j++ {
		text := Words(size, j)
		for s := 0; s < n; s++ {
			fmt.Fprintf(bw, `{"protocol":"agentskit.chat.turn","version":1,"eventId":"e%d-%d","sessionId":"s%d","turnId":"t%d","sequence":%d,"emittedAt":"2026-07-11T03:00:00.000Z","event":"server.turn.snapshot","payload":{"status":"complete","usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"messages":[{"id":"u%d","role":"user","content":"hi","status":"complete","createdAt":"2026-07-11T03:00:00.000Z"},{"id":"a%d","role":"assistant","content":"%s","status":"complete","createdAt":"2026-07-11T03:00:00.000Z"}]}}`+"\n",
				s, j, s, s, j+1, s, s, text)
		}
	}
	return bw.Flush()
}

// Sessions is WriteSessions into memory.
func Sessions(n, k, size int) []byte {
	var b bytes.Buffer
	_ = WriteSessions(&b, n, k, size) // a bytes.Buffer does not fail
	return b.Bytes()
}

// Words is size bytes of distinct words, all different from one another,
// the worst case for a word diff's intern table. Variant j > 0 rewords
// every tenth word, so two variants share most words and differ all
// along.
func Words(size, j int) string {
	var b strings.Builder
	b.Grow(size + 16)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		if j > 0 && i%10 == j%10 {
			b.WriteByte('v')
		} else {
			b.WriteByte('w')
		}
		b.WriteString(strconv.Itoa(i))
	}
	return b.String()[:size]
}

// Retained is the heap that build leaves reachable through the value it
// returns: the in-use heap after a collection with that value alive,
// minus the in-use heap after a collection before build ran.
func Retained(build func() any) int64 {
	before := heapInUse()
	v := build()
	after := heapInUse()
	runtime.KeepAlive(v)
	return after - before
}

func heapInUse() int64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// WriteTurns writes a capture of one session of n turns: each a submit and
// a snapshot that retries the turn before it from that turn's assistant
// message, with a projection of two messages, so the input grows linearly
// with n and a lineage chain n turns deep.
func WriteTurns(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	for t := 0; t < n; t++ {
		lineage := `{"operation":"submit"}`
		if t > 0 {
			lineage = fmt.Sprintf(`{"operation":"retry","parentTurnId":"t%d","sourceMessageId":"a%d"}`, t-1, t-1)
		}
		fmt.Fprintf(bw, `{"protocol":"agentskit.chat.turn","version":1,"eventId":"u%d","sessionId":"s","turnId":"t%d","sequence":%d,"emittedAt":"2026-07-11T03:00:00.000Z","event":"client.turn.submit","payload":{"input":"hi"}}`+"\n",
			t, t, 2*t+1)
		fmt.Fprintf(bw, `{"protocol":"agentskit.chat.turn","version":1,"eventId":"e%d","sessionId":"s","turnId":"t%d","sequence":%d,"emittedAt":"2026-07-11T03:00:00.000Z","event":"server.turn.snapshot","payload":{"status":"complete","usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"lineage":%s,"messages":[{"id":"u%d","role":"user","content":"hi","status":"complete","createdAt":"2026-07-11T03:00:00.000Z"},{"id":"a%d","role":"assistant","content":"hello","status":"complete","createdAt":"2026-07-11T03:00:00.000Z"}]}}`+"\n",
			t, t, 2*t+2, lineage, t, t)
	}
	return bw.Flush()
}

// Turns is WriteTurns into memory.
func Turns(n int) []byte {
	var b bytes.Buffer
	_ = WriteTurns(&b, n) // a bytes.Buffer does not fail
	return b.Bytes()
}

// Mallocs is the number of heap allocations f makes: a count of work that,
// unlike time, does not depend on the machine or its load.
func Mallocs(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}

// Linear reports whether costs measured at sizes n, 2n, 4n, … grow no
// faster than the size: each at most slack times twice the one before.
func Linear(costs []uint64, slack float64) bool {
	for i := 1; i < len(costs); i++ {
		if float64(costs[i]) > slack*2*float64(costs[i-1]) {
			return false
		}
	}
	return true
}

package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

// dockerPieces is msg as Docker json-file entries of n bytes, the last
// one's log ending in end.
func dockerPieces(msg string, n int, end string) string {
	var b strings.Builder
	parts := chunks(msg, n)
	for k, p := range parts {
		if k == len(parts)-1 {
			p += end
		}
		e, _ := json.Marshal(map[string]string{"log": p, "stream": "stdout", "time": logTime})
		b.Write(e)
		b.WriteByte('\n')
	}
	return b.String()
}

// ssePieces is msg as one SSE event, a data line for each of its lines.
func ssePieces(msg string) string {
	return "data: " + strings.Join(strings.Split(msg, "\n"), "\ndata: ") + "\n\n"
}

// An event joined from several lines is as long as the join, whatever
// the pieces: up to --max-line it is decoded, past it it is too long, and
// its detail gives its real length (it once said "line is 0 bytes").
func TestJoinedEventLength(t *testing.T) {
	msg := snapshotLine("s", 1)
	// Lines short enough for the smallest limit: pieces of a log
	// message, data lines of an SSE event (JSON allows newlines between
	// tokens).
	sse := strings.ReplaceAll(msg, ",", ",\n")
	for _, tc := range []struct {
		name   string
		format Format
		in     string
		length int
	}{
		{"docker", FormatDocker, dockerPieces(msg, 10, "\n"), len(msg)},
		{"docker CRLF", FormatDocker, dockerPieces(msg, 10, "\r\n"), len(msg)},
		{"cri", FormatCRI, criPieces(msg, 50), len(msg)},
		{"sse", FormatSSE, ssePieces(sse), len(sse)},
	} {
		for _, limit := range []int{tc.length, tc.length - 1, 100} {
			t.Run(fmt.Sprintf("%s/limit %d", tc.name, limit), func(t *testing.T) {
				path := writeFile(t, t.TempDir(), "c", []byte(tc.in))
				rd, err := Open([]string{path}, nil, limit)
				if err != nil {
					t.Fatal(err)
				}
				rd.SetFormat(tc.format)
				var got []string
				if _, err := Run(rd, Options{MaxLine: limit}, func(res *Result) error {
					got = append(got, string(res.Reason)+" "+decodeDetailOf(res))
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				want := "initial "
				if tc.length > limit {
					want = fmt.Sprintf("malformed line is %d bytes, longer than the %d-byte maximum (--max-line): not decoded", tc.length, limit)
				}
				if len(got) != 1 || got[0] != want {
					t.Errorf("got %q, want %q", got, want)
				}
			})
		}
	}
}

func decodeDetailOf(res *Result) string {
	if res.Err == nil {
		return ""
	}
	return res.Err.Detail()
}

// A framer joining an event holds at most --max-line of it (and the
// line ending it drops), however long the event, and lets a long
// event's buffer go once the next event starts.
func TestJoinedEventHeld(t *testing.T) {
	const limit = 4096
	long := strings.Repeat("y", 10*limit)
	short := snapshotLine("s", 1)
	for _, tc := range []struct {
		name   string
		format Format
		in     string
		held   func(f framer) []int
	}{
		{"docker", FormatDocker, dockerPieces(long, 100, "\n") + dockerPieces(limit3(long), 100, "\n") + dockerPieces(short, 100, "\n"),
			func(f framer) []int {
				d := f.(*dockerFramer)
				return []int{cap(d.parts[0].msg.data), cap(d.parts[1].msg.data)}
			}},
		{"cri", FormatCRI, criPieces(long, 100) + criPieces(limit3(long), 100) + criPieces(short, 100),
			func(f framer) []int {
				c := f.(*criFramer)
				return []int{cap(c.parts[0].msg.data), cap(c.parts[1].msg.data)}
			}},
		{"sse", FormatSSE, ssePieces(strings.Join(chunks(long, 100), "\n")) + ssePieces(strings.Join(chunks(limit3(long), 100), "\n")) + ssePieces(short),
			func(f framer) []int { return []int{cap(f.(*sseFramer).data.data)} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rd, err := Open([]string{StdinName}, strings.NewReader(tc.in), limit)
			if err != nil {
				t.Fatal(err)
			}
			rd.SetFormat(tc.format)
			most, events := 0, 0
			var last []int
			for {
				_, err := rd.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				events++
				if rd.frame == nil {
					t.Fatal("no framer")
				}
				last = tc.held(rd.frame)
				for _, c := range last {
					most = max(most, c)
				}
			}
			if events != 3 {
				t.Fatalf("%d events, want 3", events)
			}
			if most > limit+len("\r\n") {
				t.Errorf("held %d bytes of an event, over the %d-byte limit", most, limit)
			}
			for _, c := range last {
				if c > keepJoined {
					t.Errorf("still holds %d bytes after a short event", c)
				}
			}
		})
	}
}

// limit3 is the first three quarters of a 10-limit string: an event
// under the limit that grows the buffer most.
func limit3(long string) string { return long[:len(long)*3/40] }

// An SSE id stays in effect for every event after it, and a stream may
// repeat it on each: the events share one copy of it until it changes,
// rather than one copy each (a 10 MB id on 200 events once cost 2 GB).
func TestSSEIDShared(t *testing.T) {
	id := strings.Repeat("i", 64<<10)
	capture := func(events int) string {
		var b strings.Builder
		for i := 1; i <= events; i++ {
			fmt.Fprintf(&b, "id: %s\ndata: %s\n\n", id, snapshotLine("s", int64(i)))
		}
		return b.String()
	}
	cost := func(events int) uint64 {
		in := capture(events)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		rd, err := Open([]string{StdinName}, strings.NewReader(in), 0)
		if err != nil {
			t.Fatal(err)
		}
		rd.SetFormat(FormatSSE)
		var origin *Origin
		n := 0
		if _, err := Run(rd, Options{Workers: 1}, func(res *Result) error {
			n++
			if res.Origin == nil || res.Origin.LastEventID != id {
				t.Fatalf("event %d: origin %v", n, res.Origin)
			}
			if origin != nil && res.Origin != origin {
				t.Fatalf("event %d has its own copy of the id", n)
			}
			origin = res.Origin
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if n != events {
			t.Fatalf("%d events, want %d", n, events)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	const n = 100
	c1, c2 := cost(n), cost(2*n)
	if extra := int64(c2) - int64(c1); extra > int64(n*len(id)/8) {
		t.Errorf("%d more events with the same %d-byte id cost %d more bytes", n, len(id), extra)
	}
}

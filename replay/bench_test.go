package replay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// benchSnapshot is a realistic snapshot line of about size bytes: a
// conversation of user and assistant messages, one with a tool call.
func benchSnapshot(seq int64, size int) string {
	var msgs []string
	text := strings.Repeat("the cursor accepts only a greater sequence ", 8)
	for i := 0; len(strings.Join(msgs, ",")) < size-600; i++ {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		m := fmt.Sprintf(`{"id":"msg-%d","role":%q,"content":%q,"status":"complete","createdAt":"2026-07-11T03:00:%02d.000Z"`, i, role, text, i%60)
		if i%5 == 3 {
			m += `,"toolCalls":[{"id":"call-1","name":"search","args":{"query":"cursor","limit":5},"status":"complete","result":"found"}],"metadata":{"model":"m","latencyMs":120}`
		}
		msgs = append(msgs, m+"}")
	}
	return eventLine("session-bench", seq, "server.turn.snapshot",
		`{"status":"streaming","lineage":{"operation":"submit"},"usage":{"promptTokens":100,"completionTokens":50,"totalTokens":150},"messages":[`+strings.Join(msgs, ",")+`]}`)
}

func BenchmarkDecodeSnapshot(b *testing.B) {
	line := []byte(benchSnapshot(7, 20<<10))
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	var d Decoder
	var ev Event
	for i := 0; i < b.N; i++ {
		if err := d.Decode(line, &ev); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeSnapshotWithMessages(b *testing.B) {
	line := []byte(benchSnapshot(7, 20<<10))
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	d := Decoder{Messages: true}
	var ev Event
	for i := 0; i < b.N; i++ {
		if err := d.Decode(line, &ev); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeSnapshotBrief decodes as inspect and lineage do: brief
// messages borrowed from the line, the snapshot hashed.
func BenchmarkDecodeSnapshotBrief(b *testing.B) {
	line := []byte(benchSnapshot(7, 20<<10))
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	d := Decoder{Messages: true, Brief: true, Borrow: true, Hash: true}
	var ev Event
	for i := 0; i < b.N; i++ {
		if err := d.Decode(line, &ev); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeTruncated(b *testing.B) {
	full := benchSnapshot(7, 20<<10)
	line := []byte(full[:len(full)/2])
	b.SetBytes(int64(len(line)))
	var d Decoder
	var ev Event
	for i := 0; i < b.N; i++ {
		if err := d.Decode(line, &ev); err == nil {
			b.Fatal("truncated line decoded")
		}
	}
}

func BenchmarkCursor(b *testing.B) {
	c, _ := NewCursor("s")
	evs := []Event{{Kind: KindSnapshot, SessionID: "s"}, {Kind: KindSnapshot, SessionID: "x"}, {Kind: KindSubmit, SessionID: "s"}}
	for i := 0; i < b.N; i++ {
		ev := &evs[i%3]
		ev.Sequence = int64(i)
		c.Apply(ev)
	}
}

// benchCapture is n snapshot lines of about size bytes each.
func benchCapture(n, size int) []byte {
	var buf bytes.Buffer
	line := benchSnapshot(1, size)
	for i := 0; i < n; i++ {
		buf.WriteString(strings.Replace(line, `"sequence":1,`, fmt.Sprintf(`"sequence":%d,`, i+1), 1))
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

func BenchmarkReader(b *testing.B) {
	data := benchCapture(1000, 20<<10)
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		rd, _ := Open([]string{"-"}, bytes.NewReader(data), 0)
		for {
			if _, err := rd.Next(); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}

func benchmarkRun(b *testing.B, workers int) {
	data := benchCapture(1000, 20<<10)
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		rd, _ := Open([]string{"-"}, bytes.NewReader(data), 0)
		n := 0
		if _, err := Run(rd, Options{Workers: workers}, func(r *Result) error { n++; return nil }); err != nil || n != 1000 {
			b.Fatalf("%d results, %v", n, err)
		}
	}
}

func BenchmarkRunSequential(b *testing.B) { benchmarkRun(b, 1) }
func BenchmarkRunParallel(b *testing.B)   { benchmarkRun(b, 0) }

// BenchmarkManySessions runs lines of 100,000 sessions, one snapshot
// each, through the cursors: per-session state must stay small and cheap.
func BenchmarkManySessions(b *testing.B) {
	var buf bytes.Buffer
	line := snapshotLine("s", 1)
	for i := 0; i < 100_000; i++ {
		buf.WriteString(strings.Replace(line, `"sessionId":"s"`, fmt.Sprintf(`"sessionId":"s%d"`, i), 1))
		buf.WriteByte('\n')
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		rd, _ := Open([]string{StdinName}, bytes.NewReader(data), 0)
		if _, err := Run(rd, Options{Workers: 1}, func(*Result) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// Command genhostile writes the hostile captures of scripts/bench.sh: the
// attacks that once made snapctl slow or large, one file each, so that
// their time and peak memory can be measured on the built binary.
//
//	go run ./scripts/genhostile -dir bench/hostile
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"
)

const head = `{"protocol":"agentskit.chat.turn","version":1,"eventId":"e%d","sessionId":"s","turnId":"t","sequence":%d,` +
	`"emittedAt":"2026-07-11T03:00:00.000Z","event":"server.turn.snapshot","payload":{"status":"complete",` +
	`"usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"messages":[`

// snapshot is a snapshot line whose messages array holds messages.
func snapshot(seq int, messages string) string {
	return fmt.Sprintf(head, seq, seq) + messages + "]}}\n"
}

// withMetadata is a snapshot of one message whose metadata has members.
func withMetadata(seq int, members func(w *strings.Builder)) string {
	var b strings.Builder
	b.WriteString(`{"id":"m1","role":"user","content":"hi","status":"complete","createdAt":"2026-07-11T03:00:01.000Z","metadata":{`)
	members(&b)
	b.WriteString(`}}`)
	return snapshot(seq, b.String())
}

func keys(n int, format string, mod int) func(w *strings.Builder) {
	return func(w *strings.Builder) {
		for i := 0; i < n; i++ {
			if i > 0 {
				w.WriteByte(',')
			}
			k := i
			if mod > 0 {
				k = i % mod
			}
			fmt.Fprintf(w, format, k)
		}
	}
}

func main() {
	dir := flag.String("dir", "bench/hostile", "directory to write the captures to")
	sizeOf := flag.String("size-of", "", "print the decompressed size of this capture and exit")
	longestOf := flag.String("longest-of", "", "print the longest decompressed line of this capture and exit")
	flag.Parse()
	if *sizeOf != "" || *longestOf != "" {
		measure(*sizeOf, *longestOf)
		return
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fail(err)
	}
	values := func() string {
		return snapshot(1, strings.Repeat(`[`+strings.Repeat(`0,`, 9998)+`0],`, 2999)+`[`+strings.Repeat(`0,`, 9998)+`0]`)
	}
	captures := []struct {
		name string
		body func() string
	}{
		{"plain-keys-80k.jsonl", func() string { return withMetadata(1, keys(80_000, `"k%d":0`, 0)) }},
		{"escaped-keys-40k.jsonl", func() string { return withMetadata(1, keys(40_000, `"\u006b%d":0`, 0)) }},
		{"metadata-9980-keys-x100.jsonl", func() string {
			var b strings.Builder
			for s := 0; s < 100; s++ {
				b.WriteString(withMetadata(s, keys(9980, `"k%d":0`, 0)))
			}
			return b.String()
		}},
		{"repeated-key-10m.jsonl", func() string { return withMetadata(1, keys(10_000_000, `"a":%d`, 1)) }},
		{"keys-repeated-in-turn.jsonl", func() string { return withMetadata(1, keys(4_000_000, `"k%d":[0]`, 5000)) }},
		{"values-60mb.jsonl", values},
		{"values-60mb.jsonl.zst", func() string { return zstdOf(values()) }},
		// Two million 1-byte lines once took 870 MB and 6 s: a batch
		// held a million of them, each with an event's slot.
		{"short-lines-2m.jsonl", shortLines},
		{"short-lines-2m.jsonl.zst", func() string { return zstdOf(shortLines()) }},
		// A 10 MB SSE id stays in effect for the 200 events after it.
		{"sse-id-10mb.sse", func() string {
			var b strings.Builder
			b.WriteString("id: " + strings.Repeat("i", 10<<20) + "\n\n")
			for seq := 1; seq <= 200; seq++ {
				b.WriteString("data: " + strings.TrimSuffix(snapshot(seq, `{"id":"m1","role":"user","content":"hi","status":"complete","createdAt":"2026-07-11T03:00:01.000Z"}`), "\n") + "\n\n")
			}
			return b.String()
		}},
	}
	for _, c := range captures {
		write(filepath.Join(*dir, c.name), func(w io.Writer) { io.WriteString(w, c.body()) })
	}
	for _, c := range harCaptures {
		write(filepath.Join(*dir, c.name), c.write)
	}
}

// write writes a capture to path with body, unless it is there, through
// zstd when its name ends in .zst.
func write(path string, body func(w io.Writer)) {
	if _, err := os.Stat(path); err == nil {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		fail(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var out io.Writer = w
	var zw *zstd.Encoder
	if strings.HasSuffix(path, ".zst") {
		zw, _ = zstd.NewWriter(w)
		out = zw
	}
	body(out)
	if zw != nil {
		if err := zw.Close(); err != nil {
			fail(err)
		}
	}
	if err := w.Flush(); err != nil {
		fail(err)
	}
	if err := f.Close(); err != nil {
		fail(err)
	}
}

func shortLines() string { return strings.Repeat("x\n", 2_000_000) }

// zstdOf is s compressed as tightly as zstd can.
func zstdOf(s string) string {
	var b strings.Builder
	zw, _ := zstd.NewWriter(&b, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	zw.Write([]byte(s))
	zw.Close()
	return b.String()
}

// measure prints the decompressed size or the longest line of a capture,
// for the memory bound in scripts/bench.sh.
func measure(sizeOf, longestOf string) {
	name := sizeOf + longestOf
	if c, ok := harCapture(filepath.Base(name)); ok && longestOf != "" {
		fmt.Println(c.longest)
		return
	}
	f, err := os.Open(name)
	if err != nil {
		fail(err)
	}
	defer f.Close()
	var r io.Reader = bufio.NewReaderSize(f, 1<<20)
	if strings.HasSuffix(name, ".zst") {
		zr, err := zstd.NewReader(r)
		if err != nil {
			fail(err)
		}
		defer zr.Close()
		r = zr
	}
	var total, longest, cur int64
	buf := make([]byte, 1<<20)
	for {
		n, err := r.Read(buf)
		for _, c := range buf[:n] {
			if c == '\n' {
				longest, cur = max(longest, cur), 0
			} else {
				cur++
			}
		}
		total += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			fail(err)
		}
	}
	longest = max(longest, cur)
	if sizeOf != "" {
		fmt.Println(total)
	} else {
		fmt.Println(longest)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "genhostile:", err)
	os.Exit(1)
}

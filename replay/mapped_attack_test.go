package replay

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// attackRun runs files with or without mapping them, with opts, hashing
// what it reads: all that it delivers and reports, strings copied, with
// the reader's stats and progress at the end.
func attackRun(t *testing.T, files []string, opts Options, mapped bool) mappedRun {
	t.Helper()
	defer mappedAs(mapped)()
	rd, err := Open(files, nil, opts.MaxLine)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	rd.HashStored(sha256.New)
	var out mappedRun
	sum, err := Run(rd, opts, func(res *Result) error {
		out.Results = append(out.Results, resultOf(res))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	read, total := rd.Progress()
	out.Summary = fmt.Sprintf("%+v %+v %+v progress %d/%d", sum.Input, sum.Counts, rd.Stats(), read, total)
	if err := rd.Err(); err != nil {
		out.Err = err.Error()
	}
	for _, w := range rd.Warnings() {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%+v", w))
	}
	out.Stored = rd.Stored()
	return out
}

func sameMappedRead(t *testing.T, what string, files []string, opts Options) {
	t.Helper()
	read, mapped := attackRun(t, files, opts, false), attackRun(t, files, opts, true)
	if !reflect.DeepEqual(read, mapped) {
		for i := range min(len(read.Results), len(mapped.Results)) {
			if read.Results[i] != mapped.Results[i] {
				t.Fatalf("%s, %+v: result %d differs:\nread:   %+v\nmapped: %+v", what, opts, i, read.Results[i], mapped.Results[i])
			}
		}
		if len(read.Results) != len(mapped.Results) {
			t.Fatalf("%s, %+v: %d results read, %d mapped", what, opts, len(read.Results), len(mapped.Results))
		}
		read.Results, mapped.Results = nil, nil
		t.Fatalf("%s, %+v:\nread:   %+v\nmapped: %+v", what, opts, read, mapped)
	}
}

// TestMappedAttackShapes reads small and window-sized captures of odd
// shapes mapped and read, and compares all a run reports.
func TestMappedAttackShapes(t *testing.T) {
	ev := snapshotLine("s", 1)
	ev2 := snapshotLine("s", 2)
	dir := t.TempDir()
	fill := func(n int, end string) string {
		// Lines of events up to exactly n bytes, the last ending in end.
		var b strings.Builder
		for b.Len()+len(ev)+1 < n-len(ev)-1 {
			b.WriteString(ev + "\n")
		}
		pad := n - b.Len() - len(end) - len(`{"p":""}`)
		b.WriteString(`{"p":"` + strings.Repeat("z", pad) + `"}` + end)
		if b.Len() != n {
			t.Fatalf("fill %d: %d", n, b.Len())
		}
		return b.String()
	}
	cases := map[string]string{
		"tip":         "data: a\n" + ev + "\n" + ev2 + "\ndata: b",
		"tip-nl":      "data: a\n" + ev + "\n" + ev2 + "\ndata: b\n",
		"bom":         "\xef\xbb\xbf" + ev + "\n" + ev2 + "\n",
		"bom-sse":     "\xef\xbb\xbfdata: " + ev + "\n\ndata: " + ev2 + "\n\n",
		"crlf":        ev + "\r\n" + ev2 + "\r\n\r\n",
		"empty":       "",
		"blank":       "\n\n \n",
		"no-newline":  ev + "\n" + ev2,
		"cr-only-end": ev + "\n\r",
		"window-nl":   fill(mapWindow, "\n"),
		"window":      fill(mapWindow, ""),
		"window+1":    fill(mapWindow+1, "\n"),
		"window-1":    fill(mapWindow-1, "\n"),
		"window-cr":   fill(mapWindow, "\r\n"),
		"long-blank":  ev + "\n" + strings.Repeat(" ", 300) + "\n" + strings.Repeat(" ", 300) + "\r\n" + ev2 + "\n" + strings.Repeat("x", 300),
		"long-cr":     strings.Repeat("x", 200) + "\r\n" + strings.Repeat("x", 201) + "\r\n" + strings.Repeat("x", 199) + "\r" + ev + "\n",
		"sse-window":  strings.Repeat("data: "+ev+"\n\n", 2*mapWindow/len(ev)),
		"docker-tail": strings.Repeat(`{"log":"`+strings.ReplaceAll(ev, `"`, `\"`)+`\n","stream":"stdout","time":"2026-07-11T03:00:00.000000000Z"}`+"\n", mapWindow/len(ev)+3),
	}
	for _, n := range []int{16<<10 - 1, 16 << 10, 16<<10 + 1, 32 << 10} {
		// The tip, its first line padded to n bytes in all.
		tip := "\n" + ev + "\n" + ev2 + "\ndata: b"
		cases[fmt.Sprintf("tip-%d", n)] = "data: " + strings.Repeat("a", n-len(tip)-6) + tip
	}
	names := writeCases(t, dir, cases)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(cases["window-nl"]))
	zw.Close()
	gzName := filepath.Join(dir, "window.jsonl.gz")
	if err := os.WriteFile(gzName, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, maxLine := range []int{0, 250} {
		for _, o := range []Options{
			{Workers: 1, RawMalformed: true},
			{Workers: 4, RawMalformed: true, Messages: true, BorrowMessages: true},
			{Workers: 4, KeepRaw: true},
		} {
			o.MaxLine = maxLine
			for _, n := range names {
				sameMappedRead(t, filepath.Base(n), []string{n}, o)
			}
			sameMappedRead(t, "all", append(append([]string{}, names...), gzName, names[0], names[0]), o)
		}
	}
}

// TestMappedAttackClosed closes the reader from fn while Run reads: the
// capture was not read to its end, so it has no hash, mapped or read.
func TestMappedAttackClosed(t *testing.T) {
	name := threeWindows(t, "closed")
	for _, workers := range []int{1, 4} {
		for _, mapped := range []bool{false, true} {
			func() {
				defer mappedAs(mapped)()
				rd, err := Open([]string{name}, nil, 0)
				if err != nil {
					t.Fatal(err)
				}
				rd.HashStored(sha256.New)
				n := 0
				if _, err := Run(rd, Options{Workers: workers}, func(*Result) error {
					if n++; n == 1 {
						rd.Close()
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				if st := rd.Stored(); st[0].Sum != nil {
					t.Errorf("mapped %v, %d workers: closed after %d lines, yet hashed whole: %+v", mapped, workers, n, st[0])
				}
			}()
		}
	}
}

// TestMappedAttackFnError stops a run by an error from fn, on one core
// and four: once the goroutines Run started are gone, nothing of the
// capture is left mapped.
func TestMappedAttackFnError(t *testing.T) {
	name := threeWindows(t, "abort")
	stop := errors.New("enough")
	for _, workers := range []int{1, 4} {
		base := runtime.NumGoroutine()
		rd, err := Open([]string{name}, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Run(rd, Options{Workers: workers}, func(*Result) error { return stop }); err != stop {
			t.Fatalf("%d workers: %v", workers, err)
		}
		if left := mappingsLeft(rd, base); left != 0 {
			t.Errorf("%d workers: %d mappings left after the run", workers, left)
		}
	}
}

// TestMappedAttackStopped stops a mapped run from another goroutine and
// from fn: the capture is reported stopped, unhashed, as when read.
func TestMappedAttackStopped(t *testing.T) {
	name := threeWindows(t, "stopped")
	cause := errors.New("interrupted")
	for _, workers := range []int{1, 4} {
		for _, other := range []bool{false, true} {
			for _, mapped := range []bool{false, true} {
				func() {
					defer mappedAs(mapped)()
					rd, err := Open([]string{name}, nil, 0)
					if err != nil {
						t.Fatal(err)
					}
					defer rd.Close()
					rd.HashStored(sha256.New)
					n := 0
					done := make(chan struct{})
					if _, err := Run(rd, Options{Workers: workers}, func(*Result) error {
						if n++; n == 1 {
							if other {
								// While the pipeline's reader reads on.
								go func() { rd.Stop(cause); close(done) }()
								<-done
							} else {
								rd.Stop(cause)
								close(done)
							}
						}
						return nil
					}); err != nil {
						t.Fatal(err)
					}
					<-done
					var d *DamageError
					if !errors.As(rd.Err(), &d) || !d.Stopped || !errors.Is(d, cause) {
						t.Errorf("mapped %v, %d workers, other %v: %v", mapped, workers, other, rd.Err())
					}
					if st := rd.Stored(); st[0].Sum != nil {
						t.Errorf("mapped %v, %d workers: stopped after %d lines, yet hashed: %+v", mapped, workers, n, st[0])
					}
					if fi, _ := os.Stat(name); d != nil && fi != nil && (d.Offset <= 0 || d.Offset >= fi.Size()) {
						t.Errorf("mapped %v, %d workers: stopped at %d of %d", mapped, workers, d.Offset, fi.Size())
					}
				}()
			}
		}
	}
}

// TestMappedAttackFaultInFn truncates a mapped capture from fn and then
// reads the line fn was given, on one core and four: Run reports the
// capture damaged and, once its goroutines are gone, leaves nothing
// mapped.
func TestMappedAttackFaultInFn(t *testing.T) {
	needsMapping(t)
	var b bytes.Buffer
	for i := 0; b.Len() < 3*mapWindow; i++ {
		fmt.Fprintf(&b, `{"n":%d,"text":"%s"}`+"\n", i, strings.Repeat("x", i%3000))
	}
	dir := t.TempDir()
	for _, workers := range []int{1, 4} {
		name := filepath.Join(dir, fmt.Sprintf("fault-%d.jsonl", workers))
		if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		base := runtime.NumGoroutine()
		rd, err := Open([]string{name}, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		_, err = Run(rd, Options{Workers: workers, RawMalformed: true}, func(res *Result) error {
			if n++; n == 2000 {
				if err := os.Truncate(name, 0); err != nil {
					t.Fatal(err)
				}
			}
			_ = string(res.Raw)
			return nil
		})
		if !errors.Is(err, errVanished) {
			t.Fatalf("%d workers: %v after %d lines", workers, err, n)
		}
		if left := mappingsLeft(rd, base); left != 0 {
			t.Errorf("%d workers: %d mappings left after the run", workers, left)
		}
	}
}

// TestMappedAttackOverLimit reads lines over --max-line that the read
// path skips in pieces (longer than its buffer) while the mapped window
// holds them whole, and captures that only look compressed.
func TestMappedAttackOverLimit(t *testing.T) {
	ev := snapshotLine("s", 1)
	dir := t.TempDir()
	big := 200 << 10
	cases := map[string]string{
		"ws-crlf":   ev + "\n" + strings.Repeat("\u3000", big/3) + "\r\n" + ev + "\n",
		"ws-nbsp":   ev + "\n" + strings.Repeat(" \u00a0", big/3) + "\n" + strings.Repeat("\t", big) + "\r\n" + ev,
		"ws-x":      ev + "\n" + strings.Repeat("\u2028", big/3) + "x\r\n" + ev + "\n",
		"ws-end":    ev + "\n" + strings.Repeat(" ", big) + "\r",
		"x-end":     ev + "\n" + strings.Repeat("x", big),
		"cr-only":   ev + "\n" + strings.Repeat("\r", big) + "\n" + ev + "\n",
		"gzip-ish":  "\x1f\x8b" + ev + "\n" + ev + "\n" + ev + "\n",
		"zstd-ish":  "\x28\xb5\x2f\xfd" + ev + "\n" + ev + "\n" + ev + "\n",
		"many-long": strings.Repeat(ev+"\n"+strings.Repeat("y", 70<<10)+"\n", 3*mapWindow/(70<<10)),
	}
	names := writeCases(t, dir, cases)
	for _, maxLine := range []int{0, 250, 100 << 10} {
		for _, o := range []Options{{Workers: 1, RawMalformed: true}, {Workers: 4, RawMalformed: true}, {Workers: 2, KeepRaw: true}} {
			o.MaxLine = maxLine
			for _, n := range names {
				sameMappedRead(t, filepath.Base(n), []string{n}, o)
			}
			sameMappedRead(t, "all", names, o)
		}
	}
}

// mappingsLeft closes rd once the goroutines Run started are gone (a
// goroutine that never ends fails the test by its timeout), and returns
// how many of its mappings are still there.
func mappingsLeft(rd *Reader, goroutines int) int {
	for runtime.NumGoroutine() > goroutines {
		runtime.Gosched()
	}
	rd.maps.mu.Lock()
	defer rd.maps.mu.Unlock()
	rd.Close()
	return len(rd.maps.maps)
}

// threeWindows writes a capture of events three windows long.
func threeWindows(t *testing.T, name string) string {
	ev := snapshotLine("s", 1) + "\n"
	p := filepath.Join(t.TempDir(), name+".jsonl")
	if err := os.WriteFile(p, []byte(strings.Repeat(ev, 3*mapWindow/len(ev))), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeCases writes each capture of cases in dir, named by its key, and
// returns their names.
func writeCases(t *testing.T, dir string, cases map[string]string) []string {
	var names []string
	for name, body := range cases {
		p := filepath.Join(dir, name+".jsonl")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, p)
	}
	return names
}

// mappedAs makes Run map its captures, however small, or read them,
// until the function it returns is called.
func mappedAs(mapped bool) func() {
	old, oldMin := noMap, mapMin
	noMap, mapMin = !mapped, 0
	return func() { noMap, mapMin = old, oldMin }
}

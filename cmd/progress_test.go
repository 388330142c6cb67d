package cmd

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

// slowBlank is n bytes of whitespace-only lines, read slowly enough for
// the progress line to be drawn a few times.
type slowBlank struct{ left int }

func (s *slowBlank) Read(p []byte) (int, error) {
	if s.left <= 0 {
		return 0, io.EOF
	}
	if len(p) > 1<<20 {
		p = p[:1<<20]
	}
	if len(p) > s.left {
		p = p[:s.left]
	}
	for i := range p {
		p[i] = ' '
		if (s.left-i)%1024 == 1 {
			p[i] = '\n'
		}
	}
	s.left -= len(p)
	time.Sleep(time.Millisecond)
	return len(p), nil
}

func TestProgress(t *testing.T) {
	defer func(d time.Duration) { progressEvery = d }(progressEvery)
	progressEvery = time.Millisecond
	cases := []struct {
		name                string
		errTTY, outTTY, off bool
		want                bool
	}{
		{"stderr a terminal, output redirected", true, false, false, true},
		{"stderr not a terminal", false, false, false, false},
		{"--no-progress", true, false, true, false},
		{"streaming table on the same terminal", true, true, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var errOut bytes.Buffer
			ios := &iostreams{In: &slowBlank{left: 80 << 20}, Out: io.Discard, ErrOut: &errOut,
				ErrTTY: tc.errTTY, OutTTY: tc.outTTY, NoProgress: tc.off, ColorMode: "never"}
			opts := &replayOptions{IO: ios, captureFlags: captureFlags{Files: []string{"-"}, MaxLine: 1 << 20}, Output: "jsonl"}
			if err := replayRun(opts); err != nil {
				t.Fatal(err)
			}
			got := errOut.String()
			if !tc.want {
				if got != "" {
					t.Fatalf("progress written: %q", got)
				}
				return
			}
			if !strings.Contains(got, "reading ") || !strings.Contains(got, "MB/s") || !strings.HasSuffix(got, "\r\x1b[K") {
				t.Fatalf("progress: %q", got)
			}
		})
	}
}

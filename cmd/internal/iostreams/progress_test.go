package iostreams

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// growing is an input that has read 4 MiB more, of total, each time it
// is asked; enough is closed once it is past twice the threshold, by
// when the progress line has been drawn.
type growing struct {
	read   atomic.Int64
	total  int64
	enough chan struct{}
	once   sync.Once
}

func (g *growing) Progress() (read, total int64) {
	n := g.read.Add(4 << 20)
	if n > 2*progressThreshold {
		g.once.Do(func() { close(g.enough) })
	}
	return n, g.total
}

func TestProgress(t *testing.T) {
	defer func(d time.Duration) { progressEvery = d }(progressEvery)
	progressEvery = time.Millisecond
	cases := []struct {
		name                           string
		errTTY, outTTY, off, streaming bool
		total                          int64
		want                           string
	}{
		{"stderr a terminal, output redirected", true, false, false, true, 1 << 40, "%)"},
		{"size unknown", true, false, false, false, -1, "MB, "},
		{"stderr not a terminal", false, false, false, false, 1 << 40, ""},
		{"--no-progress", true, false, true, false, 1 << 40, ""},
		{"streaming table on the same terminal", true, true, false, true, 1 << 40, ""},
		{"a summary on the same terminal", true, true, false, false, 1 << 40, "%)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var errOut bytes.Buffer
			ios := &IOStreams{Out: io.Discard, ErrOut: &errOut,
				ErrTTY: tc.errTTY, OutTTY: tc.outTTY, NoProgress: tc.off, ColorMode: "never"}
			in := &growing{total: tc.total, enough: make(chan struct{})}
			stop := ios.StartProgress(in, tc.streaming)
			select {
			case <-in.enough:
			case <-time.After(100 * time.Millisecond): // time enough to draw it, if it were shown
			}
			stop()
			got := errOut.String()
			if tc.want == "" {
				if got != "" {
					t.Fatalf("progress written: %q", got)
				}
				return
			}
			if !strings.Contains(got, "reading ") || !strings.Contains(got, tc.want) || !strings.HasSuffix(got, "\r\x1b[K") {
				t.Fatalf("progress: %q", got)
			}
		})
	}
}

package iostreams

import (
	"fmt"
	"time"
)

// progressThreshold is the input size from which progress is shown.
const progressThreshold = 64 << 20

// progressEvery is how often the progress line is redrawn.
var progressEvery = 250 * time.Millisecond

// A Source says how much of its input has been read, of how much in all
// (-1 when that is not known), as replay.Reader does.
type Source interface {
	Progress() (read, total int64)
}

// StartProgress shows, on standard error, how much of rd has been read
// and how fast, while it is long (over 64 MiB) and standard error is a
// terminal. It never writes elsewhere. A command that streams
// rows to standard output passes streaming, and then gets no progress when
// that output shares the terminal, where the two would garble each other.
// The returned function stops it and clears the line.
func (s *IOStreams) StartProgress(rd Source, streaming bool) func() {
	if !s.ErrTTY || s.NoProgress || (streaming && s.OutTTY) {
		return func() {}
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		start := time.Now()
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		shown := false
		for {
			select {
			case <-stop:
				if shown {
					fmt.Fprint(s.ErrOut, "\r\x1b[K")
				}
				return
			case <-tick.C:
			}
			read, total := rd.Progress()
			if read < progressThreshold && total < progressThreshold {
				continue
			}
			shown = true
			rate := float64(read) / time.Since(start).Seconds()
			if total > 0 {
				fmt.Fprintf(s.ErrOut, "\r\x1b[Kreading %s of %s (%d%%), %s/s", humanBytes(read), humanBytes(total), read*100/total, humanBytes(int64(rate)))
			} else {
				fmt.Fprintf(s.ErrOut, "\r\x1b[Kreading %s, %s/s", humanBytes(read), humanBytes(int64(rate)))
			}
		}
	}()
	return func() {
		close(stop)
		<-done
	}
}

// humanBytes formats a byte count in decimal units.
func humanBytes(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

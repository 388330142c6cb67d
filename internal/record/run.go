package record

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/agentskit/snapctl/replay"
)

// Config is one recording: where to listen, the capture file, and the
// proxy's options.
type Config struct {
	Options
	File, Listen string
	// Grace is how long open exchanges may take to end once ctx ends.
	Grace time.Duration
	// Live, when set, reads the capture as it is written, on its own
	// goroutine, until io.EOF; the recording waits for it at most
	// LiveLimit bytes behind.
	Live func(io.Reader) error
	// Ready is told the address the proxy listens on; Failed, once, why
	// the capture could not be written (the traffic goes on).
	Ready  func(addr string)
	Failed func(err error)
}

// Run listens, appends the capture to cfg.File and proxies until ctx
// ends, then closes the capture cleanly (see Serve). It returns an error
// when it cannot listen or open the file, or when a write failed.
func Run(ctx context.Context, cfg Config) error {
	if err := checkAppendable(cfg.File); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return err
	}
	file, err := os.OpenFile(cfg.File, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		ln.Close()
		return err
	}
	var tee io.Writer
	var live *pipe
	liveDone := make(chan struct{})
	if cfg.Live != nil {
		live = newPipe(LiveLimit)
		tee = live
		go func() {
			defer close(liveDone)
			cfg.Live(live)
			live.CloseRead()
		}()
	}
	c := NewCapture(file, tee, cfg.Failed)
	c.Start(cfg.Upstream.String())
	if cfg.Ready != nil {
		cfg.Ready(ln.Addr().String())
	}
	serr := Serve(ctx, ln, NewProxy(c, cfg.Options), cfg.Grace)
	if live != nil {
		live.Close()
		<-liveDone
	}
	cerr := file.Close()
	switch {
	case serr != nil:
		return serr
	case c.Err() != nil:
		return fmt.Errorf("writing %s: %w", cfg.File, c.Err())
	case cerr != nil:
		return fmt.Errorf("closing %s: %w", cfg.File, cerr)
	}
	return nil
}

// checkAppendable says why the capture name could not be appended to:
// it is compressed, and plain lines after it would damage it (a reader
// stops at the first bytes that are not a gzip member or zstd frame),
// the recording lost behind the damage. Nil for a plain file, or none.
func checkAppendable(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return nil // made by the append, or refused by it
	}
	defer f.Close()
	head := make([]byte, 10)
	n, _ := io.ReadFull(f, head)
	if c := replay.Compression(head[:n]); c != "" {
		return fmt.Errorf("%s is %s-compressed: record appends plain lines, which would damage it; record to a new file (compress it once the recording ends)", name, c)
	}
	return nil
}

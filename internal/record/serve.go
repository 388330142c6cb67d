package record

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"time"
)

// Serve runs p on ln until ctx ends. It then stops accepting, lets the
// open exchanges end within grace, cuts the others (which cancels their
// upstream requests), waits for every end record and writes the
// capture's close record. It returns the listener's error, if it failed.
func Serve(ctx context.Context, ln net.Listener, p *Proxy, grace time.Duration) error {
	srv := &http.Server{Handler: p, ReadHeaderTimeout: time.Minute, ErrorLog: log.New(io.Discard, "", 0)}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), grace)
		if srv.Shutdown(sctx) != nil {
			_ = srv.Close()
		}
		cancel()
		<-errc
	}
	p.Wait()
	p.c.Close()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

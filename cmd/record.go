package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"time"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/internal/record"
	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
	"github.com/spf13/cobra"
)

// recordOptions is everything `snapctl record` needs.
type recordOptions struct {
	IO          *iostreams.IOStreams
	File        string
	Upstream    *url.URL
	Listen      string
	KeepHeaders bool
	Redact      bool
	MaxLine     int
	// Quiet writes no live verdicts.
	Quiet bool
	// Grace is how long open streams may take to end after SIGINT.
	Grace time.Duration
	// ready, when set, is told the address the proxy listens on (tests).
	ready func(addr string)
}

// newCmdRecord builds `snapctl record`. runF replaces the run function in
// tests; nil means recordRun.
func newCmdRecord(ios *iostreams.IOStreams, runF func(*recordOptions) error) *cobra.Command {
	opts := &recordOptions{IO: ios, MaxLine: replay.DefaultMaxLine, Grace: 2 * time.Second}
	var upstream string
	c := &cobra.Command{
		Use:   "record --upstream URL [--listen ADDR] FILE",
		Short: "Proxy a chat server and record its traffic, with its context, as a capture",
		Long: `Record is a reverse proxy for one chat server (--upstream) that writes what
crosses it to FILE, appending, and shows the cursor's verdict of every line
on standard error as it arrives, as replay does on a stream.

The traffic passes unchanged and unbuffered: each chunk is flushed to the
client as it arrives, a client that goes away cancels the upstream request,
and an upstream that dies mid-stream ends the client's response the same
way. Only --upstream is ever reached, and the proxy listens on 127.0.0.1
unless --listen says otherwise.

The capture is NDJSON: every body line exactly as it crossed, each run of
lines announced by a context record ({"snapctl":"received",…}) that says
which request it belongs to, when it arrived, and (for the request) the
submit it carried and (for the response) the HTTP status. Every snapctl
command reads it (format record); the reference reads each context record
as one malformed line. A body without a final newline (the server's error
bodies) gets one in the capture only. snapctl help formats describes it.

Authorization, Cookie, Set-Cookie and Proxy-Authorization are forwarded
but never written unless --keep-headers. --redact writes no header value
and no query string, and hides values in the live verdicts as replay
--redact does; the body lines stay as they crossed (a rewritten line is
not what the client got), so share the capture through a command's
--redact. Each record and its lines are appended in one write; a failed
write stops the recording with a message on standard error, and the
traffic goes on. SIGINT or SIGTERM stops accepting, lets open streams end
(2 s), cuts the rest, and closes the capture with its close record.

Memory stays bounded whatever the number and length of streams: 64 MiB of
capture the live verdicts have not shown yet (past it the recording waits),
64 MiB of unfinished lines for all streams together (a line that would take
more, or one over --max-line, is recorded as its length only: the client
gets it whole), and a fixed cost per open stream.

Exit status: 130 after SIGINT (143 after SIGTERM), the capture closed; 2
bad usage, an address it cannot listen on or an unusable FILE. A failed
write is reported on standard error when it happens; the proxy serves on
until the signal.`,
		Example: `  snapctl record --upstream http://127.0.0.1:3000 session.jsonl
  snapctl record --listen 127.0.0.1:9000 --upstream http://chat:8080 incident.jsonl
  snapctl inspect session.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			u, err := url.Parse(upstream)
			if upstream == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return usageErrorf("--upstream must be an http or https URL with a host, not %q", upstream)
			}
			if _, _, err := net.SplitHostPort(opts.Listen); err != nil {
				return usageErrorf("--listen must be HOST:PORT, not %q", opts.Listen)
			}
			opts.Upstream, opts.File = u, args[0]
			if runF != nil {
				return runF(opts)
			}
			return recordRun(opts)
		},
	}
	f := c.Flags()
	f.StringVar(&upstream, "upstream", "", "the chat server's `URL` (http or https); every request goes there")
	f.StringVar(&opts.Listen, "listen", "127.0.0.1:8080", "the `ADDR` (HOST:PORT) to listen on; port 0 picks one")
	f.BoolVar(&opts.KeepHeaders, "keep-headers", false, "also write Authorization, Cookie, Set-Cookie and Proxy-Authorization values")
	f.BoolVar(&opts.Quiet, "quiet", false, "write no live verdicts on standard error")
	f.Var((*lineSize)(&opts.MaxLine), "max-line", "longest line a stream holds, in bytes or a `SIZE` (512KiB, 64MiB); a longer one is recorded as its length only")
	registerRedact(f, &opts.Redact)
	_ = c.MarkFlagRequired("upstream")
	return c
}

func recordRun(o *recordOptions) error {
	ios := o.IO
	ctx := ios.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	cfg := record.Config{File: o.File, Listen: o.Listen, Grace: o.Grace,
		Options: record.Options{Upstream: o.Upstream, KeepHeaders: o.KeepHeaders, Redact: o.Redact, MaxLine: o.MaxLine},
		Ready: func(addr string) {
			fmt.Fprintf(ios.ErrOut, "snapctl: recording to %s: listening on http://%s, forwarding to %s\n",
				termsafe.String(o.File), addr, termsafe.String(o.Upstream.String()))
			if o.ready != nil {
				o.ready(addr)
			}
		},
		Failed: func(err error) {
			fmt.Fprintf(ios.ErrOut, "snapctl: writing %s: %s; recording stopped, the traffic goes on\n",
				termsafe.String(o.File), termsafe.String(err.Error()))
		}}
	if !o.Quiet {
		cfg.Live = o.showLive
	}
	if err := record.Run(ctx, cfg); err != nil {
		return &usageError{err}
	}
	return nil
}

// showLive replays the capture as it is written, as replay does on a
// stream, with its rows on standard error.
func (o *recordOptions) showLive(in io.Reader) error {
	ios := o.IO
	sub := &iostreams.IOStreams{In: in, Out: ios.ErrOut, ErrOut: ios.ErrOut, OutTTY: ios.ErrTTY, ErrTTY: ios.ErrTTY,
		Columns: ios.Columns, NoColor: ios.NoColor, ColorMode: ios.ColorMode, NoProgress: true}
	ro := &replayOptions{IO: sub, Output: "table", Redact: o.Redact}
	ro.Files, ro.MaxLine, ro.Format = []string{replay.StdinName}, o.MaxLine, replay.FormatRecord
	err := replayRun(ro)
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(ios.ErrOut, "snapctl: live verdicts stopped: %s\n", termsafe.String(err.Error()))
	}
	return err
}

package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"time"

	"github.com/agentskit/snapctl/cmd/internal/help"
	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/render"
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
		Long:  help.Command("record"),
		Example: `  snapctl record --upstream http://127.0.0.1:3000 session.jsonl
  snapctl record --listen 127.0.0.1:9000 --upstream http://chat:8080 incident.jsonl
  snapctl inspect session.jsonl`,
		Args: argCount(1, 1, "record writes to the one FILE it appends the capture to, for example: snapctl record --upstream http://127.0.0.1:3000 session.jsonl"),
		RunE: func(c *cobra.Command, args []string) error {
			u, err := url.Parse(upstream)
			if upstream == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return usageErrorf("--upstream must be an http or https URL with a host, not %q", upstream)
			}
			if _, _, err := net.SplitHostPort(opts.Listen); err != nil {
				return usageErrorf("--listen must be HOST:PORT, not %q", opts.Listen)
			}
			if args[0] == replay.StdinName {
				return usageErrorf("record appends the capture to a FILE: - (standard output) is not one, name a file")
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
	// --redact: every body line is written with neutral values, as
	// reduce --redact writes them; the traffic is untouched.
	var rewrite func([]byte) []byte
	if o.Redact {
		rewrite = render.Neutralize
	}
	cfg := record.Config{File: o.File, Listen: o.Listen, Grace: o.Grace,
		Options: record.Options{Upstream: o.Upstream, KeepHeaders: o.KeepHeaders, Redact: o.Redact, MaxLine: o.MaxLine, Rewrite: rewrite},
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
		if op := (*net.OpError)(nil); errors.As(err, &op) && op.Op == "listen" {
			err = fmt.Errorf("%w: name another --listen HOST:PORT (port 0 picks a free one)", err)
		}
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

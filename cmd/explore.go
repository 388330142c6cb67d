package cmd

import (
	"github.com/agentskit/snapctl/cmd/internal/explore"
	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/replay"

	"github.com/spf13/cobra"
)

// exploreOptions is everything `snapctl explore` needs.
type exploreOptions struct {
	IO *iostreams.IOStreams
	captureFlags
	Redact bool
}

// newCmdExplore builds `snapctl explore`. runF replaces the run function
// in tests; nil means exploreRun.
func newCmdExplore(ios *iostreams.IOStreams, runF func(*exploreOptions) error) *cobra.Command {
	opts := &exploreOptions{IO: ios}
	c := &cobra.Command{
		Use:   "explore FILE...",
		Short: "Step through a capture in a full-screen terminal view, line by line",
		Long: `Explore reads captures like replay (same reader, cursor, --session,
--max-line and --event-path) and opens a full-screen view: the events on the
left, and on the right, for the selected line, its event, the projection the
client holds after it, the diff against the previous accepted projection,
the session's lineage and the inspect findings that involve it.

x toggles the selected line off and on: every later verdict, projection
and diff is recomputed as if it had never arrived, then the findings and
the tree; w writes the capture without the toggled lines. ? lists every
key.

The view opens at once and fills in as the capture is read; with - it
follows standard input as it arrives. Only the offset and envelope of each
line are kept, in 40 bytes, and 4 bytes more for each finding that cites
the line (to mark every line a finding cites, not only the first 100 it
lists); a line is read again when shown (standard
input and compressed captures are copied to a temporary file for that, of
at most 4 GiB: past it, reading stops and the status line says so).
Standard output must be a terminal. Exit status: 0 done, 2 bad usage or input.

Without a terminal on standard output it exits 2: use replay, diff or
inspect for output to a file or pipe. On standard input, G stays on the
newest line as the stream arrives. Findings and the lineage tree appear
once the input has ended.

Timeline (top line): the listed lines spread over the width, left to right
in capture order (it plots by line, not by time). Each cell is a bar from
▁ to █, the highest accepted sequence among its lines, from the lowest
accepted sequence listed (▁) to the highest (█), so that sequences far
from 0 (Unix milliseconds) still rise; a cell whose one line is a problem
shows its reason's letter (m malformed, s stale, d duplicate, f
foreign-session, n non-snapshot diagnostic), · a cell with no accepted
line; a cell of many lines is coloured by its worst verdict (letters
without colour). The selected line's cell is reversed (^ without colour).
[ and ] move along it; a mouse click on it jumps there. The line under it
is its legend: the first and last line it spans, the sequences of ▁ and █,
and the letters it shows. The status line (bottom) starts with the
selected line, of how many the capture has ("line 8 of 15"; "entry 3:line
5 of 22 entries" for a HAR file; "FILE:5, 20 of 30 lines" over several
files), and the filter, if any, with how many lines it lists.

Event list (left): a mark, the finding column, line, kind (snap, subm,
diag, - for a malformed line), session (when the capture has several and
all are listed), turn, sequence and reason, coloured by verdict as in
replay (green accepted, yellow inert, red malformed). The selected line is
reversed and marked >; a line toggled off is marked x (X when selected)
and shows (off). The finding column marks every line an inspect finding
cites: ! where an error (red) or warning (yellow) finding has its own
position, * where only an info finding or timestamp-sequence (which cites
every accepted line of its session) does; the Event tab names the
findings ("cited by"), so an accepted line where a message vanished says
why it is marked. Numbers (entry, line, sequence) are never
shortened: their columns are as wide as the listed values need, and the
list takes the room its columns need, about half the screen; when they
need more, the free text gives way (long session and turn ids lose their
shared prefix or their middle, the reason its end), the list growing to
70% of the screen before an id is cut below 10 cells.

Detail tabs (right), for the selected line:
  1 Event       the line pretty-printed, with its verdict and detail as
                replay gives them; for a malformed line every problem, with
                ▶ on the lines holding the offending key (every such key:
                array indexes are not followed) or ▮ at the byte of a JSON
                syntax error
  2 Projection  what the client holds after this line (with --session, the
                pinned session's, whatever the line): the session's
                accepted snapshot (the line where it was accepted,
                sequence, turn, status, usage, error) and its conversation
                as a chat client shows it (role, status, id, text, tool
                calls); whether this line changed it, and which snapshot it
                replaced
  3 Diff        that projection against the session's previous accepted
                one, in snapctl diff's words and rules (added, removed with
                the lineage that explains it, changed, moved; inert lines
                between them by reason)
  4 Lineage     the session's tree as snapctl lineage draws it (each
                turn's outcome: complete, error, timed-out, cut-off,
                refused… with its code), the selected line's turn marked
                ▶, under the session's verdict
  5 Findings    the session's verdict, then the inspect findings that
                cite this line
The verdict is inspect's, one per session: "no problems" only when no
error or warning finding names the session and every turn ended complete
(else how many problems: errors, warnings, turns not complete), info
findings counted as notes.
The Event, Projection and Diff tabs follow the what-if toggles at once;
Findings and Lineage once recomputed (below), and, for a stream, once the
input has ended.

What-if: x toggles the selected line off and on. Every verdict after it,
and so every projection and diff, is recomputed as if the line had never
arrived: toggle off the snapshot a redelivery was judged against and the
redelivery becomes the accepted one. w writes the capture without the
toggled lines (and without lines over --max-line or outside --lines,
--since and --until) to a new file (NAME.what-if.jsonl by default; an
existing file is not overwritten). The findings and the lineage tree
follow too: they are recomputed without the toggled lines in the
background (the tabs say so while they are), and n/N stop at the lines of
the new findings.

Keys (? lists them all):
  j/k, ↓/↑             next / previous line (in the detail pane: scroll)
  pgdn/pgup (space, ctrl+f/ctrl+b)
                       a page down / up
  g/G (home/end)       first / last line; after G a live stream is followed
  n/N                  next / previous problem: an inert line other than a
                       submit, or an own position of an error or warning
                       finding (marked !): not an info finding's (a gap
                       at every turn boundary) nor timestamp-sequence's,
                       whose problem is where the cursor dropped a
                       snapshot (sequence-collision, the inert lines)
  :                    go to a line number (the first listed line at or
                       after it); E:L or entry E:line L for line L of HAR
                       entry E
  /                    search, from the selected line on, wrapping: an
                       event, turn or session id, or any text of the line as
                       written (a message id, message text; a character the
                       JSON escapes must be typed as its escape); the detail
                       scrolls to the first line holding it (the Event tab
                       when the tab shown does not) and marks it, reversed
                       (between » and « without colour), until the
                       selection moves
  s                    choose the session to list, by id (tab completes,
                       part of an id will do, empty lists every session)
  f                    filter the list (tab completes; with s, both
                       apply): problems (or p: the lines n stops at),
                       turn ID, finding NAME (a prefix will do: the lines
                       it cites), session ID (as s); empty clears
  F                    clear the filter and the session: every line
  tab                  move the keys between the list and the detail pane
                       (» shows which)
  1-5, h/l, ←/→        choose a detail tab
  x                    toggle the selected line off / on (what-if)
  w                    write the capture without the toggled lines
  [/]                  move along the timeline
  ?                    all keys
  q, ctrl+c            quit

Capture text is escaped as in every other view (termsafe); --redact hides
message text, tool-call arguments and previews as the other commands do,
and shows a tool call's name, a role, a status or a message id only where
inspect --redact would (a safe identifier, a valid enum), its size
otherwise; NO_COLOR or --color never turns colour off. The layout fits 80x24 and up.
A line over --max-line is not shown.

explore reads NDJSON captures (plain, gzip or zstd, wrapped with
--event-path too): it re-reads a line from its offset; --format other
than auto/ndjson, and --each, are refused (exit 2). A capture that auto
recognises as another format (a HAR file, SSE, container logs) opens: its
events are copied to the temporary file, as for standard input, and shown
as events. A line of a HAR entry is named as every command names it,
entry E:line L (FILE:entry E:line L with several files); the list shows
its ENTRY, and : takes E:L.`,
		Example: `  snapctl explore capture.jsonl
  snapctl explore --session session-7f3a capture.jsonl.gz
  curl -N "$URL" | snapctl explore -
  snapctl explore --redact capture.jsonl`,
		RunE: func(c *cobra.Command, args []string) error {
			if !ios.OutTTY {
				return usageErrorf("explore needs a terminal: standard output is not one (use replay, diff or inspect for output to a file or pipe)")
			}
			if len(args) == 0 {
				return usageErrorf("no capture given: name a FILE, or - for standard input")
			}
			if err := opts.validateCapture(ios, c.Flags(), args); err != nil {
				return err
			}
			// The view re-reads a line from its offset in the file, which
			// only an NDJSON capture read as one stream has.
			if opts.Each {
				return usageErrorf("explore shows one stream of captures: --each is not supported")
			}
			if opts.Format != replay.FormatAuto && opts.Format != replay.FormatNDJSON {
				return usageErrorf("explore reads NDJSON captures: --format %s is not supported (replay, inspect, lineage and diff read it)", opts.Format)
			}
			if runF != nil {
				return runF(opts)
			}
			return opts.finish(ios, exploreRun(opts))
		},
	}
	opts.register(c.Flags(), "pin the trusted session `ID` (default: one cursor per session)")
	registerRedact(c.Flags(), &opts.Redact)
	registerIDCompletion(c)
	return c
}

// exploreRun opens the view at once and indexes the captures behind it,
// then runs until q.
func exploreRun(o *exploreOptions) error {
	// Unlike the other commands, no relaxGC: the index is most of what
	// stays live, and holds no pointer, so the default collector costs
	// little and keeps the peak near twice the index rather than three
	// times.
	// Streaming: no progress line on a terminal the view is drawn on.
	rd, done, err := o.read(o.IO, true)
	if err != nil {
		return err
	}
	// The hint finish gives is read only once the feed is done with it.
	out := o.IO.Out
	if o.IO.Stdout() != nil {
		out = o.IO.Stdout()
	}
	finished, err := explore.Run(explore.Options{Reader: rd, Replay: o.options(), Observe: o.sniff.Observe,
		Palette: o.IO.Palette(), Redact: o.Redact, Out: out})
	if !finished {
		// Quit before the input ended (a live stream): the reader is
		// still in use, and there is nothing to report about it.
		o.rd = nil
		return err
	}
	done()
	return err
}

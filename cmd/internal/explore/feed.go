package explore

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/inspect/lineage"
	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
)

// exploreFeed hands the rows of a capture being read to the model, so
// that the view opens at once and follows a live stream (-) as it
// arrives. The indexing goroutine appends under the lock; the model takes
// what arrived on every tick.
type exploreFeed struct {
	// progress is the reader's (replay.Reader.Progress), safe from any
	// goroutine.
	progress func() (read, total int64)
	mu       sync.Mutex
	rows     []exploreRow
	news     []exploreNews
	files    []exploreFile
	spool    *os.File
	// finishing is set once every line is read, while the findings and
	// the lineage are made.
	finishing bool
	// done is set once the input ended (err says how, if badly), with
	// the findings and lineage of the whole capture.
	done bool
	err  error
	// lost is err when replay.Run ended with it (a capture's bytes gone
	// while a line of it was indexed), which the reader does not report.
	lost error
	// damage says, once done, that the input was read only up to its
	// damage (replay.DamageError), as the other commands' summaries say
	// "incomplete input"; "" when every capture was read whole.
	damage   string
	findings []inspect.Finding
	sessions []*lineage.Session
	verdicts map[string]inspect.Verdict
	ended    []inspect.TurnEnding
	endings  map[string]sessionTurns
	window   replay.WindowEnds
}

// exploreTickMsg asks the model to take what the feed holds.
type exploreTickMsg struct{}

// exploreTick is how often the model looks for new rows.
const exploreTick = 100 * time.Millisecond

func tickFeed() tea.Cmd {
	return tea.Tick(exploreTick, func(time.Time) tea.Msg { return exploreTickMsg{} })
}

// startExploreFeed indexes rd on its own goroutine; observe, when set,
// is called there with every result. With onEveryCore, for captures
// with no line to spool (none is standard input, a pipe or compressed:
// spoolsNone), lines are decoded on every core (replay.Run) and indexed
// in order; otherwise, or in a window (--lines, --since, --until), one
// at a time as they arrive, so that a live stream shows each line at
// once. A window's run names the files of lines outside it too, and
// spools those of a framed format: a replay.Run never shows them.
// redact leaves the capture's free text out of the findings
// (inspect.Options.Redact).
func startExploreFeed(rd *replay.Reader, opts replay.Options, observe func(*replay.Result), onEveryCore, redact bool) (*exploreFeed, error) {
	ix, err := newExploreIndexer(opts, redact)
	if err != nil {
		return nil, err
	}
	ix.observe = observe
	f := &exploreFeed{progress: rd.Progress}
	if onEveryCore && opts.Window == nil {
		go f.run(rd, ix)
		return f, nil
	}
	go func() {
		for {
			l, err := rd.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			var row exploreRow
			var news exploreNews
			if err == nil {
				row, news, err = ix.step(l)
			}
			if f.add(ix, row, news, err) != nil {
				return
			}
		}
		f.finish(ix, ix.summary(rd.Stats()))
	}()
	return f, nil
}

// run indexes rd's lines decoded on every core, in order. A capture of
// another format than NDJSON spools its lines, which RawFramed shows.
func (f *exploreFeed) run(rd *replay.Reader, ix *exploreIndexer) {
	opts := ix.ropts
	opts.RawFramed, opts.BorrowMessages = true, true
	ix.noneSpool = true
	sum, err := replay.Run(rd, opts, func(res *replay.Result) error {
		row, news, err := ix.index(res, res.Raw)
		return f.add(ix, row, news, err)
	})
	if err != nil {
		f.mu.Lock()
		if !f.done {
			f.done, f.err, f.lost = true, err, err
		}
		f.mu.Unlock()
		return
	}
	f.finish(ix, sum)
}

// outcome is the error the view ended with, err, or else the one the
// run of every core ended with (lost): shown in the status line only, it
// would be gone with the view, and explore would exit 0 after a partial
// read.
func (f *exploreFeed) outcome(err error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil {
		err = f.lost
	}
	return err
}

// add hands a row over to the model, or the error that ends the
// feed, which it returns; a line outside the window brings its file
// only.
func (f *exploreFeed) add(ix *exploreIndexer, row exploreRow, news exploreNews, err error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if errors.Is(err, errOutsideWindow) {
		if news.file != nil {
			f.files = append(f.files, *news.file)
		}
		return nil
	}
	if err != nil {
		f.done, f.err = true, err
		return err
	}
	f.rows = append(f.rows, row)
	if news.file != nil {
		f.files = append(f.files, *news.file)
		news.file = nil
	}
	f.news = append(f.news, news)
	f.spool = ix.spool
	return nil
}

// finish makes the findings and the lineage of the capture read, whose
// summary is sum.
func (f *exploreFeed) finish(ix *exploreIndexer, sum replay.Summary) {
	f.mu.Lock()
	f.finishing = true
	f.mu.Unlock()
	o := ix.finish(sum)
	damage := ""
	if d := sum.Input.Damage; d != nil {
		damage = "incomplete input: " + termsafe.String(d.Error())
		if more := sum.Input.Damaged - 1; more > 0 {
			damage += fmt.Sprintf(" (and %s)", text.Plural(more, "more damaged capture"))
		}
	}
	f.mu.Lock()
	f.damage = damage
	f.done, f.findings, f.sessions, f.verdicts, f.ended, f.endings, f.window = true, o.findings, o.sessions, o.verdicts, o.ended, o.endings, o.window
	f.mu.Unlock()
}

// incomplete is the damage the input was read up to, once done: "" for
// none.
func (f *exploreFeed) incomplete() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.damage
}

// take moves the rows that arrived into x and judges them;
// it reports whether any did and whether the input has ended.
func (f *exploreFeed) take(x *exploreIndex) (changed, done bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	// The files first: a row judged again is named by its file.
	x.files, f.files = append(x.files, f.files...), f.files[:0]
	if len(f.rows) > 0 {
		for k := range f.rows {
			x.add(f.rows[k], f.news[k])
		}
		x.spool = f.spool
		f.rows, f.news = f.rows[:0], f.news[:0]
		changed = true
	}
	if f.done {
		if x.origFindings == nil {
			x.cites, x.ends = x.citedRows(f.findings, f.ended)
		}
		x.findings, x.sessions, x.verdicts, x.ended, x.endings, x.window = f.findings, f.sessions, f.verdicts, f.ended, f.endings, f.window
		x.origFindings, x.origSessions, x.origVerdicts, x.origCites, x.origEnds, x.origEnded, x.origEndings = f.findings, f.sessions, f.verdicts, x.cites, x.ends, f.ended, f.endings
	}
	return changed, f.done, f.err
}

// reading says how far the reading is: the share of the captures' bytes
// read, when their size is known (not a pipe).
func (f *exploreFeed) reading() string {
	f.mu.Lock()
	finishing := f.finishing
	f.mu.Unlock()
	if finishing {
		return "read; finding problems…"
	}
	read, total := f.progress()
	if total <= 0 {
		return "reading…"
	}
	return fmt.Sprintf("reading %d%%…", min(100, read*100/total))
}

// finished says whether the goroutine is done with the reader.
func (f *exploreFeed) finished() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.done
}

package report

import (
	"strconv"

	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/replay"
)

// linePos is a line of a capture as the report keeps it: the file as an
// index into Collector.files, the HAR entry (0 for none: a HAR's lines
// count from 1 in each entry's body, so a line alone names a line of
// every entry) and the line.
type linePos struct{ File, Entry, Line int }

// posOfResult is where a result's line is, its file at index fi.
func posOfResult(res *replay.Result, fi int) linePos {
	return linePos{File: fi, Entry: model.EntryOf(res), Line: res.Line}
}

// anchor is the id of the position's row in an event table: e-F-L, or
// e-F-E-L for a line of HAR entry E.
func (p linePos) anchor() string {
	if p.Entry > 0 {
		return "e-" + strconv.Itoa(p.File) + "-" + strconv.Itoa(p.Entry) + "-" + strconv.Itoa(p.Line)
	}
	return "e-" + strconv.Itoa(p.File) + "-" + strconv.Itoa(p.Line)
}

// label is the position in the one form (text.Position), with the
// file's short name (see shortNames).
func (p linePos) label(names []string) string {
	return text.Position(names[p.File], p.Entry, p.Line)
}

// posOf is where a finding's position is in the collector's files; false
// for a file the collector never saw a line of.
func (c *Collector) posOf(at inspect.Position) (linePos, bool) {
	fi, ok := c.fileIdx[at.File]
	return linePos{File: fi, Entry: at.Entry, Line: at.Line}, ok
}

// posOfModel is posOf for a position of the model.
func (c *Collector) posOfModel(at model.Position) (linePos, bool) {
	return c.posOf(inspect.Position(at))
}

// ordKey orders a capture's lines as they were read: the file's index,
// the rank of the HAR entry in reading order (a HAR's entries are read
// in the order they are stored, not by number), the line. A chart finds
// the point of a cited line by it.
type ordKey [3]int

func (a ordKey) compare(b ordKey) int {
	for i := range a {
		if a[i] != b[i] {
			return a[i] - b[i]
		}
	}
	return 0
}

// ord is the key of a line the collector saw, false for another.
func (c *Collector) ord(p linePos) (ordKey, bool) {
	if p.Entry == 0 {
		return ordKey{p.File, 0, p.Line}, true
	}
	r, ok := c.entryRank[[2]int{p.File, p.Entry}]
	return ordKey{p.File, r, p.Line}, ok
}

// rank is the key of the line of a result, ranking a new HAR entry after
// every one seen.
func (c *Collector) rank(p linePos) ordKey {
	if p.Entry == 0 {
		return ordKey{p.File, 0, p.Line}
	}
	e := [2]int{p.File, p.Entry}
	r, ok := c.entryRank[e]
	if !ok {
		r = len(c.entryRank) + 1
		c.entryRank[e] = r
	}
	return ordKey{p.File, r, p.Line}
}

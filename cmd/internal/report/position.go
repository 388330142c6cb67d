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

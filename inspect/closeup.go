package inspect

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/agentskit/snapctl/replay"
	"github.com/tidwall/gjson"
)

// MaxCloseups is how many matching lines Examine keeps; Matches still
// counts them all.
const MaxCloseups = 20

// maxCloseupBytes bounds the bytes of the lines Examine keeps, after the
// first: twenty matching lines of 64 MiB must not take 1.3 GB.
const maxCloseupBytes = 32 << 20

// Target names the lines to look at up close: line Line of file File, or
// every line whose eventId is EventID.
type Target struct {
	File    string
	Line    int
	EventID string
}

func (t Target) matches(l replay.Line, ev *replay.Event, eventPath string) bool {
	if t.EventID == "" {
		return l.File == t.File && l.Num == t.Line
	}
	if ev != nil {
		return ev.EventID == t.EventID
	}
	return !l.TooLong && rawEventID(l.Data, eventPath) == t.EventID
}

// rawEventID is the top-level eventId of a line that does not decode (of
// the event at eventPath in a wrapped line), so that a broken event can
// still be found by its id. The cheap byte test keeps the JSON parse off
// almost every line.
func rawEventID(data []byte, eventPath string) string {
	if !bytes.Contains(data, []byte(`eventId`)) {
		return ""
	}
	if eventPath != "" {
		r := gjson.GetBytes(data, eventPath)
		if r.Type == gjson.String {
			data = []byte(r.Str)
		} else {
			data = []byte(r.Raw)
		}
	}
	var v struct {
		EventID string `json:"eventId"`
	}
	if json.Unmarshal(data, &v) != nil {
		return ""
	}
	return v.EventID
}

// Closeup is one line up close: its bytes, every decode problem, and the
// cursor's verdict in the context of the whole capture.
type Closeup struct {
	File string
	Line int
	// Raw is the line as read, without its line ending; empty for a line
	// longer than the reader's maximum.
	Raw []byte
	// Event is the decoded event, nil when the line is malformed.
	Event *replay.Event
	// Err lists every problem of a malformed line.
	Err *replay.DecodeError
	// Reason is the cursor's reason; Prev and Gap are as in replay.Result.
	Reason replay.Reason
	Prev   int64
	Gap    int64
	// Findings are the report's findings that list this line.
	Findings []Finding
}

// Examination is the close-ups of a target and the report of the whole
// capture they were judged in.
type Examination struct {
	Closeups []Closeup
	// Matches counts the matching lines, beyond MaxCloseups too.
	Matches int
	Report  Report
}

// Examine reads the capture once, as Run does, and keeps the lines that
// match the target, decoded again for every problem.
func Examine(rd *replay.Reader, opts Options, target Target) (Examination, error) {
	in := New(opts)
	r, err := replay.NewRunner(in.replayOptions())
	if err != nil {
		return Examination{}, err
	}
	all := replay.Decoder{AllProblems: true, EventPath: opts.EventPath}
	var x Examination
	kept := 0
	for {
		l, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Examination{}, err
		}
		res := r.Step(l)
		if target.matches(l, res.Event, opts.EventPath) {
			x.Matches++
			if len(x.Closeups) < MaxCloseups && (len(x.Closeups) == 0 || kept+len(l.Data) <= maxCloseupBytes) {
				kept += len(l.Data)
				x.Closeups = append(x.Closeups, closeup(l, &res, &all))
			}
		}
		in.Observe(&res)
	}
	x.Report = in.Report(r.Summary(rd.Stats()))
	for i := range x.Closeups {
		c := &x.Closeups[i]
		for _, f := range x.Report.Findings {
			if f.Names(c.File, c.Line) {
				c.Findings = append(c.Findings, f)
			}
		}
	}
	return x, nil
}

// closeup copies what must outlive the line and decodes a malformed line
// again with every problem.
func closeup(l replay.Line, res *replay.Result, all *replay.Decoder) Closeup {
	c := Closeup{File: l.File, Line: l.Num, Raw: bytes.Clone(l.Data), Reason: res.Reason, Prev: res.Prev, Gap: res.Gap}
	if res.Event != nil {
		ev := *res.Event
		// The messages share the decoder's copy of the line, and no
		// close-up shows them.
		ev.Snapshot.Messages = nil
		c.Event = &ev
	}
	c.Err = res.Err
	if res.Err != nil && !l.TooLong {
		var ev replay.Event
		if err := all.Decode(l.Data, &ev); err != nil {
			c.Err = err
		}
	}
	return c
}

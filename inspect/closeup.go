package inspect

import (
	"bytes"
	"encoding/json"
	"slices"

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

func (t Target) matches(res *replay.Result, eventPath string) bool {
	if t.EventID == "" {
		return res.File == t.File && res.Line == t.Line
	}
	if res.Event != nil {
		return res.Event.EventID == t.EventID
	}
	return res.Raw != nil && rawEventID(res.Raw, eventPath) == t.EventID
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
	// EventIDs are the first distinct event ids of valid events, at most
	// MaxCloseups, to say what there is when nothing matched.
	EventIDs []string
	Report   Report
}

// Examine reads the capture once, as Run does, and keeps the lines that
// match the target, decoded again for every problem.
func Examine(rd *replay.Reader, opts Options, target Target) (Examination, error) {
	in := New(opts)
	ro := in.replayOptions()
	ro.KeepRaw = true
	all := replay.Decoder{AllProblems: true, EventPath: opts.EventPath}
	var x Examination
	kept := 0
	sum, err := replay.Run(rd, ro, func(res *replay.Result) error {
		if ev := res.Event; ev != nil && len(x.EventIDs) < MaxCloseups && !slices.Contains(x.EventIDs, ev.EventID) {
			x.EventIDs = append(x.EventIDs, ev.EventID)
		}
		if target.matches(res, opts.EventPath) {
			x.Matches++
			if len(x.Closeups) < MaxCloseups && (len(x.Closeups) == 0 || kept+len(res.Raw) <= maxCloseupBytes) {
				kept += len(res.Raw)
				x.Closeups = append(x.Closeups, closeup(res, &all))
			}
		}
		in.Observe(res)
		if opts.Each != nil {
			opts.Each(res)
		}
		return nil
	})
	if err != nil {
		return Examination{}, err
	}
	x.Report = in.Finish(sum)
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

// closeup keeps what must outlive the callback: the line's bytes, which
// the result only borrows, and the event without its messages, which
// share the decoder's copy of the line and which no close-up shows. A
// malformed line is decoded again with every problem.
func closeup(res *replay.Result, all *replay.Decoder) Closeup {
	c := Closeup{File: res.File, Line: res.Line, Raw: bytes.Clone(res.Raw), Err: res.Err,
		Reason: res.Reason, Prev: res.Prev, Gap: res.Gap}
	if res.Event != nil {
		ev := *res.Event
		ev.Snapshot.Messages = nil
		c.Event = &ev
	}
	if res.Err != nil && res.Raw != nil {
		var ev replay.Event
		if err := all.Decode(res.Raw, &ev); err != nil {
			c.Err = err
		}
	}
	return c
}

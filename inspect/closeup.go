package inspect

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/replay"
	"github.com/tidwall/gjson"
)

// MaxCloseups is how many matching lines Examine keeps; Matches still
// counts them all.
const MaxCloseups = 20

// maxCloseupBytes bounds the bytes of the lines Examine keeps, after the
// first: twenty matching lines of 64 MiB must not take 1.3 GB.
const maxCloseupBytes = 32 << 20

// Target names the lines to look at up close: line Line of file File
// (of HAR entry Entry; of every entry when Entry is 0), or every line
// whose eventId is EventID.
type Target struct {
	File    string
	Entry   int
	Line    int
	EventID string
}

func (t Target) matches(res *replay.Result, eventPath string) bool {
	if t.EventID == "" {
		return res.File == t.File && res.Line == t.Line && (t.Entry == 0 || model.EntryOf(res) == t.Entry)
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
	// Entry is the line's HAR entry, 0 for other formats.
	Entry int
	Line  int
	// Raw is the line as read, without its line ending; empty for a line
	// longer than the reader's maximum.
	Raw []byte
	// Event is the decoded event, nil when the line is malformed.
	Event *replay.Event
	// Err lists every problem of a malformed line.
	Err *replay.DecodeError
	// ErrorBody is what a malformed line that is a server error body
	// says (ErrorBodyOf); nil for any other line.
	ErrorBody *ErrorBody
	// Reason is the cursor's reason; Prev and Gap are as in replay.Result.
	Reason replay.Reason
	Prev   int64
	Gap    int64
	// Dropped is what the line did itself to the projection, when it was
	// accepted: the messages of the session's previous accepted
	// projection (of sequence DroppedFrom) that its own lacks, as the
	// model's rule decides (model.Removals). A finding that cites the line
	// tells of the whole capture; this is the line's own share.
	Dropped     []Drop
	DroppedFrom int64
	// Findings are the report's findings that cite this line.
	Findings []Finding
	// Ended are the turns that ended here and that the verdict counts as
	// unfinished (SessionOverview.Unfinished): a problem of every view's
	// list of lines (ProblemReason) that no finding cites. A turn never
	// accepted or unanswered is not one: its finding cites the line.
	Ended []TurnEnding
}

// Drop is a message an accepted line left out of the projection: its id,
// and the lineage that explains it (Explained, By), if one does.
type Drop struct {
	MessageID string
	Explained bool
	By        replay.Lineage
}

// dropsOf is the line's own drops, from the model's step.
func dropsOf(st *model.Step) []Drop {
	if !st.Accepted || st.Prev == nil || len(st.Removed) == 0 {
		return nil
	}
	ds := make([]Drop, len(st.Removed))
	for i, r := range st.Removed {
		ds[i] = Drop{MessageID: st.Prev.IDs.ID(r.Index), Explained: r.Explained, By: r.By}
	}
	return ds
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
		var c *Closeup
		if target.matches(res, opts.EventPath) {
			x.Matches++
			if len(x.Closeups) < MaxCloseups && (len(x.Closeups) == 0 || kept+len(res.Raw) <= maxCloseupBytes) {
				kept += len(res.Raw)
				x.Closeups = append(x.Closeups, closeup(res, &all, opts.EventPath))
				c = &x.Closeups[len(x.Closeups)-1]
			}
		}
		st := in.observe(res)
		if c != nil {
			c.Dropped = dropsOf(&st)
			if c.Dropped != nil {
				c.DroppedFrom = st.Prev.Sequence
			}
		}
		if opts.Each != nil {
			opts.Each(res)
		}
		return nil
	})
	if err != nil {
		return Examination{}, err
	}
	x.Report = in.Finish(sum)
	closeupAt := map[model.Position][]int{}
	for i := range x.Closeups {
		c := &x.Closeups[i]
		for _, f := range x.Report.Findings {
			if f.Cites(Position{File: c.File, Entry: c.Entry, Line: c.Line}) {
				c.Findings = append(c.Findings, f)
			}
		}
		at := model.Position{File: c.File, Entry: c.Entry, Line: c.Line}
		closeupAt[at] = append(closeupAt[at], i)
	}
	// One pass over the sessions, however many lines are shown close up.
	if len(closeupAt) > 0 {
		for j := range x.Report.Overview.Sessions {
			for _, e := range x.Report.Overview.Sessions[j].Unfinished() {
				for _, i := range closeupAt[e.At] {
					x.Closeups[i].Ended = append(x.Closeups[i].Ended, e)
				}
			}
		}
	}
	return x, nil
}

// closeup keeps what must outlive the callback: the line's bytes, which
// the result only borrows, and the event without its messages, which
// share the decoder's copy of the line and which no close-up shows. A
// malformed line is decoded again with every problem. eventPath is the
// run's (ErrorBodyOf).
func closeup(res *replay.Result, all *replay.Decoder, eventPath string) Closeup {
	c := Closeup{File: res.File, Entry: model.EntryOf(res), Line: res.Line, Raw: bytes.Clone(res.Raw), Err: res.Err,
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
	if b, ok := ErrorBodyOf(res, eventPath); ok {
		c.ErrorBody = &b
	}
	return c
}

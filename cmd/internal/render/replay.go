package render

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/jsonout"
	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
)

// writeResult writes the machine record of one result: the stable
// contract documented in the README. With redact, a malformed line's
// detail is its redacted form, and a server error body's message is
// hidden. eventPath is the run's --event-path (inspect.ErrorBodyOf).
// carry holds the origin fields written before, so that each is written
// only when it changes.
func writeResult(e *jsonout.Encoder, res *replay.Result, redact bool, eventPath string, carry *originCarry) {
	e.BeginObject()
	e.Key("file")
	e.Str(res.File)
	e.Key("line")
	e.Int(int64(res.Line))
	e.Key("verdict")
	e.Str(string(res.Verdict()))
	e.Key("reason")
	e.Str(string(res.Reason))
	if ev := res.Event; ev != nil {
		e.Key("event")
		e.Str(string(ev.Kind))
		e.Key("eventId")
		e.Str(ev.EventID)
		e.Key("sessionId")
		e.Str(ev.SessionID)
		e.Key("turnId")
		e.Str(ev.TurnID)
		e.Key("sequence")
		e.Int(ev.Sequence)
	}
	if res.Err != nil {
		e.Key("code")
		e.Str(string(res.Err.Code))
		e.Key("detail")
		e.Str(decodeDetail(res.Err, redact))
		if env := shownEnvelope(res.Err.Envelope, redact); env != nil {
			e.Key("envelope")
			writeEnvelope(e, env)
		}
		if b, ok := inspect.ErrorBodyOf(res, eventPath); ok {
			e.Key("errorBody")
			e.Value(newErrorBodyJSON(&b, redact))
		}
	}
	switch res.Reason {
	case replay.ReasonAdvanced:
		e.Key("gap")
		e.Int(res.Gap)
	case replay.ReasonStale, replay.ReasonDuplicate:
		// What the table's detail says: "sequence 3 < accepted 6".
		e.Key("acceptedSequence")
		e.Int(res.Prev)
	}
	carry.write(e, res.File, res.Origin, redact)
	e.EndObject()
}

// originCarry is what a stream of records last wrote, in the current
// file, of the origin fields that repeat from event to event: an SSE id
// and a HAR entry's URL. Each is written only when it differs from the
// event before it in the same file (an empty value included, once one
// was set), and a consumer carries it forward: a 1 MB URL then costs
// its bytes once per entry, not once per event.
type originCarry struct {
	file, lastEventID, url string
}

// noOrigin is the origin of an event whose format says nothing more.
var noOrigin replay.Origin

// write writes what the capture's format said of an event of file
// beyond its position, each key only when the format has it, the
// carried ones only when they change; with redact, the URL as ShownURL
// shows it.
func (c *originCarry) write(e *jsonout.Encoder, file string, o *replay.Origin, redact bool) {
	if file != c.file {
		*c = originCarry{file: file}
	}
	if o == nil {
		o = &noOrigin
	}
	if o.LoggedAt != "" {
		e.Key("loggedAt")
		e.Str(o.LoggedAt)
	}
	if o.LastEventID != c.lastEventID {
		c.lastEventID = o.LastEventID
		e.Key("lastEventId")
		e.Str(o.LastEventID)
	}
	if o.Entry > 0 {
		e.Key("entry")
		e.Int(int64(o.Entry))
	}
	// An event of no entry (bytes after the document) has no URL.
	if o.Entry > 0 && o.URL != c.url {
		c.url = o.URL
		e.Key("url")
		e.Str(ShownURL(o.URL, redact))
	}
	if o.Request > 0 {
		e.Key("request")
		e.Int(int64(o.Request))
		if o.Sent {
			e.Key("sent")
			e.Bool(true)
		}
		if o.Status > 0 {
			e.Key("httpStatus")
			e.Int(int64(o.Status))
		}
		e.Key("receivedAt")
		e.Str(o.ReceivedAt)
	}
}

// writeEnvelope writes the readable envelope fields of a malformed line,
// each only when it was read: unvalidated, so never under the contract's
// own keys.
func writeEnvelope(e *jsonout.Encoder, env *replay.Envelope) {
	e.BeginObject()
	for _, f := range []struct{ key, val string }{
		{"event", env.Event}, {"eventId", env.EventID}, {"sessionId", env.SessionID}, {"turnId", env.TurnID},
	} {
		if f.val != "" {
			e.Key(f.key)
			e.Str(f.val)
		}
	}
	if env.HasSequence {
		e.Key("sequence")
		e.Int(env.Sequence)
	}
	e.EndObject()
}

// JSONEvents writes replay results as JSON Lines, or as one document
// {"events": [...], "summary": {...}} whose events are written as they
// come.
type JSONEvents struct {
	jsonout.RecordStream
	redact    bool
	eventPath string
	carry     originCarry
}

// NewJSONEvents writes replay results to out as JSON Lines (format
// "jsonl") or as one document; eventPath is the run's --event-path.
func NewJSONEvents(out io.Writer, format string, redact bool, eventPath string) *JSONEvents {
	return &JSONEvents{RecordStream: jsonout.NewRecordStream(out, format, "events"), redact: redact, eventPath: eventPath}
}

func (w *JSONEvents) Event(res *replay.Result) error {
	writeResult(w.Enc, res, w.redact, w.eventPath, &w.carry)
	return w.Done()
}

func (w *JSONEvents) Summary(sum replay.Summary) error {
	if w.Lines {
		return nil
	}
	w.Enc.EndArray()
	// The summary's sessions go one at a time, as inspect's do.
	w.Enc.Key("summary")
	w.Enc.BeginObject()
	if err := w.Enc.Fields(summaryJSON(sum)); err != nil {
		return err
	}
	w.Enc.Key("sessions")
	w.Enc.BeginArray()
	for _, ss := range sum.Sessions {
		if err := w.Enc.Value(sessionToSummaryJSON(ss)); err != nil {
			return err
		}
		if err := w.Enc.Flush(); err != nil {
			return err
		}
	}
	w.Enc.EndArray()
	w.Enc.EndObject()
	w.Enc.EndObject()
	return w.Enc.End()
}

type finalJSON struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Entry    int    `json:"entry,omitempty"`
	Sequence int64  `json:"sequence"`
	TurnID   string `json:"turnId"`
	Status   string `json:"status"`
	Messages int    `json:"messages"`
}

type sessionJSON struct {
	SessionID string         `json:"sessionId"`
	Events    int            `json:"events"`
	Reasons   map[string]int `json:"reasons"`
	Final     *finalJSON     `json:"final"`
}

// InputJSON opens replay's summary and inspect's overview: what was read
// and what the cursor made of it.
type InputJSON struct {
	Files int `json:"files"`
	// Formats are the formats the captures were read in (--format).
	Formats []string `json:"formats"`
	// Mixed lists the captures --format auto read partly in another way:
	// framing lines in front of NDJSON events, or NDJSON events amid
	// another format.
	Mixed []mixedJSON `json:"mixed"`
	Bytes int64       `json:"bytes"`
	Lines int         `json:"lines"`
	Blank int         `json:"blank"`
	// Context counts the context records of record captures: framing.
	Context  int `json:"context,omitempty"`
	Events   int `json:"events"`
	Accepted int `json:"accepted"`
	Inert    int `json:"inert"`
	// Complete is false when a capture stopped early (Damage is the
	// first); TooLong counts lines over --max-line, never decoded.
	Complete bool        `json:"complete"`
	Damage   *damageJSON `json:"damage"`
	TooLong  int         `json:"tooLong"`
	// Window is the --lines, --since and --until the run kept, when it
	// left out any event: the counts are of it alone. Absent otherwise.
	Window *windowJSON `json:"window,omitempty"`
}

type windowJSON struct {
	Lines   []lineRangeJSON `json:"lines"`
	Since   *string         `json:"since"`
	Until   *string         `json:"until"`
	LeftOut int             `json:"leftOut"`
}

type lineRangeJSON struct {
	First int `json:"first"`
	Last  int `json:"last"`
}

func newWindowJSON(in replay.Stats) *windowJSON {
	w := in.Window
	if w == nil || in.LeftOut == 0 {
		return nil
	}
	j := &windowJSON{Lines: []lineRangeJSON{}, LeftOut: in.LeftOut}
	for _, r := range w.Lines {
		j.Lines = append(j.Lines, lineRangeJSON{r.First, r.Last})
	}
	if s := windowBound(w.Since, w.SinceOffset); s != "" {
		j.Since = &s
	}
	if s := windowBound(w.Until, w.UntilOffset); s != "" {
		j.Until = &s
	}
	return j
}

// windowBound is --since or --until as the window keeps it: an instant
// (2026-07-11T03:00:00Z), or an offset from the capture's start (+5m0s);
// "" for none.
func windowBound(at time.Time, off *time.Duration) string {
	switch {
	case off != nil:
		return "+" + off.String()
	case !at.IsZero():
		return at.UTC().Format(time.RFC3339Nano)
	}
	return ""
}

// WindowNote says what a run's window (--lines, --since, --until) kept,
// and that the counts leave out the rest: "lines 3-6; the 10 events
// outside it are not counted"; "" without a window, or one that left
// nothing out.
func WindowNote(in replay.Stats) string {
	if in.Window == nil || in.LeftOut == 0 {
		return ""
	}
	if in.LeftOut == 1 {
		return keptWords(in.Window) + "; the 1 event outside it is not counted"
	}
	return fmt.Sprintf("%s; the %s outside it are not counted", keptWords(in.Window), text.Plural(in.LeftOut, "event"))
}

// keptWords says, in a human summary, what the window kept: "lines
// 3-6, since +5m0s".
func keptWords(w *replay.Window) string {
	var parts []string
	if len(w.Lines) > 0 {
		rs := make([]string, len(w.Lines))
		for i, r := range w.Lines {
			switch {
			case r.Last == 0:
				rs[i] = fmt.Sprintf("%d-", r.First)
			case r.Last == r.First:
				rs[i] = strconv.Itoa(r.First)
			default:
				rs[i] = fmt.Sprintf("%d-%d", r.First, r.Last)
			}
		}
		parts = append(parts, "lines "+strings.Join(rs, ","))
	}
	if s := windowBound(w.Since, w.SinceOffset); s != "" {
		parts = append(parts, "since "+s)
	}
	if s := windowBound(w.Until, w.UntilOffset); s != "" {
		parts = append(parts, "until "+s)
	}
	return strings.Join(parts, ", ")
}

type mixedJSON struct {
	File   string     `json:"file"`
	Format string     `json:"format"`
	Spans  []spanJSON `json:"spans"`
	More   int        `json:"more"`
}

// spanJSON is a run of lines read as NDJSON events (as "ndjson") or as
// another format's framing (as that format, what says which framing).
type spanJSON struct {
	First int    `json:"first"`
	Last  int    `json:"last"`
	Lines int    `json:"lines"`
	As    string `json:"as"`
	What  string `json:"what,omitempty"`
}

type damageJSON struct {
	File    string `json:"file"`
	Format  string `json:"format"`
	Offset  int64  `json:"offset"`
	Decoded int64  `json:"decoded"`
	Error   string `json:"error"`
}

// NewInputJSON is the JSON form of what was read.
func NewInputJSON(in replay.Stats, c replay.Counts) InputJSON {
	acc := c.Accepted()
	j := InputJSON{Files: in.Files, Formats: []string{}, Mixed: []mixedJSON{}, Bytes: in.Bytes, Lines: in.Lines, Blank: in.Blank, Context: in.Context,
		Events: c.Events, Accepted: acc, Inert: c.Events - acc, Complete: in.Complete(), TooLong: in.TooLong, Window: newWindowJSON(in)}
	for _, f := range in.Formats {
		j.Formats = append(j.Formats, string(f))
	}
	for _, m := range in.Mixed {
		mj := mixedJSON{File: m.File, Format: string(m.Format), Spans: []spanJSON{}, More: m.More}
		for _, s := range m.Spans {
			mj.Spans = append(mj.Spans, spanJSON{First: s.First, Last: s.Last, Lines: s.Lines, As: string(s.As), What: s.What})
		}
		j.Mixed = append(j.Mixed, mj)
	}
	if d := in.Damage; d != nil {
		j.Damage = &damageJSON{File: d.Name, Format: d.Format, Offset: d.Offset, Decoded: d.Decoded, Error: d.Error()}
	}
	return j
}

func newFinalJSON(f *replay.Final) *finalJSON {
	if f == nil {
		return nil
	}
	return &finalJSON{File: f.File, Line: f.Line, Entry: int(f.Entry), Sequence: f.Sequence, TurnID: f.TurnID, Status: string(f.Status), Messages: int(f.MessageCount)}
}

type summaryBody struct {
	InputJSON
	Reasons       map[string]int `json:"reasons"`
	Codes         map[string]int `json:"codes"`
	PinnedSession *string        `json:"pinnedSession"`
	PerSession    bool           `json:"perSession"`
}

// ReasonMap keys counts by reason name, for JSON.
func ReasonMap(m map[replay.Reason]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		out[string(k)] = v
	}
	return out
}

func sessionToSummaryJSON(ss *replay.SessionStats) sessionJSON {
	return sessionJSON{SessionID: ss.SessionID, Events: ss.Events, Reasons: ReasonMap(ss.Reasons.Map()), Final: newFinalJSON(ss.Final)}
}

// summaryJSON is the summary but its sessions, which jsonEvents writes
// after it one at a time.
func summaryJSON(sum replay.Summary) summaryBody {
	s := summaryBody{
		InputJSON: NewInputJSON(sum.Input, sum.Counts),
		Reasons:   ReasonMap(sum.Counts.Reasons), Codes: map[string]int{},
		PerSession: sum.PerSession,
	}
	for k, v := range sum.Counts.Codes {
		s.Codes[string(k)] = v
	}
	if sum.Pinned != "" {
		p := sum.Pinned
		s.PinnedSession = &p
	}
	return s
}

// Table streams one row per event, so a live capture shows rows as
// they arrive. The columns are sized from the first maxHeldRows rows (all
// of them when there are fewer) or, when an input is live (standard
// input, a pipe), from the rows that arrive before the run first waits
// for input. On a terminal with a width the table fits it and every
// later id or detail is shortened to its column, while a later, wider
// number (line, sequence) widens its column from that row on and the
// detail gives way (text.Table); with width 0 (-o wide, or not a
// terminal) a later, longer value pushes the next ones, so that every
// row is whole for grep and cut, and off a terminal the columns are at
// least the fixed widths they always had. A line number is never
// shortened, and its column is wide enough for the largest the input can
// have when its size is known.
type Table struct {
	out       *bufio.Writer
	pal       iostreams.Palette
	withFile  bool
	redact    bool
	eventPath string
	// width is the terminal's width, 0 for whole values (-o wide, or
	// not a terminal); sized is set on a terminal.
	width int
	sized bool
	live  bool
	// lineDigits is the number of digits of the largest line number the
	// input can have, 0 when its size is not known.
	lineDigits int
	table      *text.Table
	held       []heldRow
	err        error // a failed write while the run was idle
}

type heldRow struct {
	cells  []string
	colour func(string) string
}

// maxHeldRows bounds the rows held to size the columns: a screenful or
// more, and a small memory.
const maxHeldRows = 200

// NewTable writes replay's table to out. size is the total size
// of the input in bytes, or -1 when it is not known (standard input): a
// capture has no more lines than bytes, so its digits bound the line
// numbers. (A compressed capture may have more lines than its size says;
// a longer number then pushes the next columns, whole.)
func NewTable(out *bufio.Writer, pal iostreams.Palette, o TableOptions) *Table {
	w := &Table{out: out, pal: pal, withFile: o.WithFile, redact: o.Redact, eventPath: o.EventPath, width: o.Width, sized: o.Sized, live: o.Live}
	if o.Size >= 0 {
		w.lineDigits = len(strconv.FormatInt(max(o.Size, 1), 10))
	}
	return w
}

// TableOptions says how replay's table is laid out.
type TableOptions struct {
	// WithFile adds the FILE column (several captures).
	WithFile bool
	// Redact hides every text that came from a message, tool call,
	// metadata or submit input.
	Redact bool
	// EventPath is the run's --event-path (inspect.ErrorBodyOf).
	EventPath string
	// Width is the terminal's width, 0 for whole values (-o wide, or not
	// a terminal); Sized is set on a terminal.
	Width int
	Sized bool
	// Live says the input may wait (standard input, a pipe): columns are
	// sized from the rows that arrive before it first does.
	Live bool
	// Size is the total size of the input in bytes, -1 when unknown.
	Size int64
}

// replayColumns are the columns of replay's table; fixedWidths are their
// least widths when output is not a terminal.
var (
	replayColumns = []text.Column{
		{Name: "LINE", Right: true, Fit: text.FitPosition}, {Name: "EVENT ID", Fit: text.FitMiddle},
		{Name: "KIND", Drop: 1}, {Name: "SESSION", Fit: text.FitMiddle}, {Name: "TURN", Fit: text.FitMiddle},
		{Name: "SEQ", Right: true},
		// The reason names the verdict, and its colour shows it.
		{Name: "VERDICT", Drop: 2}, {Name: "REASON"},
		{Name: "DETAIL", Fit: text.FitTail},
	}
	fixedWidths = []int{6, 18, 10, 16, 14, 6, 8, 15, 0}
)

// ShortKind names an event kind in a table cell.
func ShortKind(k replay.Kind) string {
	if i := strings.LastIndexByte(string(k), '.'); i >= 0 {
		return string(k)[i+1:]
	}
	return string(k)
}

// Idle is called when the run waits for input: with a live input, the
// rows held so far size the columns, so a live stream is never held back.
// (Files make the run wait too, between batches; their rows are sized
// from the same rows whatever the timing.)
func (w *Table) Idle() {
	if w.live && len(w.held) > 0 && w.err == nil {
		w.err = w.settle()
	}
}

// columnWidths sizes the columns from the held rows, and LINE for the
// largest line number the input can have.
func (w *Table) columnWidths() []int {
	cells := make([][]string, len(w.held), len(w.held)+1)
	file := ""
	for i, r := range w.held {
		cells[i] = r.cells
		if at := strings.LastIndexByte(r.cells[0], ':'); at >= 0 && text.Width(r.cells[0][:at+1]) > text.Width(file) {
			file = r.cells[0][:at+1]
		}
	}
	if w.lineDigits > 0 {
		cells = append(cells, []string{file + strings.Repeat("9", w.lineDigits)})
	}
	if w.sized {
		return text.FitWidths(replayColumns, cells, w.width)
	}
	widths := text.NaturalWidths(replayColumns, cells)
	for i := range widths {
		widths[i] = max(widths[i], fixedWidths[i])
	}
	return widths
}

// settle decides the column widths, writes the header and the held rows.
func (w *Table) settle() error {
	if w.table != nil {
		return nil
	}
	t, err := text.NewTable(w.out, replayColumns, w.columnWidths(), w.width > 0, w.pal.Bold)
	if err != nil {
		return err
	}
	w.table = t
	held := w.held
	w.held = nil
	for _, r := range held {
		if err := w.write(r); err != nil {
			return err
		}
	}
	return nil
}

func (w *Table) write(r heldRow) error {
	return w.table.Row(r.cells, func(i int, s string) string {
		if replayColumns[i].Name == "VERDICT" || replayColumns[i].Name == "REASON" {
			return r.colour(s)
		}
		return s
	})
}

func (w *Table) Event(res *replay.Result) error {
	pos := strconv.Itoa(res.Line)
	if w.withFile {
		pos = termsafe.String(res.File) + ":" + pos
	}
	detail := Detail(res, w.redact, w.eventPath)
	cells := []string{pos, "-", "-", "-", "-", "-", string(res.Verdict()), string(res.Reason), detail}
	if ev := res.Event; ev != nil {
		cells[1], cells[2], cells[3], cells[4] = ev.EventID, ShortKind(ev.Kind), ev.SessionID, ev.TurnID
		cells[5] = strconv.FormatInt(ev.Sequence, 10)
	} else if res.Err != nil {
		envelopeCells(cells, shownEnvelope(res.Err.Envelope, w.redact))
	}
	r := heldRow{cells, reasonColour(w.pal, res.Reason)}
	if w.err != nil {
		return w.err
	}
	if w.table != nil {
		return w.write(r)
	}
	w.held = append(w.held, r)
	if len(w.held) >= maxHeldRows {
		return w.settle()
	}
	return nil
}

// OriginDetail says in the table what the capture's format said of an
// event beyond its line: the HAR entry, the log's timestamp, the SSE id.
func OriginDetail(o *replay.Origin) string {
	if o == nil {
		return ""
	}
	var parts []string
	if o.Entry > 0 {
		parts = append(parts, "entry "+strconv.Itoa(o.Entry))
	}
	if o.LoggedAt != "" {
		parts = append(parts, "logged "+termsafe.String(o.LoggedAt))
	}
	if o.LastEventID != "" {
		// An id may be as long as a line, and stays in effect for every
		// event after it: the table shows its start.
		parts = append(parts, "id "+termsafe.Line(o.LastEventID, maxEnvelopeCell))
	}
	if o.Request > 0 {
		what := "request " + strconv.Itoa(o.Request)
		if !o.Sent && o.Status > 0 {
			what += " (" + strconv.Itoa(o.Status) + ")"
		}
		parts = append(parts, what+" at "+termsafe.Line(o.ReceivedAt, maxEnvelopeCell))
	}
	return strings.Join(parts, ", ")
}

// envelopeCells fills a malformed row's envelope cells with what its
// envelope says (EnvelopeIDs).
func envelopeCells(cells []string, env *replay.Envelope) {
	for i, v := range EnvelopeIDs(env, false) {
		if v != "" {
			cells[1+i] = v
		}
	}
}

// EnvelopeIDs is what a malformed line's envelope says of its event, as
// every table shows it: event id, kind, session, turn and sequence,
// unvalidated, so made safe for the terminal and cut short; "" where it
// says nothing. With redact, only the ids that are safe identifiers and
// a known kind (shownEnvelope).
func EnvelopeIDs(env *replay.Envelope, redact bool) (ids [5]string) {
	if env = shownEnvelope(env, redact); env == nil {
		return ids
	}
	for i, v := range []string{env.EventID, ShortKind(replay.Kind(env.Event)), env.SessionID, env.TurnID} {
		if v != "" {
			ids[i] = termsafe.Line(v, maxEnvelopeCell)
		}
	}
	if env.HasSequence {
		ids[4] = strconv.FormatInt(env.Sequence, 10)
	}
	return ids
}

// maxEnvelopeCell is the most runes of an unvalidated envelope field a
// table cell shows: a valid id is much shorter.
const maxEnvelopeCell = 40

// reasonColour colours a reason by what it means: accepted green,
// ordinary inert lines (submits and diagnostics) dim, problems yellow,
// and lines that do not decode red.
func reasonColour(pal iostreams.Palette, r replay.Reason) func(string) string {
	switch {
	case r == replay.ReasonMalformed:
		return pal.Red
	case r == replay.ReasonNonSnapshot:
		return pal.Dim
	case r.Verdict() == replay.Accepted:
		return pal.Green
	}
	return pal.Yellow
}

// Detail is ResultDetail followed by what the capture's format said of
// the event (an SSE id, a HAR entry, when a record capture received it),
// as every view's row gives it.
func Detail(res *replay.Result, redact bool, eventPath string) string {
	return JoinDetail(ResultDetail(res, redact, eventPath), OriginDetail(res.Origin))
}

// JoinDetail joins a verdict's detail and an origin's with " · ", either
// of them possibly empty.
func JoinDetail(detail, origin string) string {
	switch {
	case origin == "":
		return detail
	case detail == "":
		return origin
	}
	return detail + " · " + origin
}

// ResultDetail explains a verdict in a few words for the table: of a
// malformed line, its code and first problem, or what the server's error
// body it is says (ErrorBodyWords), then the code. eventPath is the run's --event-path
// (inspect.ErrorBodyOf).
func ResultDetail(res *replay.Result, redact bool, eventPath string) string {
	switch res.Reason {
	case replay.ReasonMalformed:
		if b, ok := inspect.ErrorBodyOf(res, eventPath); ok {
			return ErrorBodyWords(b, redact) + " (" + string(res.Err.Code) + ")"
		}
		return string(res.Err.Code) + ": " + termsafe.String(decodeDetail(res.Err, redact))
	case replay.ReasonInitial:
		return "reconnect state"
	case replay.ReasonAdvanced:
		if res.Gap > 0 {
			return fmt.Sprintf("from %d, gap %d", res.Prev, res.Gap)
		}
		return fmt.Sprintf("from %d", res.Prev)
	case replay.ReasonDuplicate:
		return fmt.Sprintf("sequence %d already accepted", res.Event.Sequence)
	case replay.ReasonStale:
		return fmt.Sprintf("sequence %d < accepted %d", res.Event.Sequence, res.Prev)
	}
	return ""
}

func (w *Table) Summary(sum replay.Summary) error {
	if w.err != nil {
		return w.err
	}
	if len(w.held) > 0 {
		if err := w.settle(); err != nil {
			return err
		}
	}
	if w.table != nil {
		if err := w.table.Close(); err != nil {
			return err
		}
		w.out.WriteByte('\n')
	}
	accepted := sum.Counts.Accepted()
	fmt.Fprintf(w.out, "%s in %s (%s blank) from %s%s: %s, %s\n",
		text.Plural(sum.Counts.Events, "event"), text.Plural(sum.Input.Lines, "line"), strconv.Itoa(sum.Input.Blank),
		text.Plural(sum.Input.Files, "file"), formatNote(sum.Input), w.pal.Green(fmt.Sprintf("%d accepted", accepted)),
		w.pal.Yellow(fmt.Sprintf("%d inert", sum.Counts.Events-accepted)))
	writeList(w.out, "reasons", reasonList(sum.Counts.Reasons, replay.Reasons))
	writeList(w.out, "malformed", codeList(sum.Counts.Codes))
	writeInputWarnings(w.out, w.pal, sum.Input)
	switch {
	case sum.Pinned != "":
		fmt.Fprintf(w.out, "trusted session: %s (pinned)\n", termsafe.String(sum.Pinned))
	case sum.PerSession:
		fmt.Fprintf(w.out, "%s with snapshots: one independent cursor per session (pin one with --session)\n",
			text.Plural(countCursors(sum), "session"))
	}
	if len(sum.Sessions) == 0 {
		return nil
	}
	w.out.WriteByte('\n')
	// A row per session, made twice rather than held: a capture of many
	// sessions would otherwise hold them all at once.
	return text.RenderEach(w.out, w.pal.Bold, w.width, sessionColumns, len(sum.Sessions), func(i int, row []string) []string {
		s := sum.Sessions[i]
		acc := s.Accepted()
		row = append(row[:0], termsafe.String(s.SessionID), strconv.Itoa(s.Events), strconv.Itoa(acc), strconv.Itoa(s.Events-acc), "-", "-", "-", "-")
		if f := s.Final; f != nil {
			row[4], row[5], row[6], row[7] = strconv.FormatInt(f.Sequence, 10), string(f.Status), strconv.Itoa(int(f.MessageCount)), termsafe.String(f.TurnID)
		}
		return row
	})
}

var sessionColumns = []text.Column{
	{Name: "SESSION", Fit: text.FitMiddle}, {Name: "EVENTS"}, {Name: "ACCEPTED"}, {Name: "INERT"},
	{Name: "FINAL SEQ"}, {Name: "STATUS"}, {Name: "MESSAGES"}, {Name: "TURN", Fit: text.FitMiddle},
}

// formatNote names, for a human summary, the formats the captures were
// read in, unless they were all plain NDJSON: " (sse)", and the context
// records of a record capture, which are framing, not events: " (record,
// 37 context records)".
func formatNote(in replay.Stats) string {
	if len(in.Formats) == 0 || len(in.Formats) == 1 && in.Formats[0] == replay.FormatNDJSON {
		return ""
	}
	names := make([]string, len(in.Formats))
	for i, f := range in.Formats {
		names[i] = string(f)
	}
	if in.Context > 0 {
		names = append(names, text.Plural(in.Context, "context record"))
	}
	return " (" + strings.Join(names, ", ") + ")"
}

// writeInputWarnings says, in a human summary, when the verdicts may not
// be a real client's: lines too long to decode, lines read in another
// format than the rest of their capture, or input cut short.
//
// Every human summary has them: replay's and inspect's under their counts,
// diff's under its own, and lineage's under its tree.
func writeInputWarnings(out io.Writer, pal iostreams.Palette, in replay.Stats) {
	if w := WindowNote(in); w != "" {
		fmt.Fprintf(out, "window: %s\n", w)
	}
	for _, m := range in.Mixed {
		fmt.Fprintf(out, "%s %s\n", pal.Yellow("warning:"), termsafe.String(m.Error()))
	}
	if in.TooLong > 0 {
		fmt.Fprintf(out, "%s %s over --max-line not decoded (%s): verdicts after them may differ from a real client's\n",
			pal.Yellow("warning:"), text.Plural(in.TooLong, "line"), replay.CodeLineTooLong)
	}
	if d := in.Damage; d != nil {
		more := ""
		if in.Damaged > 1 {
			more = fmt.Sprintf(" (and %s)", text.Plural(in.Damaged-1, "more damaged capture"))
		}
		fmt.Fprintf(out, "%s %s%s; every line before it is above\n", pal.Red("incomplete input:"), termsafe.String(d.Error()), more)
	}
}

func countCursors(sum replay.Summary) int {
	n := 0
	for _, s := range sum.Sessions {
		if s.Reasons.Of(replay.ReasonInitial) > 0 {
			n++
		}
	}
	return n
}

package render

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/jsonout"
	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/inspect/lineage"
	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
)

// The JSON report: the stable contract documented in the README.
type inspectJSON struct {
	Overview overviewJSON  `json:"overview"`
	Findings []findingJSON `json:"findings"`
}

// overviewJSON is the overview but its sessions, which writeReportJSON
// writes after it one at a time.
type overviewJSON struct {
	InputJSON
	Kinds         map[string]int `json:"kinds"`
	Reasons       map[string]int `json:"reasons"`
	Malformed     map[string]int `json:"malformed"`
	Refused       map[string]int `json:"refused"`
	PinnedSession *string        `json:"pinnedSession"`
}

type sessionOverviewJSON struct {
	SessionID string         `json:"sessionId"`
	Verdict   verdictJSON    `json:"verdict"`
	Events    int            `json:"events"`
	Accepted  int            `json:"accepted"`
	Inert     int            `json:"inert"`
	Reasons   map[string]int `json:"reasons"`
	Turns     int            `json:"turns"`
	Snapshots int            `json:"snapshots"`
	Sequences *struct {
		Min int64 `json:"min"`
		Max int64 `json:"max"`
	} `json:"sequences"`
	EmittedAt *struct {
		First string `json:"first"`
		Last  string `json:"last"`
	} `json:"emittedAt"`
	Final   *finalJSON               `json:"final"`
	Lineage map[replay.Operation]int `json:"lineage"`
	// LineageTurns counts turns, the unit of lineage's own counts;
	// Lineage keeps its meaning, snapshots.
	LineageTurns map[replay.Operation]int `json:"lineageTurns"`
	// EarlierMessages is SessionOverview.Earlier.
	EarlierMessages int `json:"earlierMessages"`
	// TurnOutcomes is how each turn ended for the client.
	TurnOutcomes []turnOutcomeJSON `json:"turnOutcomes"`
}

// turnOutcomeJSON is one turn's outcome, with the keys lineage's turns
// have (outcomeToJSON).
type turnOutcomeJSON struct {
	TurnID         string              `json:"turnId"`
	Outcome        string              `json:"outcome"`
	OutcomeCode    *string             `json:"outcomeCode"`
	OutcomeFile    *string             `json:"outcomeFile"`
	OutcomeLine    *int                `json:"outcomeLine"`
	OutcomeEntry   int                 `json:"outcomeEntry,omitempty"`
	CompletedLater *completedLaterJSON `json:"completedLater"`
	CutByWindow    bool                `json:"cutByWindow,omitempty"`
	PastWindow     *positionJSON       `json:"pastWindow,omitempty"`
}

type findingJSON struct {
	ID            string         `json:"id"`
	Severity      string         `json:"severity"`
	SessionID     string         `json:"sessionId"`
	Message       string         `json:"message"`
	Positions     []positionJSON `json:"positions"`
	PositionCount int            `json:"positionCount"`
}

// write writes the finding as e.Value(f) does, field by field: a finding
// of a large capture lists thousands of positions, which encoding/json
// and the layout of its output took most of inspect -o json's writing
// for. TestFindingWrite holds the two to the same bytes.
func (f findingJSON) write(e *jsonout.Encoder) {
	e.BeginObject()
	e.Key("id")
	e.Str(f.ID)
	e.Key("severity")
	e.Str(f.Severity)
	e.Key("sessionId")
	e.Str(f.SessionID)
	e.Key("message")
	e.Str(f.Message)
	e.Key("positions")
	if f.Positions == nil {
		e.Null()
	} else {
		e.BeginArray()
		for _, p := range f.Positions {
			e.BeginObject()
			writePlace(e, p.File, p.Entry, p.Line)
			e.EndObject()
		}
		e.EndArray()
	}
	e.Key("positionCount")
	e.Int(int64(f.PositionCount))
	e.EndObject()
}

// writePlace writes the members of a line's place as positionJSON
// marshals them: file, entry (left out when 0) and line.
func writePlace(e *jsonout.Encoder, file string, entry, line int) {
	e.Key("file")
	e.Str(file)
	if entry != 0 {
		e.Key("entry")
		e.Int(int64(entry))
	}
	e.Key("line")
	e.Int(int64(line))
}

// positionJSON is one line of a capture; entry is its HAR entry, left
// out for other formats, as in replay's records.
type positionJSON struct {
	File  string `json:"file"`
	Entry int    `json:"entry,omitempty"`
	Line  int    `json:"line"`
}

func reportJSON(rep inspect.Report) inspectJSON {
	ov := rep.Overview
	j := inspectJSON{Findings: []findingJSON{}, Overview: overviewJSON{
		InputJSON: NewInputJSON(ov.Input, ov.Counts),
		Kinds:     map[string]int{}, Reasons: ReasonMap(ov.Counts.Reasons), Malformed: map[string]int{},
		Refused: ov.Refused,
	}}
	for k, v := range ov.Counts.Kinds {
		j.Overview.Kinds[string(k)] = v
	}
	for k, v := range ov.Counts.Codes {
		j.Overview.Malformed[string(k)] = v
	}
	if ov.Pinned != "" {
		p := ov.Pinned
		j.Overview.PinnedSession = &p
	}
	for _, f := range rep.Findings {
		j.Findings = append(j.Findings, findingToJSON(f))
	}
	return j
}

func sessionToJSON(s inspect.SessionOverview) sessionOverviewJSON {
	sj := sessionOverviewJSON{SessionID: s.SessionID, Verdict: verdictToJSON(s.Verdict()), Events: s.Events, Accepted: s.Accepted(),
		Inert: s.Events - s.Accepted(), Reasons: ReasonMap(s.Reasons.Map()), Turns: s.Turns,
		Snapshots: s.Snapshots, Lineage: s.Lineage.Map(), LineageTurns: s.LineageTurns.Map(), EarlierMessages: s.Earlier, Final: newFinalJSON(s.Final)}
	sj.TurnOutcomes = make([]turnOutcomeJSON, len(s.Endings()))
	for i, o := range s.Endings() {
		tj := &sj.TurnOutcomes[i]
		tj.TurnID = o.TurnID
		tj.Outcome, tj.OutcomeCode, tj.OutcomeFile, tj.OutcomeLine, tj.OutcomeEntry, tj.CompletedLater = outcomeToJSON(o.Ending, o.Code, o.At, o.Later)
		tj.CutByWindow, tj.PastWindow = windowToJSON(o.Window)
	}
	if r := s.Sequences; r != nil {
		sj.Sequences = &struct {
			Min int64 `json:"min"`
			Max int64 `json:"max"`
		}{r.Min, r.Max}
	}
	if r := s.EmittedAt; r != nil {
		sj.EmittedAt = &struct {
			First string `json:"first"`
			Last  string `json:"last"`
		}{r.First, r.Last}
	}
	return sj
}

func findingToJSON(f inspect.Finding) findingJSON {
	fj := findingJSON{ID: f.ID, Severity: string(f.Severity), SessionID: f.SessionID, Message: f.Message,
		PositionCount: f.PositionCount, Positions: []positionJSON{}}
	for _, p := range f.Positions {
		fj.Positions = append(fj.Positions, positionJSON{File: p.File, Entry: p.Entry, Line: p.Line})
	}
	return fj
}

// WriteInspectJSON writes the report as one document, the sessions one at
// a time: encoding the whole report at once held it twice more
// (encoding/json's buffer and its indented copy), 1.1 GB for 200,000
// sessions.
func WriteInspectJSON(out io.Writer, rep inspect.Report) error {
	j := reportJSON(rep)
	e := jsonout.NewEncoder(out, jsonout.Document)
	e.BeginObject()
	e.Key("overview")
	e.BeginObject()
	if err := e.Fields(j.Overview); err != nil {
		return err
	}
	e.Key("sessions")
	e.BeginArray()
	for _, s := range rep.Overview.Sessions {
		if err := e.Value(sessionToJSON(s)); err != nil {
			return err
		}
		if err := e.Flush(); err != nil {
			return err
		}
	}
	e.EndArray()
	e.EndObject()
	// One finding at a time, as the sessions: marshalled whole, the
	// findings of a large capture (1.4 MB of them) took a buffer as large,
	// faulted in page by page, on the run's one sequential stretch.
	e.Key("findings")
	e.BeginArray()
	for _, f := range j.Findings {
		f.write(e)
		if err := e.Flush(); err != nil {
			return err
		}
	}
	e.EndArray()
	e.EndObject()
	return e.End()
}

// WriteFindingsJSONL writes the report's findings, one record per line,
// as in the document's findings.
func WriteFindingsJSONL(out io.Writer, rep inspect.Report) error {
	e := jsonout.NewEncoder(out, jsonout.Lines)
	for _, f := range rep.Findings {
		findingToJSON(f).write(e)
		if err := e.End(); err != nil {
			return err
		}
	}
	return nil
}

// WriteInspectText writes the overview, one block per session, then the
// findings worst first.
// width is the terminal's, 0 for none: it cuts the lists of positions,
// which JSON gives whole.
func WriteInspectText(out *bufio.Writer, pal iostreams.Palette, rep inspect.Report, width int) error {
	fmt.Fprintf(out, "verdict: %s\n", VerdictWords(rep.Verdict()))
	writeFindingsHead(out, pal, rep.Findings, width)
	out.WriteByte('\n')
	ov := rep.Overview
	fmt.Fprintf(out, "%s%s, %s, %s (%d blank): %s, %s, %s\n",
		text.Plural(ov.Input.Files, "file"), formatNote(ov.Input), text.Plural(int(ov.Input.Bytes), "byte"), text.Plural(ov.Input.Lines, "line"), ov.Input.Blank,
		text.Plural(ov.Counts.Events, "event"), pal.Green(fmt.Sprintf("%d accepted", ov.Accepted())),
		pal.Yellow(fmt.Sprintf("%d inert", ov.Counts.Events-ov.Accepted())))
	var kinds []string
	for _, k := range []replay.Kind{replay.KindSnapshot, replay.KindSubmit, replay.KindDiagnostic} {
		if n := ov.Counts.Kinds[k]; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%s %d", ShortKind(k), n))
		}
	}
	writeList(out, "kinds", kinds)
	writeList(out, "reasons", reasonList(ov.Counts.Reasons, replay.Reasons))
	writeList(out, "malformed", codeList(ov.Counts.Codes))
	writeList(out, "refused", refusedList(ov.Refused))
	writeInputWarnings(out, pal, ov.Input)
	if ov.Pinned != "" {
		fmt.Fprintf(out, "trusted session: %s (pinned)\n", termsafe.String(ov.Pinned))
	}
	for _, s := range ov.Sessions {
		writeSessionBlock(out, pal, s)
	}
	out.WriteByte('\n')
	writeFindings(out, pal, rep.Findings, width)
	return nil
}

func writeList(out *bufio.Writer, label string, items []string) {
	if len(items) > 0 {
		fmt.Fprintf(out, "%s: %s\n", label, strings.Join(items, ", "))
	}
}

// reasonList counts events by reason, in the given order.
func reasonList(m map[replay.Reason]int, order []replay.Reason) []string {
	var parts []string
	for _, r := range order {
		if n := m[r]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", r, n))
		}
	}
	return parts
}

// inertReasons are the reasons whose verdict is inert, in replay's order.
// codeList counts malformed lines by code, in replay's order.
func codeList(m map[replay.Code]int) []string {
	var parts []string
	for _, c := range replay.Codes {
		if n := m[c]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", c, n))
		}
	}
	return parts
}

// refusedList counts the server's error bodies by code, most first.
func refusedList(m map[string]int) []string {
	codes := slices.Collect(maps.Keys(m))
	slices.SortFunc(codes, func(a, b string) int { return cmp.Or(m[b]-m[a], strings.Compare(a, b)) })
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = fmt.Sprintf("%s %d", termsafe.String(c), m[c])
	}
	return parts
}

var inertReasons = func() []replay.Reason {
	var rs []replay.Reason
	for _, r := range replay.Reasons {
		if r.Verdict() == replay.Inert {
			rs = append(rs, r)
		}
	}
	return rs
}()

// HistoryWords says what a session's first accepted snapshot holds of
// earlier turns (inspect.SessionOverview.Earlier), the same in every
// view; "" when nothing.
func HistoryWords(earlier int) string {
	if earlier <= 0 {
		return ""
	}
	return text.Plural(earlier, "message") + " of earlier turns in its first accepted snapshot"
}

func writeSessionBlock(out *bufio.Writer, pal iostreams.Palette, s inspect.SessionOverview) {
	fmt.Fprintf(out, "\n%s %s\n", pal.Bold("session"), termsafe.String(s.SessionID))
	fmt.Fprintf(out, "  verdict: %s\n", VerdictWords(s.Verdict()))
	inert := fmt.Sprintf("%d inert", s.Events-s.Accepted())
	if parts := reasonList(s.Reasons.Map(), inertReasons); len(parts) > 0 {
		inert += " (" + strings.Join(parts, ", ") + ")"
	}
	fmt.Fprintf(out, "  %s: %d accepted, %s\n", text.Plural(s.Events, "event"), s.Accepted(), inert)
	line := fmt.Sprintf("  %s, %s", text.Plural(s.Turns, "turn"), text.Plural(s.Snapshots, "snapshot"))
	if r := s.Sequences; r != nil {
		line += fmt.Sprintf(", sequences %d..%d", r.Min, r.Max)
	}
	fmt.Fprintln(out, line)
	if r := s.EmittedAt; r != nil {
		fmt.Fprintf(out, "  emittedAt %s .. %s\n", termsafe.String(r.First), termsafe.String(r.Last))
	}
	if f := s.Final; f != nil {
		fmt.Fprintf(out, "  final: %s, %s, turn %s, sequence %d at %s\n", f.Status, text.Plural(int(f.MessageCount), "message"),
			termsafe.String(f.TurnID), f.Sequence, text.Position(termsafe.String(f.File), int(f.Entry), f.Line))
	} else {
		fmt.Fprintln(out, "  final: no accepted snapshot")
	}
	if h := HistoryWords(s.Earlier); h != "" {
		fmt.Fprintf(out, "  history: %s\n", h)
	}
	// Turns, not snapshots: the unit lineage counts in.
	var ops []string
	for _, op := range lineage.Operations {
		if n := s.LineageTurns.Of(op); n > 0 {
			ops = append(ops, fmt.Sprintf("%d %s", n, op))
		}
	}
	if len(ops) > 0 {
		fmt.Fprintf(out, "  lineage: %s\n", strings.Join(ops, ", "))
	}
	if line := outcomeLine(s.Endings()); line != "" {
		fmt.Fprintf(out, "  outcomes: %s\n", line)
	}
}

// maxOutcomesListed is how many turns that did not simply complete the
// overview names; the others are counted.
const maxOutcomesListed = 5

// outcomeLine counts the turns that completed and names the others with
// their outcome, code and line: "2 complete; turn-1 timed-out
// SERVER_TIMEOUT at cap.jsonl:22 (completed later at cap.jsonl:23, +0
// characters)".
func outcomeLine(outs []inspect.TurnEnding) string {
	complete, others := 0, 0
	var named []string
	for _, o := range outs {
		if o.Ending == model.EndComplete && o.Later == nil {
			complete++
			continue
		}
		if others++; others > maxOutcomesListed {
			continue
		}
		named = append(named, termsafe.String(o.TurnID)+" "+OutcomeIn(o.Ending, o.Code, false, o.Window != nil)+EndedAt(o, modelPosition))
	}
	var parts []string
	if complete > 0 {
		parts = append(parts, fmt.Sprintf("%d complete", complete))
	}
	parts = append(parts, named...)
	if others > maxOutcomesListed {
		parts = append(parts, fmt.Sprintf("%d more", others-maxOutcomesListed))
	}
	return strings.Join(parts, "; ")
}

// EndedAt is where turn ending e shows and where a later snapshot showed
// the reply complete, " at cap.jsonl:4 (completed later at cap.jsonl:5,
// +0 characters)", and where the capture goes on with a turn the window
// cut (PastWindowAt), after the outcome in every list of endings (inspect's
// outcomes line, explore's outcomes); at names a position as the view
// names positions.
func EndedAt(e inspect.TurnEnding, at func(model.Position) string) string {
	s := ""
	if e.At.Line > 0 {
		s = " at " + at(e.At)
	}
	return s + PastWindowAt(e.Window, at) + LaterAt(e.Later, at)
}

// modelPosition is a position of the model in the one form, made safe
// for a terminal.
func modelPosition(p model.Position) string {
	return text.Position(termsafe.String(p.File), p.Entry, p.Line)
}

// SeverityColour is the colour a finding of severity s is shown in.
func SeverityColour(pal iostreams.Palette, s inspect.Severity) func(string) string {
	switch s {
	case inspect.SeverityError:
		return pal.Red
	case inspect.SeverityWarning:
		return pal.Yellow
	}
	return pal.Cyan
}

// findingCounts is "3 findings: 1 error, 2 info", "no findings" for none.
func findingCounts(pal iostreams.Palette, fs []inspect.Finding) string {
	if len(fs) == 0 {
		return "no findings"
	}
	var parts []string
	for _, sev := range inspect.Severities {
		n := 0
		for _, f := range fs {
			if f.Severity == sev {
				n++
			}
		}
		if n > 0 {
			parts = append(parts, SeverityColour(pal, sev)(severityCount(n, sev)))
		}
	}
	return pal.Bold(text.Plural(len(fs), "finding")) + ": " + strings.Join(parts, ", ")
}

// writeFindingsHead follows the capture's verdict on the report's first
// lines, so that its first screen says what matters before the overview:
// how many findings of each severity, and the worst (findings are sorted
// worst first) with where it is, fitted to width cells (0: whole).
func writeFindingsHead(out *bufio.Writer, pal iostreams.Palette, fs []inspect.Finding, width int) {
	fmt.Fprintln(out, findingCounts(pal, fs))
	if len(fs) == 0 {
		return
	}
	f := fs[0]
	n := 0
	for _, g := range fs {
		if g.Severity == f.Severity {
			n++
		}
	}
	line := "worst: " + string(f.Severity) + " " + f.ID
	if n > 1 {
		line = "worst of " + severityCount(n, f.Severity) + ": " + f.ID
	}
	if f.SessionID != "" {
		line += " in session " + termsafe.String(f.SessionID)
	}
	colour := SeverityColour(pal, f.Severity)
	if width == 0 {
		fmt.Fprintf(out, "%s, at %s\n", colour(line), positionList(f, 0))
		return
	}
	// Its positions follow on the line when the first of them fits, else
	// on the next.
	line = text.Shorten(line, width, text.FitTail)
	if at := positionList(f, width-text.Width(line)-len(", at ")); text.Width(line)+len(", at ")+text.Width(at) <= width {
		fmt.Fprintf(out, "%s, at %s\n", colour(line), at)
		return
	}
	fmt.Fprintf(out, "%s\n  at %s\n", colour(line), positionList(f, max(width-len("  at "), 0)))
}

func writeFindings(out *bufio.Writer, pal iostreams.Palette, fs []inspect.Finding, width int) {
	fmt.Fprintln(out, findingCounts(pal, fs))
	if len(fs) == 0 {
		return
	}
	for _, f := range fs {
		sev := fmt.Sprintf("%-7s", f.Severity)
		head := SeverityColour(pal, f.Severity)(sev) + "  " + pal.Bold(f.ID)
		if f.SessionID != "" { // unusable-input is about the whole capture
			head += "  " + termsafe.String(f.SessionID)
		}
		fmt.Fprintf(out, "\n%s\n", head)
		fmt.Fprintf(out, "  %s\n", termsafe.String(f.Message))
		fmt.Fprintf(out, "  at %s\n", positionList(f, max(width-len("  at "), 0)))
		if c, ok := inspect.CheckByID(f.ID); ok {
			fmt.Fprintf(out, "  %s %s\n", pal.Dim("what to do:"), c.Do)
		}
	}
}

// positionList writes a finding's positions as compact ranges,
// "a.jsonl:2,4-8 b.jsonl:1 (+163)", counting those past the listed ones
// and those past width runes (0: no limit).
func positionList(f inspect.Finding, width int) string {
	return CompactPositions(f.Positions, f.PositionCount, width)
}

// validUTF8JSON reports whether raw can be shown as a JSON value: valid
// JSON, and UTF-8 so that re-encoding keeps it byte for byte.
func validUTF8JSON(raw []byte) bool { return utf8.Valid(raw) && json.Valid(raw) }

// severityCount says "2 errors", "1 warning" or "3 info": info has no plural.
func severityCount(n int, s inspect.Severity) string {
	if s == inspect.SeverityInfo {
		return strconv.Itoa(n) + " info"
	}
	return text.Plural(n, string(s))
}

// checkColumns are the columns of inspect's catalogue of findings.
var checkColumns = []text.Column{{Name: "SEVERITY"}, {Name: "FINDING"}, {Name: "MEANING", Fit: text.FitTail}}

// WriteCheckTable writes the catalogue of findings (inspect.Checks) as a
// table, each line after indent: the findings of inspect's help.
func WriteCheckTable(w io.Writer, indent string) error {
	rows := make([][]string, len(inspect.Checks))
	for i, c := range inspect.Checks {
		rows[i] = []string{string(c.Severity), c.ID, c.Summary}
	}
	var b strings.Builder
	if err := text.Render(&b, nil, 0, checkColumns, rows); err != nil {
		return err
	}
	for _, l := range strings.SplitAfter(b.String(), "\n") {
		if l != "" {
			if _, err := io.WriteString(w, indent+l); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteEachRow writes inspect --each -o jsonl's row for one capture:
// what was read, the sessions, events by reason, findings by id and by
// severity, and the capture's verdict (inspect.Report.Verdict), the one
// every view shows: a turn that ended other than complete is a problem
// that no finding counts.
func WriteEachRow(w io.Writer, file string, rep inspect.Report) error {
	ov := rep.Overview
	findings, severities := map[string]int{}, map[string]int{}
	for _, f := range rep.Findings {
		findings[f.ID]++
		severities[string(f.Severity)]++
	}
	in := NewInputJSON(ov.Input, ov.Counts)
	row := struct {
		File string `json:"file"`
		InputJSON
		Sessions   int            `json:"sessions"`
		Reasons    map[string]int `json:"reasons"`
		Findings   map[string]int `json:"findings"`
		Severities map[string]int `json:"severities"`
		Verdict    verdictJSON    `json:"verdict"`
	}{file, in, len(ov.Sessions), ReasonMap(ov.Counts.Reasons), findings, severities, verdictToJSON(rep.Verdict())}
	e := jsonout.NewEncoder(w, jsonout.Lines)
	if err := e.Value(row); err != nil {
		return err
	}
	return e.End()
}

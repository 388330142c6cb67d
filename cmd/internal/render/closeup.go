package render

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/jsonout"
	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
)

// CloseupOptions says how close-ups are written.
type CloseupOptions struct {
	// Output is "json", "jsonl", or anything else for text.
	Output string
	// Redact keeps only the envelope and the protocol's own fields.
	Redact  bool
	Palette iostreams.Palette
}

// WriteCloseups writes the close-ups of an examination (inspect --line,
// --event-id) as JSON, JSON Lines or text, and counts the matches not shown.
func WriteCloseups(out *bufio.Writer, o CloseupOptions, x inspect.Examination) error {
	if o.Output == "json" || o.Output == "jsonl" {
		return WriteCloseupsJSON(out, o.Output, o.Redact, x)
	}
	pal := o.Palette
	for i, c := range x.Closeups {
		if i > 0 {
			out.WriteByte('\n')
		}
		writeCloseup(out, pal, c, o.Redact)
	}
	if more := x.Matches - len(x.Closeups); more > 0 {
		fmt.Fprintf(out, "\n%d more matching lines not shown\n", more)
	}
	return nil
}

// WriteCloseupsJSON writes the close-ups of an examination as -o json's
// document or -o jsonl's records, to out: under --each, the capture's
// writer (jsonout.OfCapture), whose document then names the capture.
func WriteCloseupsJSON(out io.Writer, format string, redact bool, x inspect.Examination) error {
	if format == "json" {
		e := jsonout.NewEncoder(out, jsonout.Document)
		if err := e.Value(closeupsJSON(x, redact)); err != nil {
			return err
		}
		return e.End()
	}
	// One record per line shown, as in the document's lines.
	e := jsonout.NewEncoder(out, jsonout.Lines)
	for _, l := range closeupsJSON(x, redact).Lines {
		if err := e.Value(l); err != nil {
			return err
		}
		if err := e.End(); err != nil {
			return err
		}
	}
	return nil
}

// writeCloseup shows one line: where it is, the JSON, every problem, the
// cursor's verdict and the findings that name it. With redact, the JSON
// keeps only the envelope and the protocol's own fields, and a line that
// is not JSON is not shown.
func writeCloseup(out *bufio.Writer, pal iostreams.Palette, c inspect.Closeup, redact bool) {
	head := text.Position(termsafe.String(c.File), c.Entry, c.Line)
	if ev := c.Event; ev != nil {
		head += fmt.Sprintf("  %s  event %s  session %s  turn %s  sequence %d", ev.Kind,
			termsafe.String(ev.EventID), termsafe.String(ev.SessionID), termsafe.String(ev.TurnID), ev.Sequence)
	}
	fmt.Fprintln(out, pal.Bold(head))
	switch {
	case len(c.Raw) == 0:
		fmt.Fprintln(out, pal.Dim("(line not shown: longer than --max-line)"))
	case redact && !json.Valid(c.Raw):
		fmt.Fprintln(out, pal.Dim(fmt.Sprintf("(line not shown: not JSON, %s, hidden by --redact)", text.Plural(len(c.Raw), "byte"))))
	case redact:
		ShowJSON(out, pal, RedactEvent(c.Raw))
	case json.Valid(c.Raw):
		ShowJSON(out, pal, c.Raw)
	default:
		fmt.Fprintln(out, termsafe.String(string(c.Raw)))
	}
	if c.Err == nil {
		fmt.Fprintf(out, "decode: %s\n", pal.Green("ok"))
	} else {
		fmt.Fprintf(out, "decode: %s, %s\n", pal.Red(string(c.Err.Code)), text.Plural(len(c.Err.Problems), "problem"))
		for _, p := range c.Err.Problems {
			if redact {
				p = p.Redact()
			}
			fmt.Fprintf(out, "  %s\n", termsafe.String(p.String()))
		}
	}
	colour := pal.Yellow
	if c.Reason.Verdict() == replay.Accepted {
		colour = pal.Green
	}
	verdict := colour(fmt.Sprintf("%s (%s)", c.Reason.Verdict(), c.Reason))
	if d := closeupDetail(c, redact); d != "" {
		verdict += ": " + d
	}
	fmt.Fprintf(out, "verdict: %s\n", verdict)
	for _, e := range c.Ended {
		fmt.Fprintf(out, "ended: %s\n", pal.Red(EndedWords(e.TurnID, e.Ending, e.Code, e.Later, modelPosition)))
	}
	writeDrops(out, pal, c)
	if len(c.Findings) == 0 {
		fmt.Fprintln(out, "findings: none cite this line")
		return
	}
	fmt.Fprintln(out, "findings that cite this line (each tells of its whole session):")
	rows := make([][]string, len(c.Findings))
	for i, f := range c.Findings {
		rows[i] = []string{string(f.Severity), f.ID, termsafe.String(f.Message)}
	}
	t, err := text.NewTable(out, citedColumns, text.FitWidths(citedColumns, rows, 0), false, pal.Bold)
	if err != nil {
		return
	}
	for i, r := range rows {
		sev := c.Findings[i].Severity
		_ = t.Row(r, func(col int, cell string) string {
			if col == 0 {
				return SeverityColour(pal, sev)(cell)
			}
			return cell
		})
	}
	_ = t.Close()
}

// citedColumns are the columns of the findings that cite a line.
var citedColumns = []text.Column{{Name: "SEVERITY"}, {Name: "FINDING"}, {Name: "MESSAGE", Fit: text.FitTail}}

// maxDropsListed is how many of a line's dropped messages a close-up
// names; the others are counted.
const maxDropsListed = 10

// writeDrops says what an accepted line did itself to its session's
// projection: which messages of the previous accepted one it dropped, and
// whether a lineage explains each.
func writeDrops(out *bufio.Writer, pal iostreams.Palette, c inspect.Closeup) {
	if c.Reason != replay.ReasonAdvanced {
		return
	}
	if len(c.Dropped) == 0 {
		fmt.Fprintln(out, "dropped: no message of the previous accepted projection")
		return
	}
	fmt.Fprintf(out, "dropped: %s of sequence %d\n", text.Plural(len(c.Dropped), "message"), c.DroppedFrom)
	for _, d := range c.Dropped[:min(len(c.Dropped), maxDropsListed)] {
		why := removalWhy(d.Explained, d.By)
		if !d.Explained {
			why = pal.Red(why)
		}
		fmt.Fprintf(out, "  %s  %s\n", termsafe.String(d.MessageID), why)
	}
	if more := len(c.Dropped) - maxDropsListed; more > 0 {
		fmt.Fprintf(out, "  %d more\n", more)
	}
}

// removalWhy says why a message left the projection, as the model's rule
// decided: the lineage that explains it, or that none does.
func removalWhy(explained bool, by replay.Lineage) string {
	if !explained {
		return "no lineage explains this removal"
	}
	return string(by.Operation) + " from " + termsafe.String(by.SourceMessageID)
}

// ShowJSON writes the valid JSON text raw for people: indented, and
// coloured when the iostreams.Palette is.
func ShowJSON(out io.Writer, pal iostreams.Palette, raw []byte) {
	e := jsonout.NewEncoder(out, jsonout.Style{Indent: true, Colour: jsonout.PaletteColours(pal), Human: true})
	e.RawJSON(raw)
	e.End()
}

// closeupDetail explains the verdict, as the replay table does; with
// redact, a server error body's message is hidden.
func closeupDetail(c inspect.Closeup, redact bool) string {
	switch {
	case c.Reason == replay.ReasonMalformed && c.ErrorBody != nil:
		return "the line does not decode: " + ErrorBodyWords(*c.ErrorBody, redact)
	case c.Reason == replay.ReasonMalformed:
		return "the line does not decode"
	case c.Reason == replay.ReasonNonSnapshot:
		return "submits and diagnostics never move the cursor"
	case c.Reason == replay.ReasonForeignSession:
		return "another session than the pinned one"
	}
	res := replay.Result{Event: c.Event, Err: c.Err, Reason: c.Reason, Prev: c.Prev, Gap: c.Gap}
	return ResultDetail(&res, false, "") // not malformed: no value to hide, no error body
}

type closeupJSON struct {
	File     string          `json:"file"`
	Entry    int             `json:"entry,omitempty"`
	Line     int             `json:"line"`
	Verdict  string          `json:"verdict"`
	Reason   string          `json:"reason"`
	Event    json.RawMessage `json:"event"`
	Raw      *string         `json:"raw,omitempty"`
	Code     *string         `json:"code"`
	Problems []problemJSON   `json:"problems"`
	// ErrorBody is what a server error body says (inspect.ErrorBody).
	ErrorBody        *errorBodyJSON `json:"errorBody,omitempty"`
	AcceptedSequence *int64         `json:"acceptedSequence,omitempty"`
	Gap              *int64         `json:"gap,omitempty"`
	// Dropped and DroppedFrom are what an advanced line dropped itself
	// (inspect.Closeup.Dropped); absent for other lines.
	Dropped     *[]dropJSON   `json:"dropped,omitempty"`
	DroppedFrom *int64        `json:"droppedFrom,omitempty"`
	Findings    []findingJSON `json:"findings"`
	// Ended are the turns that ended here other than complete
	// (inspect.Closeup.Ended).
	Ended   []endedJSON `json:"ended"`
	TooLong bool        `json:"tooLong,omitempty"`
}

// endedJSON is a turn that ended at the line, with its outcome as
// lineage -o json words it.
type endedJSON struct {
	TurnID         string              `json:"turnId"`
	Outcome        string              `json:"outcome"`
	OutcomeCode    *string             `json:"outcomeCode"`
	CompletedLater *completedLaterJSON `json:"completedLater"`
}

// dropJSON is one message a line dropped: lineage is the one that
// explains it, null when none does.
type dropJSON struct {
	MessageID string           `json:"messageId"`
	Explained bool             `json:"explained"`
	Lineage   *dropLineageJSON `json:"lineage"`
}

type dropLineageJSON struct {
	Operation       string `json:"operation"`
	ParentTurnID    string `json:"parentTurnId"`
	SourceMessageID string `json:"sourceMessageId"`
}

// dropsJSON is the close-up's own drops for -o json, nil but for an
// advanced line.
func dropsJSON(c inspect.Closeup) (*[]dropJSON, *int64) {
	if c.Reason != replay.ReasonAdvanced {
		return nil, nil
	}
	ds := make([]dropJSON, len(c.Dropped))
	for i, d := range c.Dropped {
		ds[i] = dropJSON{MessageID: d.MessageID, Explained: d.Explained}
		if d.Explained {
			ds[i].Lineage = &dropLineageJSON{string(d.By.Operation), d.By.ParentTurnID, d.By.SourceMessageID}
		}
	}
	var from *int64
	if len(ds) > 0 {
		f := c.DroppedFrom
		from = &f
	}
	return &ds, from
}

type problemJSON struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

type closeupsBody struct {
	Matches int           `json:"matches"`
	Lines   []closeupJSON `json:"lines"`
}

// closeupsJSON is the -o json form of the close-ups; with redact, as
// writeCloseup.
func closeupsJSON(x inspect.Examination, redact bool) closeupsBody {
	body := closeupsBody{Matches: x.Matches, Lines: []closeupJSON{}}
	for _, c := range x.Closeups {
		j := closeupJSON{File: c.File, Entry: c.Entry, Line: c.Line, Verdict: string(c.Reason.Verdict()), Reason: string(c.Reason),
			Event: json.RawMessage("null"), Problems: []problemJSON{}, Findings: []findingJSON{}}
		switch {
		case len(c.Raw) == 0:
			j.TooLong = true
		case redact && json.Valid(c.Raw):
			j.Event = RedactEvent(c.Raw)
		case redact:
			s := string(hiddenJSON(c.Raw))
			s = s[1 : len(s)-1]
			j.Raw = &s
		case validUTF8JSON(c.Raw):
			j.Event = c.Raw
		default:
			s := string(c.Raw)
			j.Raw = &s
		}
		if c.Err != nil {
			code := string(c.Err.Code)
			j.Code = &code
			for _, p := range c.Err.Problems {
				if redact {
					p = p.Redact()
				}
				j.Problems = append(j.Problems, problemJSON{p.Path, p.Message})
			}
			j.ErrorBody = newErrorBodyJSON(c.ErrorBody, redact)
		}
		switch c.Reason {
		case replay.ReasonAdvanced, replay.ReasonDuplicate, replay.ReasonStale:
			prev := c.Prev
			j.AcceptedSequence = &prev
		}
		if c.Reason == replay.ReasonAdvanced {
			gap := c.Gap
			j.Gap = &gap
		}
		j.Dropped, j.DroppedFrom = dropsJSON(c)
		for _, f := range c.Findings {
			j.Findings = append(j.Findings, findingToJSON(f))
		}
		j.Ended = []endedJSON{}
		for _, e := range c.Ended {
			outcome, code, _, _, _, later := outcomeToJSON(e.Ending, e.Code, e.At, e.Later)
			j.Ended = append(j.Ended, endedJSON{TurnID: e.TurnID, Outcome: outcome, OutcomeCode: code, CompletedLater: later})
		}
		body.Lines = append(body.Lines, j)
	}
	return body
}

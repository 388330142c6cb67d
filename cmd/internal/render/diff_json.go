package render

import (
	"io"

	"github.com/agentskit/snapctl/cmd/internal/jsonout"
	"github.com/agentskit/snapctl/diff"
	"github.com/agentskit/snapctl/internal/runes"
	"github.com/agentskit/snapctl/replay"
)

// writePair writes the machine record of one pair: the stable contract
// documented in the README.
func writePair(e *jsonout.Encoder, p *diff.PairDiff, redact bool) {
	e.BeginObject()
	e.Key("sessionId")
	e.Str(p.SessionID)
	e.Key("turnId")
	e.Str(p.To.TurnID)
	e.Key("fromTurnId")
	e.Str(p.From.TurnID)
	e.Key("fromSequence")
	e.Int(p.From.Sequence)
	e.Key("toSequence")
	e.Int(p.To.Sequence)
	e.Key("fromFile")
	e.Str(p.From.File)
	e.Key("fromLine")
	e.Int(int64(p.From.Line))
	if p.From.Entry > 0 {
		e.Key("fromEntry")
		e.Int(int64(p.From.Entry))
	}
	e.Key("toFile")
	e.Str(p.To.File)
	e.Key("toLine")
	e.Int(int64(p.To.Line))
	if p.To.Entry > 0 {
		e.Key("toEntry")
		e.Int(int64(p.To.Entry))
	}
	e.Key("status")
	writeFromTo(e, func() { e.Str(string(p.FromStatus)) }, func() { e.Str(string(p.ToStatus)) })
	e.Key("usage")
	if p.UsageCompared {
		writeUsage(e, p.Usage)
	} else {
		e.Null()
	}
	e.Key("messages")
	writeMessages(e, p, redact)
	e.Key("error")
	writeFromTo(e, func() { writeDiagnostic(e, p.Error.From, redact) }, func() { writeDiagnostic(e, p.Error.To, redact) })
	e.Key("lineage")
	writeFromTo(e, func() { writePairLineage(e, p.Lineage.From) }, func() { writePairLineage(e, p.Lineage.To) })
	e.Key("inertBetween")
	writeInert(e, p.Inert)
	e.Key("acceptedBetween")
	e.Int(int64(p.AcceptedBetween))
	e.EndObject()
}

// writeFromTo writes {"from": …, "to": …}.
func writeFromTo(e *jsonout.Encoder, from, to func()) {
	e.BeginObject()
	e.Key("from")
	from()
	e.Key("to")
	to()
	e.EndObject()
}

func writeUsage(e *jsonout.Encoder, u replay.Usage) {
	e.BeginObject()
	e.Key("promptTokens")
	e.Int(u.PromptTokens)
	e.Key("completionTokens")
	e.Int(u.CompletionTokens)
	e.Key("totalTokens")
	e.Int(u.TotalTokens)
	e.EndObject()
}

// writeInert writes the inert counts in the fixed order of the reasons.
func writeInert(e *jsonout.Encoder, m map[replay.Reason]int) {
	e.BeginObject()
	for _, r := range replay.Reasons {
		if n := m[r]; n > 0 {
			e.Key(string(r))
			e.Int(int64(n))
		}
	}
	e.EndObject()
}

// writeDiagnostic writes a payload error, or null when there is none.
func writeDiagnostic(e *jsonout.Encoder, d *replay.Diagnostic, redact bool) {
	if d == nil {
		e.Null()
		return
	}
	e.BeginObject()
	e.Key("code")
	e.Str(d.Code)
	if redact {
		e.Key("messageLength")
		e.Int(int64(runes.Count(d.Message)))
	} else {
		e.Key("message")
		e.Str(d.Message)
	}
	e.Key("retryable")
	e.Bool(d.Retryable)
	e.EndObject()
}

func writePairLineage(e *jsonout.Encoder, l replay.Lineage) {
	if l.Operation == "" {
		e.Null()
		return
	}
	e.BeginObject()
	e.Key("operation")
	e.Str(string(l.Operation))
	if l.Operation != replay.OpSubmit {
		e.Key("parentTurnId")
		e.Str(l.ParentTurnID)
		e.Key("sourceMessageId")
		e.Str(l.SourceMessageID)
	}
	e.EndObject()
}

func writeMessages(e *jsonout.Encoder, p *diff.PairDiff, redact bool) {
	e.BeginObject()
	e.Key("added")
	e.StringArray(len(p.Added), func(i int) string { return p.Added[i].ID })
	e.Key("removed")
	e.StringArray(len(p.Removed), func(i int) string { return p.Removed[i].Message.ID })
	var unexplained []string
	for _, r := range p.Removed {
		if !r.Explained {
			unexplained = append(unexplained, r.Message.ID)
		}
	}
	e.Key("unexplained")
	e.StringArray(len(unexplained), func(i int) string { return unexplained[i] })
	e.Key("changed")
	e.BeginArray()
	for i := range p.Changed {
		c := &p.Changed[i]
		e.BeginObject()
		e.Key("id")
		e.Str(c.ID)
		e.Key("fields")
		e.StringArray(len(c.Fields), func(j int) string { return string(c.Fields[j]) })
		if c.Grew {
			if redact {
				e.Key("appendedLength")
				e.Int(int64(runes.Count(c.Appended)))
			} else {
				e.Key("appended")
				e.Str(c.Appended)
			}
		}
		e.EndObject()
	}
	e.EndArray()
	e.Key("moved")
	e.StringArray(len(p.Moved), func(i int) string { return p.Moved[i].ID })
	e.EndObject()
}

// DiffJSON writes pair records as JSON Lines, or as one document
// {"pairs": [...]} whose pairs are written as they come.
type DiffJSON struct {
	jsonout.RecordStream
	redact bool
}

// NewDiffJSON writes diff pairs to out as JSON Lines (format "jsonl") or as
// one document, with every text hidden when redact is set.
func NewDiffJSON(out io.Writer, format string, redact bool) *DiffJSON {
	return &DiffJSON{RecordStream: jsonout.NewRecordStream(out, format, "pairs"), redact: redact}
}

func (w *DiffJSON) Pair(p *diff.PairDiff) error {
	writePair(w.Enc, p, w.redact)
	return w.Done()
}

// Finish ends the document; in is not written: the document has no
// summary whose counts a window would change.
func (w *DiffJSON) Finish(replay.Stats) error {
	if w.Lines {
		return nil
	}
	w.Enc.EndArray()
	w.Enc.EndObject()
	return w.Enc.End()
}

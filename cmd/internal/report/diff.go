package report

import (
	"fmt"
	"strings"

	"github.com/agentskit/snapctl/diff"
)

// The diffs of successive accepted projections, collapsed per turn: what
// the report keeps of each pair the Differ emits.
const (
	// reportDiffTurns caps the turns with diffs kept per session, and
	// reportDiffItems the changes listed per turn.
	reportDiffTurns = 200
	reportDiffItems = 40
	// reportDiffRunes is the longest head of a message shown.
	reportDiffRunes = 160
)

// sessionDiffs are one session's pairs, grouped by the newer snapshot's
// turn.
type sessionDiffs struct {
	Turns   []*turnDiff
	byTurn  map[string]*turnDiff
	Dropped int
}

func newSessionDiffs() *sessionDiffs { return &sessionDiffs{byTurn: map[string]*turnDiff{}} }

// turnDiff sums up the pairs whose newer snapshot is of one turn.
type turnDiff struct {
	// Link is the id of the turn's box in the lineage picture, if drawn.
	Link                    string
	turnID                  string
	TurnID                  string
	Pairs                   int
	FromSeq, ToSeq          int64
	Added, Removed, Changed int
	Unexplained             int
	FirstStatus, LastStatus string
	Inert                   int
	Items                   []diffItem
	More                    int
}

// diffItem is one change of a message: Op is +, - or ~.
type diffItem struct {
	Op, Class, ID, Role, What, Text string
}

// AddPair takes one pair of the Differ into the report.
func (c *Collector) AddPair(p *diff.PairDiff) error {
	s := c.byID[p.SessionID]
	if s == nil {
		return nil
	}
	d := s.Diffs
	t := d.byTurn[p.To.TurnID]
	if t == nil {
		if len(d.Turns) >= reportDiffTurns {
			d.Dropped++
			return nil
		}
		t = &turnDiff{turnID: strings.Clone(p.To.TurnID), TurnID: cell(p.To.TurnID, reportCellRunes), FromSeq: p.From.Sequence, FirstStatus: string(p.FromStatus)}
		d.byTurn[p.To.TurnID] = t
		d.Turns = append(d.Turns, t)
	}
	t.Pairs++
	t.ToSeq, t.LastStatus = p.To.Sequence, string(p.ToStatus)
	for _, n := range p.Inert {
		t.Inert += n
	}
	t.Added += len(p.Added)
	t.Removed += len(p.Removed)
	t.Changed += len(p.Changed)
	item := func(it diffItem) {
		if len(t.Items) >= reportDiffItems {
			t.More++
			return
		}
		it.ID, it.Role = cell(it.ID, reportCellRunes), cell(it.Role, 40)
		t.Items = append(t.Items, it)
	}
	for _, m := range p.Added {
		item(diffItem{Op: "+", Class: "d-add", ID: m.ID, Role: m.Role, What: "added", Text: c.head(m.Content)})
	}
	for _, r := range p.Removed {
		what := "removed, explained by " + string(r.By.Operation)
		if !r.Explained {
			what = "removed, unexplained"
			t.Unexplained++
		}
		item(diffItem{Op: "−", Class: "d-del", ID: r.Message.ID, Role: r.Message.Role, What: what, Text: c.head(r.Message.Content)})
	}
	for _, m := range p.Changed {
		fields := make([]string, len(m.Fields))
		for i, f := range m.Fields {
			fields[i] = string(f)
		}
		text := c.head(m.New.Content)
		if m.Grew {
			text = "…" + c.head(m.Appended)
		}
		if !m.Has(diff.FieldContent) {
			text = ""
		}
		item(diffItem{Op: "~", Class: "d-chg", ID: m.ID, Role: m.New.Role, What: strings.Join(fields, ", "), Text: text})
	}
	return nil
}

// head is the beginning of a message's text, or its length alone with
// --redact. The text of a message is never whole: head, as every cell
// the collector keeps, is a string of its own (see cell), since the
// message's is a slice of the decoder's copy of the whole snapshot.
func (c *Collector) head(s string) string {
	if s == "" {
		return ""
	}
	if c.redact {
		return fmt.Sprintf("(%d bytes hidden)", len(s))
	}
	return cell(s, reportDiffRunes)
}

// statusChange says how a turn's status moved across its pairs.
func (t *turnDiff) statusChange() string {
	if t.FirstStatus == t.LastStatus {
		return t.LastStatus
	}
	return t.FirstStatus + " → " + t.LastStatus
}

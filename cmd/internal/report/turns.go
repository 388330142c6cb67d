package report

import (
	"strconv"

	"github.com/agentskit/snapctl/cmd/internal/render"
	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/inspect/lineage"
	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/internal/termsafe"
)

// The turn list of a session: how each turn ended for the client, as the
// model decides (lineage.Node.Ending, Later), in render's words.

// turnRow is one turn of a session's turn list.
type turnRow struct {
	ID, Operation, Outcome, Sequences, Tokens string
	// Ended is where the ending shows (the error snapshot, the diagnostic,
	// the last accepted snapshot), Later the later snapshot that showed
	// the cut-off reply complete, with how its text differs.
	Ended, Later positionView
	LaterChars   string
	// Complete is whether the turn ended complete: the only row the list
	// colours as fine.
	Complete bool
	// Window is whether the window cut the turn (inspect.TurnEnding.Window):
	// no problem, so not coloured as one; Past says where the capture goes
	// on with it, in render.PastWindowAt's words.
	Window bool
	Past   string
	// Link is the id of the turn's box in the lineage picture.
	Link string
}

// endingLines are the lines that show how the drawn sessions' listed
// turns ended other than complete, and the later snapshots that showed
// their replies complete: the tables show their rows, for the turn list's
// links. It also marks a problem each line where a turn the verdict counts
// unfinished ended (b.ended), whether or not the lineage has the turn (a
// turn with a diagnostic and no accepted snapshot has no node).
func (b *pageBuilder) endingLines(sessions []inspect.SessionOverview, into map[linePos]bool) {
	mark := func(set map[linePos]bool, at model.Position) {
		if p, ok := b.col.posOfModel(at); ok && at.Line > 0 {
			set[p] = true
		}
	}
	// The sessions the collector keeps are the ones drawn (b.detailed
	// names them only once their rows are chosen, after this).
	for i := range sessions {
		s := &sessions[i]
		if !b.col.Keeps(s.SessionID) {
			continue
		}
		for _, e := range s.Unfinished() {
			mark(b.ended, e.At)
		}
		endings := s.Endings()
		for _, e := range endings[:min(len(endings), reportLineageTurns)] {
			if e.Ending == model.EndComplete {
				continue
			}
			mark(into, e.At)
			if e.Later != nil {
				mark(into, e.Later.At)
			}
		}
	}
}

// turnRows lists a session's first reportLineageTurns turns, as the
// model's endings list them (SessionOverview.Endings, which inspect's
// outcomes line shows too): a turn the lineage has (g, nil for none) with
// its origin, sequences and tokens, one it has not (no accepted snapshot:
// a diagnostic alone, a submit unanswered, snapshots all inert) with how
// it ended alone. box names each turn's box in the lineage picture, if
// drawn.
func (b *pageBuilder) turnRows(g *lineage.Session, endings []inspect.TurnEnding, box map[string]string) []turnRow {
	nodes := map[string]*lineage.Node{}
	if g != nil {
		for _, n := range g.Turns {
			nodes[n.TurnID] = n
		}
	}
	var rows []turnRow
	for _, te := range endings[:min(len(endings), reportLineageTurns)] {
		r := turnRow{ID: termsafe.Line(te.TurnID, reportCellRunes), Operation: "-", Outcome: render.OutcomeIn(te.Ending, te.Code, te.Later != nil, te.Window != nil),
			Sequences: "-", Tokens: "-", Complete: te.Ending == model.EndComplete, Window: te.Window != nil}
		if n := nodes[te.TurnID]; n != nil {
			r.Operation, r.Sequences, r.Tokens, r.Link = render.Origin(n), render.SeqRange(n), render.Tokens(n), box[n.TurnID]
		}
		if te.At.Line > 0 {
			r.Ended = b.position(te.At)
		}
		if l := te.Later; l != nil {
			r.Later, r.LaterChars = b.position(l.At), render.LaterWords(l)
		}
		r.Past = render.PastWindowAt(te.Window, func(at model.Position) string { return b.position(at).Label })
		rows = append(rows, r)
	}
	return rows
}

// position is a position of the model as the page shows it: labelled
// with the file's short name, linked to its row when a table has one.
func (b *pageBuilder) position(at model.Position) positionView {
	p, ok := b.col.posOfModel(at)
	if !ok {
		return positionView{Label: text.Position(termsafe.String(at.File), at.Entry, at.Line)}
	}
	pv := positionView{Label: p.label(b.names)}
	if b.anchored[p] {
		pv.Href = "#" + p.anchor()
	}
	return pv
}

// turnsNote says how many of its n turns the list leaves out.
func turnsNote(n int) string {
	if n <= reportLineageTurns {
		return ""
	}
	return "The first " + strconv.Itoa(reportLineageTurns) + " of " + strconv.Itoa(n) + " turns are listed; snapctl inspect lists how every turn ended."
}

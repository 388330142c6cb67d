package report

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentskit/snapctl/cmd/internal/render"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/inspect/lineage"
	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
)

// The report's page: everything the template shows, made terminal-safe
// and cut here, escaped by html/template when written.

const (
	// reportSessionRows caps the rows of the summary's session table.
	reportSessionRows = 1000
	// reportFindingPositions caps the positions listed per finding.
	reportFindingPositions = 20
	// reportLineageTurns is the most turns a lineage picture draws.
	reportLineageTurns = 500
	// reportFindings caps the findings listed, worst first.
	reportFindings = 1000
)

// MaxPositions is the inspect.Options.MaxPositions of a report: every
// position, so that the charts ring every line a finding cites, not the
// first 100; they cost 16 bytes each, while the page lists only
// reportFindingPositions per finding.
const MaxPositions = math.MaxInt

// Page is everything the report shows, gathered by BuildPage and written
// by WritePage.
type Page struct {
	Generated, Version string
	Redacted           bool
	Pinned             string
	Files              []File
	Summary            reportSummary
	SessionsTotal      int
	SessionRows        []sessionRow
	Findings           []findingView
	FindingsTotal      int
	Sessions           []sessionView
	Malformed          []rowView
	MalformedN         int
	Reasons            []string
	Caps               reportCaps
	// Names pairs each short file name the positions use with the name
	// as given, when they differ, for the key above each table.
	Names []fileName
}

// fileName is a capture's short name in positions and its name as given.
type fileName struct{ Short, Full string }

// reportCaps are the limits, stated in the page.
type reportCaps struct {
	Sessions, Rows, TotalRows, AllRows, Buckets, DiffItems, DiffTurns, SessionRows, Positions, Turns, Context, Findings int
	AllEvents                                                                                                           bool
}

type reportSummary struct {
	Files, Lines, Blank, Events, Accepted, Inert, TooLong int
	Bytes                                                 int64
	Complete                                              bool
	Damage                                                string
	Window                                                string // render.WindowNote
	Reasons, Codes, Kinds                                 []countItem
}

type countItem struct {
	Name string
	N    int
}

type sessionRow struct {
	ID, Anchor                               string
	Events, Accepted, Inert, Turns, Findings int
	FinalSeq, Status                         string
	Verdict                                  verdictView
}

// verdictView is a session's verdict (inspect.Verdict) as the page shows
// it: in render's words, green only when Clean.
type verdictView struct {
	Words string
	Clean bool
}

func verdictOf(v inspect.Verdict) verdictView {
	return verdictView{Words: render.VerdictWords(v), Clean: v.Clean()}
}

type findingView struct {
	Severity, ID, SessionID, Message string
	// SessionAnchor is the id of the session's section, if it has one.
	SessionAnchor string
	Positions     []positionView
	More          int
}

type positionView struct{ Label, Href string }

type sessionView struct {
	ID, Anchor   string
	Verdict      verdictView
	Chart        chartSVG
	ChartTime    chartSVG
	Lineage      *lineageSVG
	LineageNote  string
	Rows         []rowView
	Dropped      int
	Filters      []string
	Diffs        []*turnDiff
	DiffsDropped int
	Turns        []turnRow
	TurnsNote    string
	// History is what the first accepted snapshot holds of earlier
	// turns (render.HistoryWords), "" when nothing.
	History string
	// drawn is the section as WritePage drew it ahead of the page.
	drawn *drawing
}

type rowView struct {
	eventRow
	Anchor, Position string
	Cited            bool
	// CitedBy names the error and warning findings that cite the row.
	CitedBy string
}

// pageBuilder gathers what the report shows, part by part.
type pageBuilder struct {
	p   *Page
	col *Collector
	// anchored holds the positions with a row in a table; detailed gives
	// the section id of each session the collector kept.
	anchored map[linePos]bool
	// ended are the rows where a turn of a drawn session that its verdict
	// counts unfinished ended: problems, as in every view
	// (inspect.ProblemReason).
	ended map[linePos]bool
	// citedBy names, for each row cited, the error and warning findings
	// that cite it, for the row to say why it is marked.
	citedBy map[linePos]string
	// citedIn lists, per session, the positions its error and warning
	// findings cite, for its charts' rings (a line two findings cite is
	// listed twice: see ringCounts). No map holds them all: a finding may
	// cite every line of a capture.
	citedIn  map[string][]linePos
	detailed map[string]string
	// names are the captures' names in table rows (see shortNames).
	names []string
}

// PageOptions says what a page says about itself and how much it shows.
type PageOptions struct {
	// Generated is when the page was made; Version is snapctl's.
	Generated time.Time
	Version   string
	// Redact hides every text that came from a message, tool call,
	// metadata or submit input.
	Redact bool
	// AllEvents shows every event in the tables, not only problems and
	// their context.
	AllEvents bool
}

// BuildPage gathers what the report shows.
func BuildPage(o PageOptions, files []File, rep inspect.Report, graphs []*lineage.Session, col *Collector) *Page {
	ov := rep.Overview
	b := &pageBuilder{col: col, anchored: map[linePos]bool{}, ended: map[linePos]bool{}, citedBy: map[linePos]string{}, citedIn: map[string][]linePos{}, detailed: map[string]string{},
		names: shortNames(col.files)}
	b.p = &Page{
		Generated: o.Generated.UTC().Format(time.RFC3339), Version: o.Version, Redacted: o.Redact,
		Pinned: termsafe.String(ov.Pinned), Files: files, SessionsTotal: len(ov.Sessions), MalformedN: col.malN,
		FindingsTotal: len(rep.Findings),
		Caps: reportCaps{reportSessions, reportRows, reportTotalRows, reportAllRows, chartBuckets, reportDiffItems, reportDiffTurns,
			reportSessionRows, reportFindingPositions, reportLineageTurns, reportContext, reportFindings, o.AllEvents},
	}
	for i := range files {
		files[i].Name = termsafe.String(files[i].Name)
	}
	for i, f := range col.files {
		if full := termsafe.String(f); b.names[i] != full {
			b.p.Names = append(b.p.Names, fileName{b.names[i], full})
		}
	}
	b.summary(ov)
	linked := b.cite(rep.Findings)
	b.endingLines(ov.Sessions, linked)
	col.finish(func(at linePos) bool { return linked[at] })
	for i, s := range col.sessions {
		b.detailed[s.ID] = "s" + strconv.Itoa(i+1)
		for _, r := range s.Rows {
			b.anchored[r.At] = true
		}
	}
	for _, r := range col.malformed {
		b.anchored[r.At] = true
	}
	b.why(rep.Findings)
	perSession := b.findings(rep.Findings)
	b.sessionRows(ov.Sessions, perSession)
	if o.Redact {
		render.RedactSessions(graphs)
	}
	b.sessions(graphs, rep.Verdicts(), ov.Sessions)
	return b.p
}

// summary counts what the capture holds.
func (b *pageBuilder) summary(ov inspect.Overview) {
	acc := ov.Accepted()
	sum := reportSummary{Files: ov.Input.Files, Lines: ov.Input.Lines, Blank: ov.Input.Blank, Events: ov.Counts.Events,
		Accepted: acc, Inert: ov.Counts.Events - acc, TooLong: ov.Input.TooLong, Bytes: ov.Input.Bytes, Complete: ov.Input.Complete(),
		Window: render.WindowNote(ov.Input)}
	if d := ov.Input.Damage; d != nil {
		sum.Damage = termsafe.String(d.Error())
	}
	for _, r := range replay.Reasons {
		if n := ov.Counts.Reasons[r]; n > 0 {
			sum.Reasons = append(sum.Reasons, countItem{string(r), n})
		}
		b.p.Reasons = append(b.p.Reasons, string(r))
	}
	for k, n := range ov.Counts.Codes {
		sum.Codes = append(sum.Codes, countItem{string(k), n})
	}
	for k, n := range ov.Counts.Kinds {
		sum.Kinds = append(sum.Kinds, countItem{render.ShortKind(k), n})
	}
	byName := func(a, b countItem) int { return strings.Compare(a.Name, b.Name) }
	slices.SortFunc(sum.Codes, byName)
	slices.SortFunc(sum.Kinds, byName)
	b.p.Summary = sum
}

// cite lists the positions error and warning findings cite, which the
// charts ring, and returns those of every finding listed, whose rows the
// tables show.
func (b *pageBuilder) cite(fs []inspect.Finding) map[linePos]bool {
	linked := map[linePos]bool{}
	for i, f := range fs {
		for _, at := range f.Positions {
			p, ok := b.col.posOf(at)
			if !ok {
				continue
			}
			if f.Severity != inspect.SeverityInfo {
				b.citedIn[f.SessionID] = append(b.citedIn[f.SessionID], p)
			}
			if i < reportFindings {
				linked[p] = true
			}

		}
	}
	return linked
}

// why notes, for each row cited, the error and warning findings that
// cite it, each once: only rows, so that it stays within the tables' caps.
func (b *pageBuilder) why(fs []inspect.Finding) {
	for _, f := range fs {
		if f.Severity == inspect.SeverityInfo {
			continue
		}
		for _, at := range f.Positions {
			p, ok := b.col.posOf(at)
			if !ok || !b.anchored[p] {
				continue
			}
			switch by := b.citedBy[p]; {
			case by == "":
				b.citedBy[p] = f.ID
			case !slices.Contains(strings.Split(by, ", "), f.ID):
				b.citedBy[p] = by + ", " + f.ID
			}
		}
	}
}

// findings lists the first reportFindings findings, worst first; it
// returns the number of findings of each session.
func (b *pageBuilder) findings(fs []inspect.Finding) map[string]int {
	perSession := map[string]int{}
	for _, f := range fs {
		perSession[f.SessionID]++
		if len(b.p.Findings) >= reportFindings {
			continue
		}
		fv := findingView{Severity: string(f.Severity), ID: f.ID, SessionID: termsafe.String(f.SessionID),
			Message: termsafe.String(f.Message), SessionAnchor: b.detailed[f.SessionID],
			More: f.PositionCount - min(len(f.Positions), reportFindingPositions)}
		for _, at := range f.Positions[:min(len(f.Positions), reportFindingPositions)] {
			fv.Positions = append(fv.Positions, b.position(model.Position(at)))
		}
		b.p.Findings = append(b.p.Findings, fv)
	}
	return perSession
}

// sessionRows is the summary's table of sessions.
func (b *pageBuilder) sessionRows(sessions []inspect.SessionOverview, findings map[string]int) {
	for _, s := range sessions[:min(len(sessions), reportSessionRows)] {
		r := sessionRow{ID: termsafe.String(s.SessionID), Anchor: b.detailed[s.SessionID], Events: s.Events, Accepted: s.Accepted(),
			Inert: s.Events - s.Accepted(), Turns: s.Turns, Findings: findings[s.SessionID], Verdict: verdictOf(s.Verdict())}
		if s.Final != nil {
			r.FinalSeq, r.Status = strconv.FormatInt(s.Final.Sequence, 10), termsafe.String(string(s.Final.Status))
		}
		b.p.SessionRows = append(b.p.SessionRows, r)
	}
}

func (b *pageBuilder) row(r eventRow) rowView {
	rv := rowView{eventRow: r, Anchor: r.At.anchor(), Cited: b.citedBy[r.At] != "", CitedBy: b.citedBy[r.At], Position: r.At.label(b.names)}
	// A turn that ended other than complete is a problem where it ended; a
	// gap is not one (sequence-gap is a note): see inspect.ProblemReason.
	rv.Problem = r.Problem || b.ended[r.At]
	return rv
}

// shortNames names the captures in table rows: by their base names when
// those tell them apart, else as given; the header lists them whole.
func shortNames(files []string) []string {
	names := make([]string, len(files))
	seen := map[string]bool{}
	for i, f := range files {
		names[i] = filepath.Base(f)
		if seen[names[i]] {
			names = slices.Clone(files)
			break
		}
		seen[names[i]] = true
	}
	for i := range names {
		names[i] = termsafe.Line(names[i], 60)
	}
	return names
}

// sessions lays out the sections of the sessions the collector kept,
// and the table of malformed lines.
func (b *pageBuilder) sessions(graphs []*lineage.Session, verdicts map[string]inspect.Verdict, overviews []inspect.SessionOverview) {
	for _, r := range b.col.malformed {
		b.p.Malformed = append(b.p.Malformed, b.row(r))
	}
	endings, history := map[string][]inspect.TurnEnding{}, map[string]string{}
	for i := range overviews {
		if _, ok := b.detailed[overviews[i].SessionID]; ok {
			endings[overviews[i].SessionID] = overviews[i].Endings()
			history[overviews[i].SessionID] = render.HistoryWords(overviews[i].Earlier)
		}
	}
	graphOf := map[string]*lineage.Session{}
	for _, g := range graphs {
		if _, ok := b.detailed[g.SessionID]; ok {
			graphOf[g.SessionID] = g
		}
	}
	files := b.names
	for _, s := range b.col.sessions {
		rings := b.col.ringCounts(&s.Chart, b.citedIn[s.ID])
		sv := sessionView{ID: termsafe.String(s.ID), Anchor: b.detailed[s.ID], Dropped: s.Dropped, Verdict: verdictOf(verdicts[s.ID]),
			Chart:     layoutChart(s, files, false, rings, b.anchored),
			ChartTime: layoutChart(s, files, true, rings, b.anchored),
			Diffs:     s.Diffs.Turns, DiffsDropped: s.Diffs.Dropped, History: history[s.ID]}
		seen := map[string]bool{}
		for _, r := range s.Rows {
			sv.Rows = append(sv.Rows, b.row(r))
			seen[r.Reason] = true
		}
		for _, r := range replay.Reasons {
			if seen[string(r)] {
				sv.Filters = append(sv.Filters, string(r))
			}
		}
		switch g := graphOf[s.ID]; {
		case g == nil:
			sv.LineageNote = "no accepted snapshots: no turns to draw"
		case len(g.Turns) > reportLineageTurns:
			sv.LineageNote = fmt.Sprintf("%d turns: too many to draw here; snapctl lineage -o svg draws them all", len(g.Turns))
		default:
			boxes := map[string]string{}
			l := layoutLineage(g, func(n *lineage.Node) string {
				id := sv.Anchor + "-t" + strconv.Itoa(len(boxes)+1)
				boxes[n.TurnID] = id
				return id
			}, sv.Verdict.Clean && g.Problems() == 0)
			sv.Lineage = &l
			for _, t := range sv.Diffs {
				t.Link = boxes[t.turnID]
			}
			sv.Turns = b.turnRows(g, endings[s.ID], boxes)
		}
		if sv.Turns == nil {
			sv.Turns, sv.TurnsNote = b.turnRows(graphOf[s.ID], endings[s.ID], nil), turnsNote(len(endings[s.ID]))
		}
		b.p.Sessions = append(b.p.Sessions, sv)
	}
}

// File is a capture as stored: its name, size and SHA-256.
type File struct {
	Name   string
	Size   int64
	SHA256 string
}

package cmd

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/inspect/lineage"
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
)

type reportPage struct {
	Generated, Version string
	Redacted           bool
	Pinned             string
	Files              []fileInfo
	Summary            reportSummary
	SessionsTotal      int
	SessionRows        []sessionRow
	Findings           []findingView
	Sessions           []sessionView
	Malformed          []rowView
	MalformedN         int
	Reasons            []string
	Caps               reportCaps
}

// reportCaps are the limits, stated in the page.
type reportCaps struct {
	Sessions, Rows, AllRows, Buckets, DiffItems, DiffTurns, SessionRows, Positions, Turns, Context int
	AllEvents                                                                                      bool
}

type reportSummary struct {
	Files, Lines, Blank, Events, Accepted, Inert, TooLong int
	Bytes                                                 int64
	Complete                                              bool
	Damage                                                string
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
	Chart        chartSVG
	ChartTime    chartSVG
	Lineage      *lineageSVG
	LineageNote  string
	Rows         []rowView
	Dropped      int
	Filters      []string
	Diffs        []*turnDiff
	DiffsDropped int
}

type rowView struct {
	eventRow
	Anchor, Position string
	Cited            bool
}

// buildPage gathers what the report shows.
func buildPage(o *reportOptions, files []fileInfo, rep inspect.Report, graphs []*lineage.Session, col *reportCollector) *reportPage {
	ov := rep.Overview
	p := &reportPage{
		Generated: o.Now().UTC().Format(time.RFC3339), Version: version(), Redacted: o.Redact,
		Pinned: termsafe.String(ov.Pinned), Files: files, SessionsTotal: len(ov.Sessions), MalformedN: col.malN,
		Caps: reportCaps{reportSessions, reportRows, reportAllRows, chartBuckets, reportDiffItems, reportDiffTurns,
			reportSessionRows, reportFindingPositions, reportLineageTurns, reportContext, o.AllEvents},
	}
	for i := range p.Files {
		p.Files[i].Name = termsafe.String(p.Files[i].Name)
	}
	acc := ov.Accepted()
	p.Summary = reportSummary{Files: ov.Input.Files, Lines: ov.Input.Lines, Blank: ov.Input.Blank, Events: ov.Counts.Events,
		Accepted: acc, Inert: ov.Counts.Events - acc, TooLong: ov.Input.TooLong, Bytes: ov.Input.Bytes, Complete: ov.Input.Complete()}
	if d := ov.Input.Damage; d != nil {
		p.Summary.Damage = termsafe.String(d.Error())
	}
	for _, r := range replay.Reasons {
		if n := ov.Counts.Reasons[r]; n > 0 {
			p.Summary.Reasons = append(p.Summary.Reasons, countItem{string(r), n})
		}
		p.Reasons = append(p.Reasons, string(r))
	}
	for k, n := range ov.Counts.Codes {
		p.Summary.Codes = append(p.Summary.Codes, countItem{string(k), n})
	}
	for k, n := range ov.Counts.Kinds {
		p.Summary.Kinds = append(p.Summary.Kinds, countItem{shortKind(k), n})
	}
	byName := func(a, b countItem) int {
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	}
	slices.SortFunc(p.Summary.Codes, byName)
	slices.SortFunc(p.Summary.Kinds, byName)

	anchored := map[[2]int]bool{}
	for _, s := range col.sessions {
		for _, r := range s.Rows {
			anchored[[2]int{r.File, r.Line}] = true
		}
	}
	for _, r := range col.malformed {
		anchored[[2]int{r.File, r.Line}] = true
	}
	detailed := map[string]string{}
	for i, s := range col.sessions {
		detailed[s.ID] = "s" + strconv.Itoa(i+1)
	}
	cited := map[[2]int]bool{}
	perSession := map[string]int{}
	for _, f := range rep.Findings {
		perSession[f.SessionID]++
		fv := findingView{Severity: string(f.Severity), ID: f.ID, SessionID: termsafe.String(f.SessionID),
			Message: termsafe.String(f.Message), SessionAnchor: detailed[f.SessionID], More: f.PositionCount - min(len(f.Positions), reportFindingPositions)}
		for i, at := range f.Positions {
			fi, ok := col.fileIdx[at.File]
			pos := [2]int{fi, at.Line}
			if ok && f.Severity != inspect.SeverityInfo {
				cited[pos] = true
			}
			if i >= reportFindingPositions {
				continue
			}
			pv := positionView{Label: termsafe.String(at.File) + ":" + strconv.Itoa(at.Line)}
			if ok && anchored[pos] {
				pv.Href = "#" + rowAnchor(fi, at.Line)
			}
			fv.Positions = append(fv.Positions, pv)
		}
		p.Findings = append(p.Findings, fv)
	}

	for _, s := range ov.Sessions {
		if len(p.SessionRows) >= reportSessionRows {
			break
		}
		r := sessionRow{ID: termsafe.String(s.SessionID), Anchor: detailed[s.SessionID], Events: s.Events, Accepted: s.Accepted(),
			Inert: s.Events - s.Accepted(), Turns: s.Turns, Findings: perSession[s.SessionID]}
		if s.Final != nil {
			r.FinalSeq, r.Status = strconv.FormatInt(s.Final.Sequence, 10), termsafe.String(string(s.Final.Status))
		}
		p.SessionRows = append(p.SessionRows, r)
	}

	graphOf := map[string]*lineage.Session{}
	for _, g := range graphs {
		if _, ok := detailed[g.SessionID]; ok {
			graphOf[g.SessionID] = g
		}
	}
	if o.Redact {
		redact(graphs)
	}
	rowOf := func(r eventRow) rowView {
		pos := [2]int{r.File, r.Line}
		return rowView{eventRow: r, Anchor: rowAnchor(r.File, r.Line), Cited: cited[pos],
			Position: termsafe.Line(col.files[r.File], 60) + ":" + strconv.Itoa(r.Line)}
	}
	for _, r := range col.malformed {
		p.Malformed = append(p.Malformed, rowOf(r))
	}
	for _, s := range col.sessions {
		sv := sessionView{ID: termsafe.String(s.ID), Anchor: detailed[s.ID], Dropped: s.Dropped,
			Chart: layoutChart(s, col.files, false, cited, anchored), ChartTime: layoutChart(s, col.files, true, cited, anchored),
			Diffs: s.Diffs.Turns, DiffsDropped: s.Diffs.Dropped}
		seen := map[string]bool{}
		for _, r := range s.Rows {
			sv.Rows = append(sv.Rows, rowOf(r))
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
			l := layoutLineage(g, nil)
			sv.Lineage = &l
		}
		p.Sessions = append(p.Sessions, sv)
	}
	return p
}

// byteSize writes a size for people: bytes, KiB, MiB or GiB.
func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return plural(int(n), "byte")
}

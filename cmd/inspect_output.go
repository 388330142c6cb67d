package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
)

// The JSON report: the stable contract documented in the README.
type inspectJSON struct {
	Overview overviewJSON  `json:"overview"`
	Findings []findingJSON `json:"findings"`
}

type overviewJSON struct {
	inputJSON
	Kinds         map[string]int        `json:"kinds"`
	Reasons       map[string]int        `json:"reasons"`
	Malformed     map[string]int        `json:"malformed"`
	PinnedSession *string               `json:"pinnedSession"`
	Sessions      []sessionOverviewJSON `json:"sessions"`
}

type sessionOverviewJSON struct {
	SessionID string         `json:"sessionId"`
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
	Final   *finalJSON     `json:"final"`
	Lineage map[string]int `json:"lineage"`
}

type findingJSON struct {
	ID            string         `json:"id"`
	Severity      string         `json:"severity"`
	SessionID     string         `json:"sessionId"`
	Message       string         `json:"message"`
	Positions     []positionJSON `json:"positions"`
	PositionCount int            `json:"positionCount"`
}

type positionJSON struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

func reportJSON(rep inspect.Report) inspectJSON {
	ov := rep.Overview
	j := inspectJSON{Findings: []findingJSON{}, Overview: overviewJSON{
		inputJSON: newInputJSON(ov.Input, ov.Counts),
		Kinds:     map[string]int{}, Reasons: reasonMap(ov.Counts.Reasons), Malformed: map[string]int{},
		Sessions: []sessionOverviewJSON{},
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
	for _, s := range ov.Sessions {
		j.Overview.Sessions = append(j.Overview.Sessions, sessionToJSON(s))
	}
	for _, f := range rep.Findings {
		j.Findings = append(j.Findings, findingToJSON(f))
	}
	return j
}

func sessionToJSON(s inspect.SessionOverview) sessionOverviewJSON {
	sj := sessionOverviewJSON{SessionID: s.SessionID, Events: s.Events, Accepted: s.Accepted(),
		Inert: s.Events - s.Accepted(), Reasons: reasonMap(s.Reasons), Turns: s.Turns,
		Snapshots: s.Snapshots, Lineage: s.Lineage, Final: newFinalJSON(s.Final)}
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
		fj.Positions = append(fj.Positions, positionJSON{p.File, p.Line})
	}
	return fj
}

// writeIndentedJSON writes v as indented, terminal-safe JSON.
func writeIndentedJSON(out io.Writer, v any) error { return writeSafeJSON(out, v, true) }

// writeReportJSON writes the report as one indented JSON document, the
// sessions one at a time: encoding the whole report at once held it twice
// more (encoding/json's buffer and its indented copy), 1.1 GB for 200,000
// sessions. The rest of the report is encoded with an empty sessions
// array, which the sessions are written into.
func writeReportJSON(out *bufio.Writer, rep inspect.Report) error {
	sessions := rep.Overview.Sessions
	rep.Overview.Sessions = nil
	var doc bytes.Buffer
	if err := writeIndentedJSON(&doc, reportJSON(rep)); err != nil {
		return err
	}
	b := doc.Bytes()
	// A key is never inside a string, where its quotes would be escaped.
	const empty = `"sessions": []`
	at := bytes.Index(b, []byte(empty))
	if at < 0 || len(sessions) == 0 {
		_, err := out.Write(b)
		return err
	}
	out.Write(b[:at+len(empty)-1])
	// Each session goes through writeIndentedJSON too, then moves three
	// levels in: a raw newline is never inside a JSON string.
	var one bytes.Buffer
	for i, s := range sessions {
		one.Reset()
		if err := writeIndentedJSON(&one, sessionToJSON(s)); err != nil {
			return err
		}
		if i > 0 {
			out.WriteByte(',')
		}
		out.WriteString("\n      ")
		out.Write(bytes.ReplaceAll(bytes.TrimSuffix(one.Bytes(), []byte("\n")), []byte("\n"), []byte("\n      ")))
	}
	out.WriteString("\n    ]")
	_, err := out.Write(b[at+len(empty):])
	return err
}

// writeReportTable writes the overview, one block per session, then the
// findings worst first.
func writeReportTable(out *bufio.Writer, pal Palette, rep inspect.Report) error {
	ov := rep.Overview
	fmt.Fprintf(out, "%s, %s, %s (%d blank): %s, %s, %s\n",
		plural(ov.Input.Files, "file"), plural(int(ov.Input.Bytes), "byte"), plural(ov.Input.Lines, "line"), ov.Input.Blank,
		plural(ov.Counts.Events, "event"), pal.Green(fmt.Sprintf("%d accepted", ov.Accepted())),
		pal.Yellow(fmt.Sprintf("%d inert", ov.Counts.Events-ov.Accepted())))
	var kinds []string
	for _, k := range []replay.Kind{replay.KindSnapshot, replay.KindSubmit, replay.KindDiagnostic} {
		if n := ov.Counts.Kinds[k]; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%s %d", shortKind(k), n))
		}
	}
	writeList(out, "kinds", kinds)
	writeList(out, "reasons", reasonList(ov.Counts.Reasons, replay.Reasons))
	writeList(out, "malformed", codeList(ov.Counts.Codes))
	writeInputWarnings(out, pal, ov.Input)
	if ov.Pinned != "" {
		fmt.Fprintf(out, "trusted session: %s (pinned)\n", termsafe.String(ov.Pinned))
	}
	for _, s := range ov.Sessions {
		writeSessionBlock(out, pal, s)
	}
	out.WriteByte('\n')
	writeFindings(out, pal, rep.Findings)
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

var inertReasons = func() []replay.Reason {
	var rs []replay.Reason
	for _, r := range replay.Reasons {
		if r.Verdict() == replay.Inert {
			rs = append(rs, r)
		}
	}
	return rs
}()

func writeSessionBlock(out *bufio.Writer, pal Palette, s inspect.SessionOverview) {
	fmt.Fprintf(out, "\n%s %s\n", pal.Bold("session"), termsafe.String(s.SessionID))
	inert := fmt.Sprintf("%d inert", s.Events-s.Accepted())
	if parts := reasonList(s.Reasons, inertReasons); len(parts) > 0 {
		inert += " (" + strings.Join(parts, ", ") + ")"
	}
	fmt.Fprintf(out, "  %s: %d accepted, %s\n", plural(s.Events, "event"), s.Accepted(), inert)
	line := fmt.Sprintf("  %s, %s", plural(s.Turns, "turn"), plural(s.Snapshots, "snapshot"))
	if r := s.Sequences; r != nil {
		line += fmt.Sprintf(", sequences %d..%d", r.Min, r.Max)
	}
	fmt.Fprintln(out, line)
	if r := s.EmittedAt; r != nil {
		fmt.Fprintf(out, "  emittedAt %s .. %s\n", termsafe.String(r.First), termsafe.String(r.Last))
	}
	if f := s.Final; f != nil {
		fmt.Fprintf(out, "  final: %s, %s, turn %s, sequence %d at %s:%d\n", f.Status, plural(f.MessageCount, "message"),
			termsafe.String(f.TurnID), f.Sequence, termsafe.String(f.File), f.Line)
	} else {
		fmt.Fprintln(out, "  final: no accepted snapshot")
	}
	if len(s.Lineage) > 0 {
		ops := make([]string, 0, len(s.Lineage))
		for op, n := range s.Lineage {
			ops = append(ops, fmt.Sprintf("%s %d", op, n))
		}
		sort.Strings(ops)
		fmt.Fprintf(out, "  lineage: %s\n", strings.Join(ops, ", "))
	}
}

func severityColour(pal Palette, s inspect.Severity) func(string) string {
	switch s {
	case inspect.SeverityError:
		return pal.Red
	case inspect.SeverityWarning:
		return pal.Yellow
	}
	return pal.Cyan
}

func writeFindings(out *bufio.Writer, pal Palette, fs []inspect.Finding) {
	if len(fs) == 0 {
		fmt.Fprintln(out, "no findings")
		return
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
			parts = append(parts, severityColour(pal, sev)(severityCount(n, sev)))
		}
	}
	fmt.Fprintf(out, "%s: %s\n", pal.Bold(plural(len(fs), "finding")), strings.Join(parts, ", "))
	for _, f := range fs {
		sev := fmt.Sprintf("%-7s", f.Severity)
		fmt.Fprintf(out, "\n%s  %s  %s\n", severityColour(pal, f.Severity)(sev), pal.Bold(f.ID), termsafe.String(f.SessionID))
		fmt.Fprintf(out, "  %s\n", termsafe.String(f.Message))
		fmt.Fprintf(out, "  at %s\n", positionList(f))
	}
}

// positionList writes positions as "a.jsonl:3,5 b.jsonl:1", saying how
// many more there are past the listed ones.
func positionList(f inspect.Finding) string {
	var b strings.Builder
	for i, p := range f.Positions {
		switch {
		case i > 0 && p.File == f.Positions[i-1].File:
			b.WriteByte(',')
		case i > 0:
			b.WriteString(" ")
			fallthrough
		default:
			b.WriteString(termsafe.String(p.File))
			b.WriteByte(':')
		}
		b.WriteString(strconv.Itoa(p.Line))
	}
	if more := f.PositionCount - len(f.Positions); more > 0 {
		fmt.Fprintf(&b, " and %d more", more)
	}
	return b.String()
}

// validUTF8JSON reports whether raw can be shown as a JSON value: valid
// JSON, and UTF-8 so that re-encoding keeps it byte for byte.
func validUTF8JSON(raw []byte) bool { return utf8.Valid(raw) && json.Valid(raw) }

// colourJSON writes raw as indented JSON with keys, strings, numbers and
// literals coloured, every string made terminal-safe. It reports false,
// writing nothing, when raw is not valid JSON.
func colourJSON(out *bufio.Writer, pal Palette, raw []byte) bool {
	var ind bytes.Buffer
	if !json.Valid(raw) || json.Indent(&ind, raw, "", "  ") != nil {
		return false
	}
	b := ind.Bytes()
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '"':
			j := stringEnd(b, i)
			tok := termsafe.String(string(b[i:j]))
			if k := skipSpace(b, j); k < len(b) && b[k] == ':' {
				out.WriteString(pal.Blue(tok))
			} else {
				out.WriteString(pal.Green(tok))
			}
			i = j
		case c == '-' || (c >= '0' && c <= '9'):
			j := i
			for j < len(b) && strings.IndexByte("+-.eE0123456789", b[j]) >= 0 {
				j++
			}
			out.WriteString(pal.Yellow(string(b[i:j])))
			i = j
		case c == 't' || c == 'f' || c == 'n':
			j := i
			for j < len(b) && b[j] >= 'a' && b[j] <= 'z' {
				j++
			}
			out.WriteString(pal.Magenta(string(b[i:j])))
			i = j
		default:
			out.WriteByte(c)
			i++
		}
	}
	out.WriteByte('\n')
	return true
}

// stringEnd returns the index just past the JSON string starting at i.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// severityCount says "2 errors", "1 warning" or "3 info": info has no plural.
func severityCount(n int, s inspect.Severity) string {
	if s == inspect.SeverityInfo {
		return strconv.Itoa(n) + " info"
	}
	return plural(n, string(s))
}

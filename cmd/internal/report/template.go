package report

import (
	"html/template"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/agentskit/snapctl/cmd/internal/text"
)

// The report's HTML: one file, no script, every style and picture inline.
// Filters are CSS only (checkboxes before the table), so they work with
// scripts off; every value goes through html/template's escaping.

// CSP is the page's Content-Security-Policy, its first element:
// should a value ever escape html/template, the browser still runs no
// script (the page has none, so none needs a hash), loads nothing from
// anywhere, and sends no form; the inline style is all it allows.
const CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

// reportCSS is the page's style; filterCSS adds one rule per reason.
const reportCSS = `
:root{--fg:#202124;--dim:#5f6368;--line:#dadce0;--err:#d93025;--warn:#e37400;--info:#1a73e8;--ok:#137333}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);margin:24px auto;max-width:1100px;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}
code,.mono,td,.lineage text,.chart text{font-family:ui-monospace,Menlo,Consolas,monospace}
table{border-collapse:collapse;font-size:12px;margin:6px 0}th,td{border-bottom:1px solid var(--line);padding:2px 8px;text-align:left;vertical-align:top;white-space:nowrap}td.detail{white-space:normal;min-width:14em}
th{background:#f8f9fa}td.n{text-align:right}
.meta td{border:0;padding:1px 8px 1px 0}.files td{white-space:normal;overflow-wrap:anywhere}.files td.n{white-space:nowrap;overflow-wrap:normal}.files td:first-child{min-width:10em}
.banner{padding:6px 10px;border-radius:4px;margin:8px 0;font-weight:600}
.banner.redacted{background:#fce8e6;color:#a50e0e}.banner.plain{background:#f1f3f4;color:var(--dim)}
.sev{display:inline-block;min-width:54px;text-align:center;border-radius:3px;color:#fff;font-size:11px;padding:0 4px;margin-right:6px}
.sev-error{background:var(--err)}.sev-warning{background:var(--warn)}.sev-info{background:var(--info)}
.findings li{margin:4px 0}.pos{font-size:12px;color:var(--dim)}.pos a{margin-right:6px}
.note{color:var(--dim);font-size:12px}
tr.problem td{background:#fef7e0}tr.cited td{background:#fce8e6}tr:target td{outline:2px solid var(--info)}
tr.t-unfinished td.outcome{color:var(--err);font-weight:600}tr.t-window td.outcome{color:var(--dim)}tr.t-complete td.outcome{color:var(--ok)}
.verdict.clean{color:var(--ok)}.verdict.problems{color:var(--err);font-weight:600}
.v-inert{color:var(--warn)}.v-accepted{color:var(--ok)}
.filters label{margin-right:10px;font-size:12px}
.legend span{margin-right:12px;font-size:12px;display:inline-block}.swatch.row-problem{background:#fef7e0;border:1px solid var(--warn);border-radius:2px}.swatch.row-cited{background:#fce8e6;border:1px solid var(--err);border-radius:2px}.swatch.row-plain{background:#fff;border:1px solid var(--line);border-radius:2px}.why{color:#a50e0e}.swatch{display:inline-block;width:10px;height:10px;border-radius:5px;margin-right:4px;vertical-align:middle}
.chart{max-width:100%;height:auto}.chart text{font-size:10px;fill:var(--dim)}.chart .title{font-size:11px;fill:var(--fg)}
.lineage text{font-size:11px;fill:var(--fg)}.lineage .t-id{font-weight:bold}.lineage .st-error,.lineage .t-problem{fill:var(--err)}.lineage .st-complete{fill:var(--ok)}.lineage .st-other{fill:var(--dim)}.lineage .op{font-size:10px}
.scroll{overflow-x:auto;max-width:100%}h1,h2,h3,p,li,summary{overflow-wrap:anywhere}.pos a{white-space:nowrap}
@media (max-width:700px){body{margin:12px auto;padding:0 8px}.chart{max-width:none}}
.xswitch>label{margin-right:12px;font-size:12px}.xswitch>.c-time,.xswitch>.x-time:checked~.c-pos{display:none}.xswitch>.x-time:checked~.c-time{display:block}
details{margin:3px 0}summary{cursor:pointer}.d-add{color:var(--ok)}.d-del{color:var(--err)}.d-chg{color:var(--info)}
ul.diff{list-style:none;padding-left:14px;margin:2px 0;font-size:12px}
@media print{.scroll{overflow:visible}.filters,.events>input,.events>label,.xswitch>input,.xswitch>label{display:none}body{margin:0;max-width:none}h2{break-before:auto}svg{max-width:100%;height:auto}}
`

// filterCSS hides the rows of a reason whose checkbox is off.
func filterCSS(reasons []string) string {
	var b strings.Builder
	for _, r := range reasons {
		b.WriteString(".events>.f-" + r + ":not(:checked)~.rows tr.r-" + r + "{display:none}\n")
	}
	return b.String()
}

const reportTemplate = `<!DOCTYPE html>
<html lang="en">
<head>
<meta http-equiv="Content-Security-Policy" content="{{csp}}">
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="snapctl {{.Version}}">
<title>snapctl report: {{range $i, $f := .Files}}{{if $i}}, {{end}}{{$f.Name}}{{end}}</title>
<style>{{css}}{{filters .Reasons}}</style>
</head>
<body>
<header>
<h1>snapctl report</h1>
{{if .Redacted}}<p class="banner redacted">Redacted (--redact): message texts, submit inputs and the values quoted in decode problems are hidden; ids, statuses, counts and lengths remain.</p>
{{else}}<p class="banner plain">Not redacted: this report quotes message texts and submit inputs from the capture.</p>
{{end -}}
<div class="scroll"><table class="meta">
<tr><td>generated</td><td>{{.Generated}}</td></tr>
<tr><td>snapctl</td><td>{{.Version}}</td></tr>
{{if .Pinned}}<tr><td>pinned session</td><td><code>{{.Pinned}}</code></td></tr>{{end}}
</table></div>
<div class="scroll"><table class="files">
<tr><th>file</th><th>size</th><th>SHA-256</th></tr>
{{range .Files}}<tr><td>{{.Name}}</td><td class="n">{{size .Size}}</td><td><code>{{if .SHA256}}{{.SHA256}}{{else}}(not hashed){{end}}</code></td></tr>
{{end -}}
</table></div>
</header>

<h2 id="summary">Summary</h2>
{{with .Summary -}}
<p>{{.Events}} events in {{.Lines}} lines ({{.Blank}} blank) from {{.Files}} file(s), {{size .Bytes}}: <b>{{.Accepted}} accepted</b>, <b>{{.Inert}} inert</b>.</p>
{{if not .Complete}}<p class="banner redacted">Damaged input: {{.Damage}}. Everything read before the damage is reported.</p>{{end}}
{{if .Window}}<p class="banner plain">Window: {{.Window}}.</p>{{end}}
{{if .TooLong}}<p class="banner redacted">{{.TooLong}} line(s) over --max-line not decoded (SNAPCTL_LINE_TOO_LONG): verdicts after them may differ from a real client's.</p>{{end}}
<div class="scroll"><table>
<tr><th>reason</th><th>events</th></tr>
{{range .Reasons}}<tr><td>{{.Name}}</td><td class="n">{{.N}}</td></tr>
{{end -}}
</table></div>
{{if .Kinds}}<p class="note">kinds: {{range $i, $k := .Kinds}}{{if $i}}, {{end}}{{$k.Name}} {{$k.N}}{{end}}{{if .Codes}}; malformed: {{range $i, $k := .Codes}}{{if $i}}, {{end}}{{$k.Name}} {{$k.N}}{{end}}{{end}}</p>{{end}}
{{end -}}
<h2 id="findings">Findings ({{.FindingsTotal}})</h2>
{{if .Findings}}{{template "names" .Names}}<ol class="findings">
{{range .Findings}}<li class="finding f-{{.Severity}}"><span class="sev sev-{{.Severity}}">{{.Severity}}</span><b>{{.ID}}</b>{{if .SessionID}} in session {{if .SessionAnchor}}<a href="#{{.SessionAnchor}}"><code>{{.SessionID}}</code></a>{{else}}<code>{{.SessionID}}</code>{{end}}{{end}}: {{.Message}}
<div class="pos">{{range .Positions}}{{if .Href}}<a href="{{.Href}}">{{.Label}}</a>{{else}}<span title="not in this report's tables: past a cap, or --all-events shows it">{{.Label}}</span> {{end}}{{end}}{{if gt .More 0}} and {{.More}} more{{end}}</div></li>
{{end -}}
</ol>
{{if gt .FindingsTotal (len .Findings)}}<p class="note">The first {{len .Findings}} of {{.FindingsTotal}} findings are listed; snapctl inspect lists them all.</p>{{end}}
{{else}}<p>No findings: the capture shows none of the bug classes inspect checks.</p>
{{end}}
<h2 id="sessions">Sessions ({{.SessionsTotal}})</h2>
<details{{if le .SessionsTotal 20}} open{{end}}><summary>one row per session</summary>
<div class="scroll"><table class="sessions">
<tr><th>session</th><th>verdict</th><th>events</th><th>accepted</th><th>inert</th><th>turns</th><th>final seq</th><th>status</th><th>findings</th></tr>
{{range .SessionRows}}<tr><td>{{if .Anchor}}<a href="#{{.Anchor}}">{{.ID}}</a>{{else}}{{.ID}}{{end}}</td><td>{{template "verdict" .Verdict}}</td><td class="n">{{.Events}}</td><td class="n">{{.Accepted}}</td><td class="n">{{.Inert}}</td><td class="n">{{.Turns}}</td><td class="n">{{.FinalSeq}}</td><td>{{.Status}}</td><td class="n">{{.Findings}}</td></tr>
{{end -}}
</table></div>
</details>
{{if gt .SessionsTotal (len .SessionRows)}}<p class="note">The first {{len .SessionRows}} of {{.SessionsTotal}} sessions are listed.</p>{{end}}
{{if gt .SessionsTotal (len .Sessions)}}<p class="note">Charts, tables and diffs are drawn for the first {{len .Sessions}} sessions; the findings cover all of them.</p>{{end}}

{{if .MalformedN}}
<h2 id="malformed">Malformed lines ({{.MalformedN}})</h2>
{{template "names" .Names}}{{template "rows" .Malformed}}
{{if gt .MalformedN (len .Malformed)}}<p class="note">The first {{len .Malformed}} of {{.MalformedN}} malformed lines are shown.</p>{{end}}
{{end}}
{{range .Sessions}}{{.HTML}}{{end}}
<footer><p class="note">Limits: charts, tables and diffs for the first {{.Caps.Sessions}} sessions; at most {{.Caps.Buckets}} points per chart (neighbouring events merged past it); {{.Caps.Rows}} rows per event table and {{.Caps.TotalRows}} in all ({{.Caps.AllRows}} in all with --all-events); {{.Caps.Findings}} findings, {{.Caps.Positions}} positions each; {{.Caps.DiffItems}} changes per turn; lineage pictures of at most {{.Caps.Turns}} turns.</p></footer>
</body>
</html>
{{define "verdict"}}<span class="verdict {{if .Clean}}clean{{else}}problems{{end}}">{{.Words}}</span>{{end}}
{{define "pos"}}{{if .Href}}<a href="{{.Href}}">{{.Label}}</a>{{else}}{{.Label}}{{end}}{{end}}
{{define "names"}}{{if .}}<p class="note names">Positions name each file by its short name: {{range $i, $n := .}}{{if $i}}; {{end}}<code>{{$n.Short}}</code> is <code>{{$n.Full}}</code>{{end}}.</p>
{{end}}{{end}}
{{define "rows"}}<p class="legend rows-legend"><span><i class="swatch row-problem"></i>a problem: a malformed line, a stale, duplicate or foreign-session snapshot, or where a turn ended other than complete that no finding names (as the verdict counts it)</span><span><i class="swatch row-cited"></i>a line an error or warning finding cites (named in its detail)</span><span><i class="swatch row-plain"></i>uncoloured: the rows around a problem (every row with --all-events)</span></p>
<div class="scroll rows"><table>
<tr><th>position</th><th>verdict</th><th>reason</th><th>seq</th><th>detail</th><th>turn</th><th>event id</th><th>kind</th><th>emittedAt</th></tr>
{{range .}}<tr id="{{.Anchor}}" class="r-{{.Reason}}{{if .Problem}} problem{{end}}{{if .Cited}} cited{{end}}"><td>{{.Position}}</td><td class="v-{{.Verdict}}">{{.Verdict}}</td><td>{{.Reason}}</td><td class="n">{{.Seq}}</td><td class="detail">{{if .CitedBy}}<b class="why">cited by {{.CitedBy}}</b> {{end}}{{.Detail}}</td><td>{{.Turn}}</td><td>{{.EventID}}</td><td>{{.Kind}}</td><td>{{.Emitted}}</td></tr>
{{end -}}
</table></div>{{end}}
{{define "chart"}}<div class="scroll"><svg class="chart" data-x="{{.X}}" width="960" height="260" viewBox="0 0 960 260" role="img" aria-label="{{.Title}}">
<title>{{.Title}}</title>
<rect x="104" y="14" width="840" height="204" fill="#fff" stroke="#dadce0"/>
{{- range .YTicks}}
<line x1="104" x2="944" y1="{{.At}}" y2="{{.At}}" stroke="#f1f3f4"/><text x="98" y="{{.At}}" dy="3" text-anchor="end">{{.Label}}</text>
{{- end}}
{{- range .XTicks}}
<text x="{{.At}}" y="232" text-anchor="middle">{{.Label}}</text>
{{- end}}
<text class="title" x="524" y="252" text-anchor="middle">{{.XTitle}}</text>
<text class="title" x="12" y="10">{{.YTitle}}</text>
{{- range .Rules}}
<line class="file-rule" x1="{{.X}}" x2="{{.X}}" y1="14" y2="218" stroke="#202124" stroke-dasharray="4 3"/><text x="{{.X}}" y="24" dx="3">{{.Label}}</text>
{{- end}}
{{- if .Line}}
<polyline class="accepted" points="{{.Line}}" fill="none" stroke="#137333" stroke-width="1.5"/>
{{- end}}
{{- range .Dots}}
{{if .Href}}<a href="#{{.Href}}">{{end}}<circle class="acc" cx="{{.X}}" cy="{{.Y}}" r="2" fill="#137333"><title>{{.Tip}}</title></circle>{{if .Href}}</a>{{end}}
{{- end}}
{{- range .Rings}}
<circle class="ring" data-n="{{.N}}" cx="{{.X}}" cy="{{.Y}}" r="7" fill="none" stroke="#d93025" stroke-width="2"/>
{{- end}}
{{- range .Marks}}
{{if .Href}}<a href="#{{.Href}}">{{end}}<circle class="mark r-{{.Reason}}" cx="{{.X}}" cy="{{.Y}}" r="3.5" fill="{{.Colour}}">{{if .Tip}}<title>{{.Tip}}</title>{{end}}</circle>{{if .Href}}</a>{{end}}
{{- end}}
{{- range .Bars}}
<path class="bars r-{{.Reason}}" d="{{.D}}" stroke="{{.Colour}}" stroke-width="4" stroke-linecap="round" fill="none"/>
{{- end}}
</svg></div>
<p class="legend"><span><i class="swatch" style="background:#137333"></i>accepted</span>{{range .Legend}}<span><svg width="10" height="10"><circle cx="5" cy="5" r="4" fill="{{.Colour}}"/></svg> {{.Reason}}</span>{{end}}<span><svg width="14" height="14"><circle cx="7" cy="7" r="5" fill="none" stroke="#d93025" stroke-width="2"/></svg> cited by an error or warning finding</span><span>┆ file boundary</span></p>
{{if .Aggregate}}<p class="note">{{.Aggregate}}</p>{{end}}
{{end}}{{define "session"}}
<section class="session" id="{{.Anchor}}">
<h2>Session <code>{{.ID}}</code>: {{template "verdict" .Verdict}}</h2>
{{if .History}}<p class="note">History: {{.History}}.</p>{{end}}
<h3>Timeline</h3>
<div class="xswitch"><input type="radio" name="{{.Anchor}}-x" id="{{.Anchor}}-xp" class="x-pos" checked><label for="{{.Anchor}}-xp">x: position in the capture</label>
<input type="radio" name="{{.Anchor}}-x" id="{{.Anchor}}-xt" class="x-time"><label for="{{.Anchor}}-xt">x: emittedAt</label>
<div class="c-pos">{{template "chart" .Chart}}</div><div class="c-time">{{template "chart" .ChartTime}}</div></div>
<h3>Lineage</h3>
{{if .Lineage}}<div class="scroll">{{template "lineage-svg" .Lineage}}</div>{{else}}<p class="note">{{.LineageNote}}</p>{{end}}
{{if .Turns}}<h3>Turns: how each ended for the client</h3>
{{template "names" $.Names}}<div class="scroll"><table class="turns">
<tr><th>turn</th><th>origin</th><th>outcome</th><th>ended at</th><th>completed later at</th><th>sequences</th><th>tokens</th></tr>
{{range .Turns}}<tr class="{{if .Complete}}t-complete{{else if .Window}}t-window{{else}}t-unfinished{{end}}"><td>{{if .Link}}<a href="#{{.Link}}"><code>{{.ID}}</code></a>{{else}}<code>{{.ID}}</code>{{end}}</td><td>{{.Operation}}</td><td class="outcome">{{.Outcome}}{{.Past}}</td><td>{{template "pos" .Ended}}</td><td>{{if .Later.Label}}{{template "pos" .Later}} ({{.LaterChars}}){{end}}</td><td>{{.Sequences}}</td><td class="n">{{.Tokens}}</td></tr>
{{end -}}
</table></div>
{{if .TurnsNote}}<p class="note">{{.TurnsNote}}</p>{{end}}{{end}}
<h3>Events</h3>
{{if $.Caps.AllEvents}}<p class="note">Every event of the session{{if .Dropped}}, but {{.Dropped}} past the cap of {{$.Caps.AllRows}} rows{{end}}.</p>
{{else}}<p class="note">Problems (stale, duplicate and foreign-session snapshots, and where a turn the verdict counts unfinished ended) and the lines findings cite, with {{$.Caps.Context}} rows of context around each; --all-events shows every row.{{if .Dropped}} {{.Dropped}} rows past the cap of {{$.Caps.Rows}} per session or {{$.Caps.TotalRows}} in all are left out.{{end}}</p>{{end}}
{{if .Rows}}<div class="events">
{{$a := .Anchor}}{{range .Filters}}<input type="checkbox" class="f-{{.}}" id="{{$a}}-f-{{.}}" checked><label for="{{$a}}-f-{{.}}">{{.}}</label>
{{end}}{{template "names" $.Names}}{{template "rows" .Rows}}</div>{{else}}<p class="note">No problems in this session's events.</p>{{end}}
<h3>Diffs of accepted projections, per turn</h3>
{{if .Diffs}}{{range .Diffs}}<details><summary>{{if .Link}}<a href="#{{.Link}}"><code>{{.TurnID}}</code></a>{{else}}<code>{{.TurnID}}</code>{{end}}: {{.Pairs}} pair(s), seq {{.FromSeq}} → {{.ToSeq}}, {{statusChange .}}{{if .Added}}, <span class="d-add">+{{.Added}}</span>{{end}}{{if .Removed}}, <span class="d-del">−{{.Removed}}{{if .Unexplained}} ({{.Unexplained}} unexplained){{end}}</span>{{end}}{{if .Changed}}, <span class="d-chg">~{{.Changed}}</span>{{end}}{{if .Inert}}, {{.Inert}} inert between{{end}}</summary>
<ul class="diff">{{range .Items}}<li class="{{.Class}}">{{.Op}} <code>{{.ID}}</code> {{.Role}} {{.What}}{{if .Text}}: <span class="mono">{{.Text}}</span>{{end}}</li>{{end}}{{if .More}}<li class="note">and {{.More}} more changes</li>{{end}}</ul></details>
{{end}}{{if .DiffsDropped}}<p class="note">{{.DiffsDropped}} more pairs, of turns past the first {{$.Caps.DiffTurns}}, are left out.</p>{{end}}
{{else}}<p class="note">Fewer than two accepted snapshots: nothing to compare.</p>{{end}}
</section>
{{end}}`

// reportTmpl is parsed when a page is first written (see lineageSVGTmpl).
var reportTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.Must(lineageSVGTmpl().Clone()).New("report").Funcs(template.FuncMap{
		"css":          func() template.CSS { return template.CSS(reportCSS) },
		"csp":          func() string { return CSP },
		"filters":      func(r []string) template.CSS { return template.CSS(filterCSS(r)) },
		"size":         text.ByteSize,
		"statusChange": func(t *turnDiff) string { return t.statusChange() },
	}).Parse(reportTemplate))
})

// WritePage writes the page as one HTML document. The sessions' sections,
// most of the page, are drawn on every core, each by the one template
// ("session") and its escaping, a few ahead of the page as it is written
// (at most GOMAXPROCS drawn and not yet written), and written in order.
func WritePage(w io.Writer, p *Page) error {
	t := reportTmpl()
	ahead := make(chan struct{}, runtime.GOMAXPROCS(0))
	quit := make(chan struct{})
	defer close(quit)
	sessions := slices.Clone(p.Sessions)
	for i := range sessions {
		sessions[i].drawn = &drawing{done: make(chan struct{}), ahead: ahead}
	}
	go func() {
		for i := range sessions {
			select {
			case ahead <- struct{}{}:
			case <-quit:
				return
			}
			go sessions[i].draw(t, p)
		}
	}()
	page := *p
	page.Sessions = sessions
	return t.Execute(w, &page)
}

// drawing is a session's section, drawn ahead of the page.
type drawing struct {
	html  template.HTML
	err   error
	done  chan struct{}
	ahead chan struct{}
}

// sessionPart is what the "session" template draws: a session, and the
// page's file names and caps its section states.
type sessionPart struct {
	*sessionView
	Names []fileName
	Caps  reportCaps
}

func (s *sessionView) draw(t *template.Template, p *Page) {
	var b strings.Builder
	err := t.ExecuteTemplate(&b, "session", sessionPart{sessionView: s, Names: p.Names, Caps: p.Caps})
	s.drawn.html, s.drawn.err = template.HTML(b.String()), err
	close(s.drawn.done)
}

// HTML is the session's section, once drawn; the page template writes
// it where the session goes. It was drawn by html/template from the
// "session" template, in the context it is written in (between
// elements), so it is as escaped as if the page template drew it there.
func (s sessionView) HTML() (template.HTML, error) {
	<-s.drawn.done
	<-s.drawn.ahead
	return s.drawn.html, s.drawn.err
}

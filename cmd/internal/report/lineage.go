package report

import (
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"

	"github.com/agentskit/snapctl/cmd/internal/render"
	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/inspect/lineage"
	"github.com/agentskit/snapctl/internal/termsafe"
)

// The lineage tree as an SVG picture, for the report and `lineage -o svg`:
// an indented tree, one turn per row, so that any number of turns and any
// depth lay out without crossing. Edges carry the operation, boxes the
// status; a turn with problems has a red dashed box.

// Layout of the lineage picture, in pixels; text is monospace, so a label's
// width follows from its length.
const (
	svgCharWidth = 6.7
	svgIndent    = 84
	svgLineH     = 14
	svgRowGap    = 10
	svgPad       = 12
	svgMaxRunes  = 72 // longest label line drawn; the whole value is in the box's title
)

// lineageSVG is one session's tree laid out.
type lineageSVG struct {
	Standalone    bool
	Width, Height int
	Title         string
	Nodes         []svgNode
	Edges         []svgEdge
	Trunk         []svgEdge
}

// svgNode is one turn's box.
type svgNode struct {
	X, Y, W, H   int
	Fill, Stroke string
	Problem      bool
	Lines        []svgLine
	Tip          string
	Anchor       string
}

// svgLine is a line of text in a box, at Y from the box's top.
type svgLine struct {
	Y     int
	Text  string
	Class string
}

// svgEdge is an elbow from a parent to a child, with the child's
// operation as its label.
type svgEdge struct {
	Path   string
	Label  string
	LX, LY int
	Colour string
}

// statusClass colours a turn's outcome: green only for a turn that
// ended complete for the client (the model's Ending), dim for one the
// window cut, red for any other ending, which the session's verdict
// counts as a problem.
func statusClass(n *lineage.Node) string {
	switch {
	case n.CutByWindow() != nil:
		return "st-other" // the window cut it: no problem, nor complete
	case !render.Unfinished(n):
		return "st-complete"
	}
	return "st-error"
}

// layoutLineage lays out one session's tree; anchor names each turn's box
// for links ("" for none). clean is whether the session's verdict is
// clean: only then do boxes take their operation's colours (submit's is
// green); in a session with problems, a turn that ended complete is grey.
func layoutLineage(s *lineage.Session, anchor func(*lineage.Node) string, clean bool) lineageSVG {
	out := lineageSVG{Title: "session " + termsafe.String(s.SessionID)}
	type placed struct{ x, y, h int }
	at := map[*lineage.Node]placed{}
	y := svgPad
	width := 0
	s.Walk(func(n *lineage.Node, depth int, _ bool) {
		lines := []svgLine{
			{Text: termsafe.Line(n.TurnID, svgMaxRunes), Class: "t-id"},
			{Text: termsafe.Line(render.Origin(n), svgMaxRunes), Class: "t-op"},
			{Text: termsafe.Line(render.Outcome(n)+" · "+render.SeqRange(n)+" · "+render.Tokens(n), svgMaxRunes), Class: statusClass(n)},
		}
		if len(n.Problems) > 0 {
			lines = append(lines, svgLine{Text: termsafe.Line("! "+render.ProblemKinds(n), svgMaxRunes), Class: "t-problem"})
		}
		long := 0
		for i := range lines {
			lines[i].Y = 4 + svgLineH*(i+1)
			long = max(long, len([]rune(lines[i].Text)))
		}
		x := svgPad + min(depth, render.MaxTreeIndent)*svgIndent
		h := svgLineH*len(lines) + 12
		w := int(float64(long)*svgCharWidth) + 16
		st := render.OpStyle[n.Operation]
		if !clean {
			st = render.OpStyle[lineage.OpUnknown]
		}
		node := svgNode{X: x, Y: y, W: w, H: h, Fill: st[0], Stroke: st[1], Problem: len(n.Problems) > 0, Lines: lines,
			Tip: strings.Join(graphTip(n), "\n")}
		if anchor != nil {
			node.Anchor = anchor(n)
		}
		if render.Unfinished(n) {
			node.Fill, node.Problem = render.UnfinishedFill, true
		}
		if node.Problem {
			node.Stroke = render.ProblemStroke
		}
		out.Nodes = append(out.Nodes, node)
		at[n] = placed{x, y, h}
		if n.Parent != nil {
			p := at[n.Parent]
			px := p.x + 10
			mid := y + h/2
			out.Edges = append(out.Edges, svgEdge{
				Path:  fmt.Sprintf("M%d %dV%dH%d", px, p.y+p.h, mid, x),
				Label: string(n.Operation), LX: px + 4, LY: mid - 4, Colour: render.OpStyle[n.Operation][1]})
		}
		width = max(width, x+w)
		y += h + svgRowGap
	})
	for i := 1; i < len(s.Roots); i++ {
		a, b := at[s.Roots[i-1]], at[s.Roots[i]]
		out.Trunk = append(out.Trunk, svgEdge{Path: fmt.Sprintf("M%d %dV%d", a.x+4, a.y+a.h, b.y)})
	}
	out.Width, out.Height = width+svgPad, y+svgPad-svgRowGap
	return out
}

// graphTip is a turn's whole description, for the tooltip of its box:
// what the box shows, with ids whole, and the previews and problems.
func graphTip(n *lineage.Node) []string {
	lines := render.GraphLabel(n)
	for _, p := range n.Problems {
		lines = append(lines, string(p.Kind)+": "+termsafe.String(p.Detail))
	}
	return lines
}

// svgVerdict is a session's verdict in its heading: inspect's, then its
// lineage problems.
func svgVerdict(s *lineage.Session, verdicts map[string]inspect.Verdict) string {
	lin := text.Plural(s.Problems(), "lineage problem")
	v, ok := verdicts[s.SessionID]
	switch {
	case !ok && s.Problems() == 0:
		return "no lineage problems"
	case !ok:
		return lin
	case s.Problems() == 0:
		return render.VerdictWords(v)
	}
	return render.VerdictWords(v) + "; " + lin
}

// lineageSVGTemplate draws a laid-out tree; every value goes through
// html/template's escaping, which is XML's too.
const lineageSVGTemplate = `{{define "lineage-svg"}}<svg {{if .Standalone}}xmlns="http://www.w3.org/2000/svg" {{end}}class="lineage" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="lineage of {{.Title}}">
<title>lineage of {{.Title}}</title>
{{- if .Standalone}}
<style>.lineage text{font:11px ui-monospace,Menlo,Consolas,monospace;fill:#202124}.lineage .t-id{font-weight:bold}.lineage .st-error,.lineage .t-problem{fill:#d93025}.lineage .st-complete{fill:#137333}.lineage .st-other{fill:#5f6368}.lineage .op{font-size:10px}</style>
{{- end}}
{{- range .Trunk}}
<path d="{{.Path}}" fill="none" stroke="#9aa0a6" stroke-dasharray="2 3"/>
{{- end}}
{{- range .Edges}}
<path d="{{.Path}}" fill="none" stroke="{{.Colour}}" stroke-width="1.5"/><text class="op" x="{{.LX}}" y="{{.LY}}" fill="{{.Colour}}">{{.Label}}</text>
{{- end}}
{{- range .Nodes}}
<g{{if .Anchor}} id="{{.Anchor}}"{{end}}><title>{{.Tip}}</title><rect x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}" rx="5" fill="{{.Fill}}" stroke="{{.Stroke}}" stroke-width="{{if .Problem}}2.5{{else}}1.2{{end}}"{{if .Problem}} stroke-dasharray="5 3"{{end}}/>
{{- $n := .}}{{range .Lines}}<text x="{{add $n.X 8}}" y="{{add $n.Y .Y}}" class="{{.Class}}">{{.Text}}</text>{{end}}</g>
{{- end}}
</svg>{{end}}`

// svgFuncs are the template functions the pictures use.
var svgFuncs = template.FuncMap{"add": func(a, b int) int { return a + b }}

// lineageSVGTmpl is parsed when a page is first written, not when the
// program starts: every command links this package.
var lineageSVGTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("lineage").Funcs(svgFuncs).Parse(lineageSVGTemplate))
})

// undrawnHeight is the room n lines of turns with no node take under a
// session, with a gap before the next session's heading.
func undrawnHeight(n int) int {
	if n == 0 {
		return 0
	}
	return 16*n + 12
}

// WriteLineageSVG writes one standalone SVG document with every session's
// tree, one under the other, each headed with its verdict (inspect's, by
// session id) and then its lineage problems. A session without a verdict
// in verdicts is headed with its lineage problems only, never "no
// problems".
func WriteLineageSVG(w io.Writer, sessions []*lineage.Session, verdicts map[string]inspect.Verdict, overviews []inspect.SessionOverview) error {
	type line struct {
		Y           int
		Text, Class string
	}
	type part struct {
		Y, H int
		Head string
		SVG  lineageSVG
		// Undrawn lists the session's turns with no node, as the tree
		// does after itself: every turn the verdict counts is shown.
		Undrawn []line
	}
	var parts []part
	y, width := 0, 320
	undrawn, treeless := render.Undrawn(sessions, overviews)
	if len(sessions) == 0 && len(treeless) == 0 {
		parts = append(parts, part{Y: 0, Head: "no accepted snapshots: no turns to draw"})
		y = 30
	}
	// lines are the turns with no node under a part that ends at y.
	lines := func(rows []inspect.TurnEnding, y int) []line {
		var ls []line
		for i, e := range rows {
			t := strings.Join(render.UndrawnLabel(e), " · ")
			class := "t-problem"
			if e.Window != nil {
				class = "st-other" // the window cut it: no problem
			}
			ls = append(ls, line{Y: y + 14 + 16*i, Text: t, Class: class})
			width = max(width, int(float64(len([]rune(t)))*svgCharWidth)+2*svgPad)
		}
		return ls
	}
	for _, s := range sessions {
		v, ok := verdicts[s.SessionID]
		l := layoutLineage(s, nil, ok && v.Clean() && s.Problems() == 0)
		rows := undrawn[s.SessionID]
		head := fmt.Sprintf("session %s: %s, %s", termsafe.String(s.SessionID), render.TurnCount(s, len(rows)), svgVerdict(s, verdicts))
		parts = append(parts, part{Y: y, H: l.Height, Head: head, SVG: l, Undrawn: lines(rows, y+24+l.Height)})
		y += 24 + l.Height + undrawnHeight(len(rows))
		// The heading is bold and a size larger than the boxes' text.
		width = max(width, l.Width, int(float64(len([]rune(head)))*svgCharWidth*1.2)+2*svgPad)
	}
	for _, ov := range treeless {
		head := fmt.Sprintf("session %s: %s; %s", termsafe.String(ov.SessionID), render.VerdictWords(ov.Verdict()), render.NoTree(ov))
		rows := undrawn[ov.SessionID]
		parts = append(parts, part{Y: y, Head: head, Undrawn: lines(rows, y+24)})
		y += 24 + undrawnHeight(len(rows))
		width = max(width, int(float64(len([]rune(head)))*svgCharWidth*1.2)+2*svgPad)
	}
	fmt.Fprint(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	t := template.Must(template.Must(lineageSVGTmpl().Clone()).New("doc").Parse(`<svg xmlns="http://www.w3.org/2000/svg" width="{{.W}}" height="{{.H}}" viewBox="0 0 {{.W}} {{.H}}">
<style>text{font:11px ui-monospace,Menlo,Consolas,monospace;fill:#202124}.head{font-weight:bold;font-size:12px}.t-id{font-weight:bold}.st-error,.t-problem{fill:#d93025}.st-complete{fill:#137333}.st-other{fill:#5f6368}.op{font-size:10px}</style>
<rect width="100%" height="100%" fill="#ffffff"/>
{{- range .Parts}}
<text class="head" x="12" y="{{add .Y 17}}">{{.Head}}</text>
{{- if .SVG.Nodes}}
<g transform="translate(0 {{add .Y 24}})">{{template "lineage-svg" .SVG}}</g>
{{- end}}
{{- range .Undrawn}}
<text class="{{.Class}}" x="24" y="{{.Y}}">{{.Text}}</text>
{{- end}}
{{- end}}
</svg>
`))
	return t.Execute(w, struct {
		W, H  int
		Parts []part
	}{width, max(y, 30), parts})
}

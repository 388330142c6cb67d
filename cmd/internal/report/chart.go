package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
)

// The timeline chart of a session: x is the position of each event in the
// capture, y its sequence; accepted snapshots are one line, inert events
// marks coloured by reason, file boundaries (reconnects) vertical rules.

// Chart geometry, in pixels.
const (
	chartW, chartH         = 960, 260
	chartLeft, chartRight  = 104, 16
	chartTop, chartBottom  = 14, 42
	chartPlotW, chartPlotH = chartW - chartLeft - chartRight, chartH - chartTop - chartBottom
	chartPad               = 8                 // between the frame and the outermost points
	timestampLike          = 1_000_000_000_000 // 2001-09-09 in Unix milliseconds
	timestampLikeMax       = 100_000_000_000_000
)

// reasonFill is the colour of each inert reason's marks, also in the
// legend and the table.
var reasonFill = map[replay.Reason]string{
	replay.ReasonStale:          "#e37400",
	replay.ReasonDuplicate:      "#9334e6",
	replay.ReasonForeignSession: "#5f6368",
	replay.ReasonNonSnapshot:    "#4285f4",
}

// chartSVG is a laid-out timeline.
type chartSVG struct {
	Title     string
	Line      string
	Dots      []chartMark
	Marks     []chartMark
	Bars      []chartBars
	Rings     []chartMark
	Rules     []chartRule
	YTicks    []chartTick
	XTicks    []chartTick
	YTitle    string
	XTitle    string
	Exact     bool
	Legend    []legendItem
	Aggregate string
	// X names the x axis: position or emittedAt.
	X string
}

// chartBars are the points of one reason in an aggregated chart, as
// path data: a short vertical stroke per point, spanning its sequences.
type chartBars struct{ Reason, Colour, D string }

// chartMark is one point; N is how many cited lines a ring stands for.
type chartMark struct {
	X, Y   float64
	N      int
	Colour string
	Reason string
	Tip    string
	Href   string
}

type chartRule struct {
	X     float64
	Label string
}

type chartTick struct {
	At    float64
	Label string
}

type legendItem struct{ Reason, Colour string }

// chartScale maps a session's positions (or emittedAt) and sequences to
// pixels.
type chartScale struct {
	c              *chartData
	byTime         bool
	x0, x1, lo, hi int64
}

func newChartScale(c *chartData, byTime bool) chartScale {
	sc := chartScale{c: c, byTime: byTime, x0: c.FirstX, x1: c.LastX, lo: c.MinSeq, hi: c.MaxSeq}
	if sc.lo == sc.hi {
		sc.lo, sc.hi = sc.lo-1, sc.hi+1
	}
	if byTime {
		sc.x0, sc.x1 = c.MinT, c.MaxT
	}
	return sc
}

// x places an offset from x0 on the plot.
func (sc chartScale) x(v float64) float64 {
	if sc.x1 == sc.x0 {
		return chartLeft + chartPlotW/2
	}
	span := float64(sc.x1 - sc.x0)
	return round1(chartLeft + chartPad + math.Max(0, math.Min(v, span))/span*(chartPlotW-2*chartPad))
}

// bx places a bucket: its earliest emittedAt, or the middle of its
// positions.
func (sc chartScale) bx(b *bucket) float64 {
	if sc.byTime {
		return sc.x(float64(b.T - sc.x0))
	}
	return sc.x(float64(b.Key*sc.c.W-sc.x0) + float64(sc.c.W-1)/2)
}

func (sc chartScale) y(seq int64) float64 {
	return round1(chartTop + chartPlotH - chartPad - float64(seq-sc.lo)/float64(sc.hi-sc.lo)*(chartPlotH-2*chartPad))
}

// layoutChart lays out a session's chart, with x the position in the
// capture or, byTime, the emittedAt. files names the captures by index;
// rings counts the lines findings cite in each bucket (ringCounts),
// anchored holds the rows of the tables.
func layoutChart(s *reportSession, files []string, byTime bool, rings []int, anchored map[linePos]bool) chartSVG {
	c := &s.Chart
	out := chartSVG{Title: "timeline of session " + termsafe.String(s.ID), Exact: c.W == 1, X: "position"}
	if byTime {
		out.X = "emittedAt"
	}
	if !c.Any {
		return out
	}
	sc := newChartScale(c, byTime)
	plotPoints(&out, sc, files, rings, anchored)
	for _, r := range c.Rules {
		v := r.X
		if byTime {
			v = r.T
		}
		out.Rules = append(out.Rules, chartRule{X: sc.x(float64(v-sc.x0)) - 1, Label: termsafe.Line(files[r.File], 40)})
	}
	out.YTicks, out.YTitle = seqTicks(sc.lo, sc.hi, sc.y)
	if byTime {
		for _, v := range niceTicks(0, sc.x1-sc.x0, 6) {
			out.XTicks = append(out.XTicks, chartTick{At: sc.x(float64(v)), Label: "+" + (time.Duration(v) * time.Millisecond).String()})
		}
		out.XTitle = "emittedAt from " + time.UnixMilli(sc.x0).UTC().Format("2006-01-02T15:04:05.000Z")
	} else {
		for _, v := range niceTicks(sc.x0, sc.x1, 6) {
			out.XTicks = append(out.XTicks, chartTick{At: sc.x(float64(v - sc.x0)), Label: strconv.FormatInt(v+1, 10)})
		}
		out.XTitle = fmt.Sprintf("event of the capture (%d to %d)", sc.x0+1, sc.x1+1)
	}
	if !out.Exact {
		out.Aggregate = fmt.Sprintf("Aggregated: each point stands for %d neighbouring positions of the capture, a bar spans the sequences of its events, a red ring marks a point with a line an error or warning finding cites; no point has a tooltip or link.", c.W)
	}
	for _, r := range chartReasons {
		out.Legend = append(out.Legend, legendItem{string(r), reasonFill[r]})
	}
	return out
}

// plotPoints draws the accepted line and the inert marks. Only the
// position chart has tooltips and links on every point: the emittedAt
// chart is the same points elsewhere, at half the bytes. An aggregated
// chart draws each reason as one path of short strokes, a few bytes per
// point.
func plotPoints(out *chartSVG, sc chartScale, files []string, rings []int, anchored map[linePos]bool) {
	detail := out.Exact && !sc.byTime
	var line []string
	bars := make([]strings.Builder, len(chartReasons))
	for i := range sc.c.Buckets {
		b := &sc.c.Buckets[i]
		x := sc.bx(b)
		pos := b.At
		ring := sc.y(b.Acc[0])
		if b.HasAcc {
			line = append(line, fmt.Sprintf("%g,%g", x, sc.y(b.Acc[0])))
			if b.Acc[1] != b.Acc[0] {
				line = append(line, fmt.Sprintf("%g,%g", x, sc.y(b.Acc[1])))
			}
			if detail {
				tip := fmt.Sprintf("%s accepted, sequence %d", pos.label(files), b.Acc[0])
				out.Dots = append(out.Dots, chartMark{X: x, Y: ring, Tip: tip, Href: href(anchored, pos)})
			}
		}
		for j, r := range chartReasons {
			in := b.Inert[j]
			switch {
			case in.N == 0:
			case !out.Exact:
				fmt.Fprintf(&bars[j], "M%g %gV%g", x, sc.y(in.Max), sc.y(in.Min))
			default:
				m := chartMark{X: x, Y: sc.y(in.Max), Colour: reasonFill[r], Reason: string(r)}
				if detail {
					m.Tip = fmt.Sprintf("%s %s, sequence %d", pos.label(files), r, in.Min)
					m.Href = href(anchored, pos)
				}
				out.Marks = append(out.Marks, m)
				ring = m.Y
			}
		}
		if rings[i] > 0 {
			out.Rings = append(out.Rings, chartMark{X: x, Y: ring, N: rings[i]})
		}
	}
	out.Line = strings.Join(line, " ")
	for j, r := range chartReasons {
		if bars[j].Len() > 0 {
			out.Bars = append(out.Bars, chartBars{Reason: string(r), Colour: reasonFill[r], D: bars[j].String()})
		}
	}
}

// ringCounts counts, per bucket of a chart, the cited lines among its
// events, each once: every one, whether the chart is exact or aggregated.
func (c *Collector) ringCounts(ch *chartData, cited []linePos) []int {
	n := make([]int, len(ch.Buckets))
	keys := make([]ordKey, 0, len(cited))
	for _, p := range cited {
		if k, ok := c.ord(p); ok {
			keys = append(keys, k)
		}
	}
	// Each line once, though several findings cite it.
	slices.SortFunc(keys, ordKey.compare)
	for _, k := range slices.Compact(keys) {
		i, found := slices.BinarySearchFunc(ch.Buckets, k, func(b bucket, k ordKey) int {
			switch {
			case b.Last.compare(k) < 0:
				return -1
			case b.First.compare(k) > 0:
				return 1
			}
			return 0
		})
		if found {
			n[i]++
		}
	}
	return n
}

func href(anchored map[linePos]bool, pos linePos) string {
	if anchored[pos] {
		return pos.anchor()
	}
	return ""
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// seqTicks labels the sequence axis: plain numbers, or, when sequences
// look like Unix-millisecond timestamps, offsets in seconds from the
// lowest tick, whose instant the axis title gives.
func seqTicks(lo, hi int64, py func(int64) float64) ([]chartTick, string) {
	vals := niceTicks(lo, hi, 5)
	if lo >= timestampLike && hi < timestampLikeMax && len(vals) > 0 {
		base := vals[0]
		var ticks []chartTick
		for _, v := range vals {
			ticks = append(ticks, chartTick{At: py(v), Label: "+" + strconv.FormatFloat(float64(v-base)/1000, 'f', -1, 64) + " s"})
		}
		t := time.UnixMilli(base).UTC().Format("2006-01-02T15:04:05.000Z")
		return ticks, "sequence (ms timestamp) from " + t
	}
	var ticks []chartTick
	for _, v := range vals {
		ticks = append(ticks, chartTick{At: py(v), Label: strconv.FormatInt(v, 10)})
	}
	return ticks, "sequence"
}

// niceTicks returns about n round values between lo and hi.
func niceTicks(lo, hi int64, n int) []int64 {
	if hi <= lo {
		return []int64{lo}
	}
	raw := float64(hi-lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	st := max(int64(step), 1)
	first := (lo + st - 1) / st * st
	if lo < 0 {
		first = lo / st * st
	}
	var out []int64
	for v := first; v <= hi && len(out) < 2*n+2; v += st {
		out = append(out, v)
	}
	return out
}

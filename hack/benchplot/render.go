package main

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"github.com/intentjournal/intentjournal/internal/atomicfile"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Plot size: legible when docs/benchmarks.md shows it at page width. A
// figure of panels side by side is as high, and wider.
const (
	plotWidth   = 8 * vg.Inch
	plotHeight  = 5 * vg.Inch
	panelsWidth = 12 * vg.Inch
)

// palette is colour-blind safe (Okabe-Ito): measured lines first.
var palette = []color.Color{
	color.RGBA{0, 114, 178, 255},   // blue
	color.RGBA{213, 94, 0, 255},    // vermillion
	color.RGBA{0, 158, 115, 255},   // bluish green
	color.RGBA{204, 121, 167, 255}, // reddish purple
	color.RGBA{86, 180, 233, 255},  // sky blue
}

// line is one labelled polyline with point markers.
type line struct {
	label  string
	xys    plotter.XYs
	dashed bool
	dotted bool // a reference, not a measurement: no point markers
}

// panels are plots drawn side by side under one title.
type panels struct {
	title string
	plots []*plot.Plot
}

// recoveryPlot draws wall time, ideal and ideal+API against N, log-log.
func recoveryPlot(pts []recoveryPoint) (*plot.Plot, error) {
	wall, ideal, both := make(plotter.XYs, len(pts)), make(plotter.XYs, len(pts)), make(plotter.XYs, len(pts))
	ticks := make(plot.ConstantTicks, 0, len(pts))
	runs := 0
	for i, p := range pts {
		x := float64(p.N)
		wall[i] = plotter.XY{X: x, Y: p.Wall}
		ideal[i] = plotter.XY{X: x, Y: p.Ideal}
		both[i] = plotter.XY{X: x, Y: p.IdealPlusAPI()}
		ticks = append(ticks, plot.Tick{Value: x, Label: countLabel(p.N)})
		runs = max(runs, p.Runs)
	}
	p := newPlot(
		"Recovery pass: wall time against unsettled intents "+roundsNote(runs),
		"unsettled intents N (log)", "seconds (log)")
	p.X.Tick.Marker = ticks
	if err := addLines(p, []line{
		{label: "measured wall time", xys: wall},
		{label: "ideal + API writes (ideal + measured Get+Patch time)", xys: both, dashed: true},
		{label: "ideal (N x lookup latency / concurrency)", xys: ideal, dashed: true},
	}); err != nil {
		return nil, err
	}
	pad(p)
	return p, nil
}

// journalPlot draws durable writes/s against concurrent writers, log-log.
func journalPlot(ss []throughputSeries) (*plot.Plot, error) {
	var lines []line
	seen := map[int]bool{}
	var ticks plot.ConstantTicks
	runs := 0
	for _, s := range ss {
		xys := make(plotter.XYs, len(s.Points))
		for i, pt := range s.Points {
			xys[i] = plotter.XY{X: float64(pt.C), Y: pt.WritesPerS}
			runs = max(runs, pt.Runs)
			if !seen[pt.C] {
				seen[pt.C] = true
				ticks = append(ticks, plot.Tick{Value: float64(pt.C), Label: strconv.Itoa(pt.C)})
			}
		}
		lines = append(lines, line{label: s.Label, xys: xys, dashed: len(lines) >= 2})
	}
	p := newPlot(
		"Journal create throughput against concurrency "+roundsNote(runs),
		"concurrent writers c (log)", "durable writes/s (log)")
	p.X.Tick.Marker = ticks
	if err := addLines(p, lines); err != nil {
		return nil, err
	}
	pad(p)
	return p, nil
}

// passPanels draws the in-provider pass against N: on the left its wall
// time, log-log, with the line linear growth from the smallest N would
// follow; on the right the restarted provider's peak RSS, on a log x axis
// and a linear y axis from zero.
func passPanels(pts []passPoint) (panels, error) {
	wall, linear, rss := make(plotter.XYs, len(pts)), make(plotter.XYs, len(pts)), make(plotter.XYs, len(pts))
	ticks := make(plot.ConstantTicks, 0, len(pts))
	runs := 0
	for i, p := range pts {
		x := float64(p.N)
		wall[i] = plotter.XY{X: x, Y: p.Wall}
		linear[i] = plotter.XY{X: x, Y: pts[0].Wall * x / float64(pts[0].N)}
		rss[i] = plotter.XY{X: x, Y: p.PeakRSSMiB}
		ticks = append(ticks, plot.Tick{Value: x, Label: countLabel(p.N)})
		runs = max(runs, p.Runs)
	}
	const xLabel = "RecordSets and Networks per kind N (log)"

	left := newPlot("Pass wall time", xLabel, "seconds (log)")
	left.X.Tick.Marker = ticks
	if err := addLines(left, []line{
		{label: "measured (the pass line's wall)", xys: wall},
		{label: "linear from N=" + countLabel(pts[0].N), xys: linear, dotted: true},
	}); err != nil {
		return panels{}, err
	}
	pad(left)

	right := newPlot("Peak RSS of the restarted provider (VmHWM)", xLabel, "MiB")
	right.X.Tick.Marker = ticks
	right.Y.Scale, right.Y.Tick.Marker = plot.LinearScale{}, plot.DefaultTicks{}
	if err := addLines(right, []line{{label: "peak RSS, from its start to the pass's end", xys: rss}}); err != nil {
		return panels{}, err
	}
	// The top fifth is left to the legend.
	padLog(&right.X)
	right.Y.Min, right.Y.Max = 0, 1.3*right.Y.Max

	return panels{
		title: "The in-provider recovery pass (make demo, wrapped, SIGKILL) against N per kind " + roundsNote(runs),
		plots: []*plot.Plot{left, right},
	}, nil
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = x, y
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.Y.Tick.Marker = plot.TickerFunc(logTicks)
	// Both plots rise to the right: the top left corner is free.
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(8), -vg.Points(4)
	p.Legend.Padding = vg.Points(3)
	p.Add(plotter.NewGrid())
	return p
}

// addLines adds ls to p, with a legend entry each, in palette order.
func addLines(p *plot.Plot, ls []line) error {
	for i, l := range ls {
		c := palette[i%len(palette)]
		ln, pts, err := plotter.NewLinePoints(l.xys)
		if err != nil {
			return fmt.Errorf("cannot draw %q: %w", l.label, err)
		}
		ln.Color, ln.Width = c, vg.Points(1.5)
		switch {
		case l.dashed:
			ln.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		case l.dotted:
			ln.Dashes = []vg.Length{vg.Points(1.5), vg.Points(3)}
			p.Add(ln)
			p.Legend.Add(l.label, ln)
			continue
		}
		pts.Color, pts.Shape = c, draw.CircleGlyph{}
		pts.Radius = vg.Points(2.5)
		p.Add(ln, pts)
		p.Legend.Add(l.label, ln, pts)
	}
	return nil
}

// pad widens both log axes by a fifth of a decade on each side, so the end
// points and their labels are not on the frame, and the y axis by a further
// half decade at the top, for the legend.
func pad(p *plot.Plot) {
	padLog(&p.X)
	padLog(&p.Y)
	p.Y.Max *= math.Pow(10, 0.5)
}

// padLog widens a log axis by a fifth of a decade on each side.
func padLog(a *plot.Axis) {
	if a.Min > 0 && a.Max > 0 {
		a.Min, a.Max = a.Min/math.Pow(10, 0.2), a.Max*math.Pow(10, 0.2)
	}
}

// roundsNote says how many rounds a plot's medians come from.
func roundsNote(runs int) string {
	if runs <= 1 {
		return "(one round)"
	}
	return fmt.Sprintf("(medians of up to %d rounds)", runs)
}

// logTicks labels 1, 2 and 5 times each power of ten in [lo, hi], with
// unlabelled minor ticks between. Unlike plot.LogTicks it never panics: a
// range that is not positive gets no ticks.
func logTicks(lo, hi float64) []plot.Tick {
	if !(lo > 0 && hi >= lo) || math.IsInf(hi, 0) {
		return nil
	}
	var ts []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		d := math.Pow(10, e)
		for m := 1; m < 10; m++ {
			v := float64(m) * d
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = shortNum(v)
			}
			ts = append(ts, t)
		}
	}
	return ts
}

// shortNum writes 20000 as 20k and 3000000 as 3M.
func shortNum(v float64) string {
	switch {
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 3, 64) + "M"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'g', 3, 64) + "k"
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}

// countLabel writes 1000 as 1k and 100000 as 100k.
func countLabel(n int) string {
	if n >= 1000 && n%1000 == 0 {
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}

// renderPNG renders p as a PNG.
func renderPNG(p *plot.Plot) ([]byte, error) {
	w, err := p.WriterTo(plotWidth, plotHeight, "png")
	if err != nil {
		return nil, fmt.Errorf("cannot render plot %q: %w", p.Title.Text, err)
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("cannot encode plot %q as PNG: %w", p.Title.Text, err)
	}
	return buf.Bytes(), nil
}

// renderPanelsPNG renders f's title across the top and its plots side by
// side below it, their data areas aligned, as a PNG.
func renderPanelsPNG(f panels) ([]byte, error) {
	c, err := draw.NewFormattedCanvas(panelsWidth, plotHeight, "png")
	if err != nil {
		return nil, fmt.Errorf("cannot render plot %q: %w", f.title, err)
	}
	dc := draw.New(c)
	// The title as plot.Plot.Draw sets one, a little larger and lower.
	sty := plot.New().Title.TextStyle
	sty.Font.Size *= 1.15
	top := vg.Points(6)
	dc.FillText(sty, vg.Point{X: dc.Center().X, Y: dc.Max.Y - top + sty.FontExtents().Descent}, f.title)
	tiles := draw.Tiles{
		Rows: 1, Cols: len(f.plots),
		PadTop:  top + sty.Rectangle(f.title).Size().Y + vg.Points(10),
		PadX:    vg.Points(16),
		PadLeft: vg.Points(4), PadRight: vg.Points(8), PadBottom: vg.Points(4),
	}
	for i, tc := range plot.Align([][]*plot.Plot{f.plots}, tiles, dc)[0] {
		f.plots[i].Draw(tc)
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("cannot encode plot %q as PNG: %w", f.title, err)
	}
	return buf.Bytes(), nil
}

// writePNG renders p and writes it to path through a temporary file and a
// rename, so an existing plot is replaced whole or left as it was.
func writePNG(path string, p *plot.Plot) error {
	b, err := renderPNG(p)
	if err != nil {
		return err
	}
	return writeFile(path, b)
}

// writePanelsPNG renders f and writes it to path as writePNG does.
func writePanelsPNG(path string, f panels) error {
	b, err := renderPanelsPNG(f)
	if err != nil {
		return err
	}
	return writeFile(path, b)
}

func writeFile(path string, b []byte) error {
	if err := atomicfile.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}

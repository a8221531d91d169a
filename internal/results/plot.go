package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	stdfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/seastar-sim/seastar/params"
)

// figure is one plot of a metric against the message size (or another size-like
// identifying field on a log2 axis).
type figure struct {
	file   string // base name; .png and .svg are written
	metric string // row field on the y axis
	what   string // for the title
	ylabel string
	logY   bool
	x      string // row field on the x axis; "" is size_bytes
	xwhat  string // for the title and the axis; "" is the message size
}

func (f figure) xKey() string {
	if f.x == "" {
		return "size_bytes"
	}
	return f.x
}

func (f figure) xName() string {
	if f.xwhat == "" {
		return "message size"
	}
	return f.xwhat
}

// figures are the plots drawn for benchmarks whose rows have size_bytes, as the
// SeaStar and Portals papers draw them: latency on log-log axes, bandwidth on a log
// size axis and a linear bandwidth axis from zero.
var figures = []figure{
	{"latency_vs_size", "latency_us", "Latency", "latency (µs)", true, "", ""},
	{"bandwidth_vs_size", "bandwidth_MBps", "Bandwidth", "bandwidth (MB/s, 1 MB = 10^6 B)", false, "", ""},
	{"msgrate_vs_size", "msg_per_s", "Message rate", "messages per second", false, "", ""},
	{"msgrate_vs_priority", "msg_per_s", "Message rate", "messages per second", false, "priority", "priority list length"},
}

// Figure geometry and type sizes: about a column of a paper at 100%, readable when
// the PNG is shown at its natural size.
const (
	figWidth  = 7 * vg.Inch
	figHeight = 4.6 * vg.Inch
	figDPI    = 150
	titleSize = 13
	labelSize = 12
	tickSize  = 10
	maxLabels = 10 // labelled ticks on the size axis at most
)

// curve is one line of a figure: the rows of one combination of swept values and
// identifying fields other than size_bytes.
type curve struct {
	label []params.KV
	xy    plotter.XYs
	half  []float64 // with replicates: the 95% confidence half-width of each mean in xy
}

// number reads a row value as a float64.
func number(v any, ok bool) (float64, bool) {
	if !ok {
		return 0, false
	}
	switch v := v.(type) {
	case json.Number:
		f, err := v.Float64()
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	case float64:
		return v, !math.IsNaN(v) && !math.IsInf(v, 0)
	case int64:
		return float64(v), true
	case int:
		return float64(v), true
	}
	return 0, false
}

// curves groups the rows that have size_bytes and metric into curves, in order of
// first appearance, each sorted by size. With replicates (several seeds) the seeds of
// a configuration make one curve of means, with their 95% confidence half-widths.
func (rs *Set) curves(metric, xkey string) []*curve {
	var out []*curve
	byLabel := map[string]*curve{}
	reps := rs.replicated()
	for _, p := range rs.Points {
		for _, r := range p.Rows {
			x, okx := number(r.Get(xkey))
			y, oky := number(r.Get(metric))
			if !okx || !oky {
				continue
			}
			label := slices.Clone(p.Values)
			if reps {
				label = slices.DeleteFunc(label, func(kv params.KV) bool { return kv.Key == SeedKey })
			}
			for _, k := range r.Keys {
				if k != xkey && rs.IsID != nil && rs.IsID(k) {
					v, _ := r.Get(k)
					label = append(label, params.KV{Key: k, Value: CellText(v)})
				}
			}
			key := fmt.Sprint(label)
			c := byLabel[key]
			if c == nil {
				c = &curve{label: label}
				byLabel[key] = c
				out = append(out, c)
			}
			c.xy = append(c.xy, plotter.XY{X: x, Y: y})
		}
	}
	for _, c := range out {
		slices.SortStableFunc(c.xy, func(a, b plotter.XY) int { return cmpFloat(a.X, b.X) })
		if reps {
			c.meanByX()
		}
	}
	return out
}

// keep keeps the points of c that ok accepts (and their half-widths) and returns how
// many it removed: a log axis cannot show values <= 0.
func (c *curve) keep(ok func(plotter.XY) bool) (removed int) {
	var xy plotter.XYs
	var half []float64
	for i, p := range c.xy {
		if ok(p) {
			xy = append(xy, p)
			if c.half != nil {
				half = append(half, c.half[i])
			}
		}
	}
	removed = len(c.xy) - len(xy)
	c.xy = xy
	if c.half != nil {
		c.half = half
	}
	return removed
}

// positiveY and positiveX accept the points a log y or x axis can show.
func positiveY(p plotter.XY) bool { return p.Y > 0 }
func positiveX(p plotter.XY) bool { return p.X > 0 }

// addCurves draws cs into p, each with its style and legend name, its x values through
// x and its y values through log10 when logY, with error bars where the curve has
// replicates; it returns the lines drawn, for placeLegend.
func addCurves(p *plot.Plot, cs []*curve, names []string, styles []curveStyle, logY bool, x func(float64) float64) ([]plotter.XYs, error) {
	var lines []plotter.XYs
	for i, c := range cs {
		xy := slices.Clone(c.xy)
		for j := range xy {
			xy[j].X = x(xy[j].X)
			if logY {
				xy[j].Y = math.Log10(xy[j].Y)
			}
		}
		lines = append(lines, xy)
		line, points, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, err
		}
		st := styles[i]
		col := plotutil.Color(st.color)
		line.Color, line.Width = col, vg.Points(1.5)
		line.Dashes = plotutil.Dashes(st.dash + st.color/7) // plotutil has seven colours
		points.Shape, points.Color, points.Radius = plotutil.Shape(st.dash), col, vg.Points(3)
		p.Add(line, points)
		if c.half != nil {
			bars, err := errorBars(xy, c, logY)
			if err != nil {
				return nil, err
			}
			bars.Color = col
			p.Add(bars)
		}
		if names[i] != "" {
			p.Legend.Add(names[i], line, points)
		}
	}
	return lines, nil
}

// errorBars are c's 95% confidence intervals around the plotted points xy (already
// transformed: log10 of the value when logY, where the interval's lower end is
// clamped above 0).
func errorBars(xy plotter.XYs, c *curve, logY bool) (*plotter.YErrorBars, error) {
	pts := make(errPoints, len(xy))
	for i := range xy {
		pts[i].XY = xy[i]
		lo, hi := c.half[i], c.half[i]
		if logY {
			m := c.xy[i].Y
			lo = xy[i].Y - math.Log10(max(m-c.half[i], m/1000))
			hi = math.Log10(m+c.half[i]) - xy[i].Y
		}
		pts[i].low, pts[i].high = lo, hi
	}
	return plotter.NewYErrorBars(pts)
}

// errPoints are points with their y errors, for plotter.NewYErrorBars.
type errPoints []struct {
	plotter.XY
	low, high float64
}

func (e errPoints) Len() int                        { return len(e) }
func (e errPoints) XY(i int) (float64, float64)     { return e[i].X, e[i].Y }
func (e errPoints) YError(i int) (float64, float64) { return e[i].low, e[i].high }

// replicated reports whether rs has replicates: a seed key with several values.
func (rs *Set) replicated() bool {
	if !slices.Contains(rs.Keys, SeedKey) {
		return false
	}
	var seen string
	for _, p := range rs.Points {
		for _, kv := range p.Values {
			if kv.Key == SeedKey {
				if seen != "" && kv.Value != seen {
					return true
				}
				seen = kv.Value
			}
		}
	}
	return false
}

// meanByX replaces the points of c (sorted by x) that share an x by their mean, and
// records the 95% confidence half-width of each mean.
func (c *curve) meanByX() {
	var xy plotter.XYs
	c.half = nil
	for i := 0; i < len(c.xy); {
		j := i
		var ys []float64
		for ; j < len(c.xy) && c.xy[j].X == c.xy[i].X; j++ {
			ys = append(ys, c.xy[j].Y)
		}
		st := summarize(ys)
		half := 0.0
		if !math.IsNaN(st.hi) {
			half = st.hi - st.mean
		}
		xy = append(xy, plotter.XY{X: c.xy[i].X, Y: st.mean})
		c.half = append(c.half, half)
		i = j
	}
	c.xy = xy
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// curveStyle picks a curve's colour and its dash pattern and marker shape.
type curveStyle struct{ color, dash int }

// legends splits the curves' labels into the parts that differ between curves (the
// legend of each) and the parts common to all (for the title), and styles the
// curves: with one varying key every curve has its own colour; with more, the last
// varying key picks the dash pattern and marker, and the others the colour, so that
// a 2x2 sweep reads as two colours, solid and dashed (one marker per dash).
func legends(cs []*curve) (names []string, common []string, styles []curveStyle) {
	var keys []string
	values := map[string][]string{} // key -> distinct values
	for _, c := range cs {
		for _, kv := range c.label {
			if !slices.Contains(keys, kv.Key) {
				keys = append(keys, kv.Key)
			}
			if !slices.Contains(values[kv.Key], kv.Value) {
				values[kv.Key] = append(values[kv.Key], kv.Value)
			}
		}
	}
	varying := func(k string) bool {
		if len(values[k]) > 1 {
			return true
		}
		for _, c := range cs { // present in some curves only
			if !slices.ContainsFunc(c.label, func(kv params.KV) bool { return kv.Key == k }) {
				return true
			}
		}
		return false
	}
	var vary []string
	for _, k := range keys {
		if varying(k) {
			vary = append(vary, k)
		} else {
			common = append(common, k+"="+values[k][0])
		}
	}
	var heads []string // combinations of the varying keys but the last, for colours
	for _, c := range cs {
		var parts, head []string
		dash := 0
		for _, kv := range c.label {
			if !slices.Contains(vary, kv.Key) {
				continue
			}
			parts = append(parts, kv.Key+"="+kv.Value)
			if len(vary) > 1 && kv.Key == vary[len(vary)-1] {
				dash = slices.Index(values[kv.Key], kv.Value)
			} else {
				head = append(head, kv.Key+"="+kv.Value)
			}
		}
		h := strings.Join(head, ", ")
		if !slices.Contains(heads, h) {
			heads = append(heads, h)
		}
		names = append(names, strings.Join(parts, ", "))
		styles = append(styles, curveStyle{color: slices.Index(heads, h), dash: dash})
	}
	return names, common, styles
}

// WritePlots draws every figure that rs has data for into dir and returns the
// files written and notes for run.json.
func (rs *Set) WritePlots(dir string) (files, notes []string, err error) {
	for _, f := range figures {
		cs := rs.curves(f.metric, f.xKey())
		p, note, ok := rs.draw(f, cs)
		if note != "" {
			notes = append(notes, f.file+": "+note)
		}
		if !ok {
			continue
		}
		for _, ext := range []string{"png", "svg"} {
			b, err := render(p, ext)
			if err != nil {
				return nil, nil, fmt.Errorf("%s.%s: %w", f.file, ext, err)
			}
			name := f.file + "." + ext
			if err := WriteFileAtomic(filepath.Join(dir, name), b); err != nil {
				return nil, nil, err
			}
			files = append(files, name)
		}
	}
	return files, notes, nil
}

// draw makes the plot of f over the curves cs. It returns ok false when there is
// nothing worth a figure: no curve, or fewer than two sizes. The log axes are drawn
// by plotting log2(size) and log10(value) on linear axes with ticks labelled in the
// original units (gonum's log scale misplaces the axis labels). Sizes of 0 B, which
// a log axis cannot show, are drawn one octave left of the smallest size, at a tick
// labelled 0; non-positive values on a log axis are left out, with a note.
func (rs *Set) draw(f figure, cs []*curve) (p *plot.Plot, note string, ok bool) {
	var sizes []float64
	minPos := math.Inf(1)
	dropped := 0
	for _, c := range cs {
		if f.logY {
			dropped += c.keep(positiveY)
		}
		for _, xy := range c.xy {
			if !slices.Contains(sizes, xy.X) {
				sizes = append(sizes, xy.X)
			}
			if xy.X > 0 {
				minPos = min(minPos, xy.X)
			}
		}
	}
	cs = slices.DeleteFunc(cs, func(c *curve) bool { return len(c.xy) == 0 })
	if len(sizes) < 2 || math.IsInf(minPos, 1) {
		if len(cs) > 0 {
			if f.x == "" {
				return nil, "not drawn: fewer than two message sizes above 0 B", false
			}
			return nil, fmt.Sprintf("not drawn: fewer than two values of %s above 0", f.x), false
		}
		return nil, "", false
	}
	var notes []string
	zeroAt := math.NaN() // log2 position of size 0
	if slices.Contains(sizes, 0) {
		zeroAt = math.Floor(math.Log2(minPos)) - 1
		notes = append(notes, fmt.Sprintf("size 0 B drawn at the tick labelled 0, one octave left of %sB", sizeLabel(math.Exp2(zeroAt+1))))
	}
	if dropped > 0 {
		notes = append(notes, fmt.Sprintf("%d values <= 0 left out of the log axis", dropped))
	}

	p = plot.New()
	names, common, styles := legends(cs)
	p.Title.Text = fmt.Sprintf("%s vs %s: %s", f.what, f.xName(), rs.Title)
	if len(common) > 0 {
		p.Title.Text += "\n" + strings.Join(common, ", ")
	}
	p.Title.TextStyle.Font = sans(titleSize, stdfont.WeightBold)
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text = "message size (bytes, log scale)"
	if f.x != "" {
		p.X.Label.Text = f.xName() + " (log scale)"
	}
	p.Y.Label.Text = f.ylabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = sans(labelSize, stdfont.WeightNormal)
		a.Tick.Label.Font = sans(tickSize, stdfont.WeightNormal)
	}
	p.Legend.TextStyle.Font = sans(tickSize, stdfont.WeightNormal)
	p.Legend.Padding = vg.Points(2)
	p.X.Tick.Marker = sizeTicks{zeroAt: zeroAt}
	if f.logY {
		p.Y.Tick.Marker = logTicks{}
	} else {
		p.Y.Tick.Marker = linearTicks{}
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 225}
	grid.Horizontal.Color = color.Gray{Y: 225}
	p.Add(grid)
	lines, err := addCurves(p, cs, names, styles, f.logY, func(x float64) float64 {
		if x == 0 {
			return zeroAt
		}
		return math.Log2(x)
	})
	if err != nil {
		return nil, "", false
	}
	p.X.Min, p.X.Max = p.X.Min-0.3, p.X.Max+0.3 // room for the end markers
	if f.logY {
		lo, hi := snap125(math.Pow(10, p.Y.Min), math.Pow(10, p.Y.Max))
		p.Y.Min, p.Y.Max = math.Log10(lo), math.Log10(hi)
	} else {
		p.Y.Min, p.Y.Max = 0, niceCeil(p.Y.Max)
	}
	placeLegend(p, lines)
	return p, strings.Join(notes, "; "), true
}

// legendCorner is a position of the legend inside the data area.
type legendCorner struct{ top, left bool }

// legendCorners in order of preference: top left is where latency and bandwidth
// curves, which rise with the size, usually leave room.
var legendCorners = []legendCorner{{true, true}, {false, false}, {true, false}, {false, true}}

// legendInset is the distance between the legend and the axes.
const legendInset = 6 * vg.Millimeter / 2

// placeLegend puts the legend of p in the corner of the data area where it covers
// the fewest points of the lines (sampled along their segments).
func placeLegend(p *plot.Plot, lines []plotter.XYs) {
	da := withMargin(draw.NewCanvas(&recorder.Canvas{}, figWidth, figHeight))
	dc := p.DataCanvas(da)
	tx, ty := p.Transforms(&dc)
	size := p.Legend.Rectangle(dc).Size()
	const samples = 16 // per segment
	best, bestHits := legendCorners[0], -1
	for _, corner := range legendCorners {
		var r vg.Rectangle
		if corner.left {
			r.Min.X = dc.Min.X + legendInset
		} else {
			r.Min.X = dc.Max.X - legendInset - size.X
		}
		if corner.top {
			r.Min.Y = dc.Max.Y - legendInset - size.Y
		} else {
			r.Min.Y = dc.Min.Y + legendInset
		}
		r.Max = r.Min.Add(size)
		hits := 0
		for _, xy := range lines {
			for i := range xy {
				for k := range samples {
					if i == len(xy)-1 && k > 0 {
						break
					}
					pt := vg.Point{X: tx(xy[i].X), Y: ty(xy[i].Y)}
					if k > 0 {
						f := float64(k) / samples
						pt = vg.Point{X: tx(xy[i].X + f*(xy[i+1].X-xy[i].X)), Y: ty(xy[i].Y + f*(xy[i+1].Y-xy[i].Y))}
					}
					if pt.X >= r.Min.X && pt.X <= r.Max.X && pt.Y >= r.Min.Y && pt.Y <= r.Max.Y {
						hits++
					}
				}
			}
		}
		if bestHits < 0 || hits < bestHits {
			best, bestHits = corner, hits
		}
	}
	p.Legend.Top, p.Legend.Left = best.top, best.left
	// The legend is drawn in the area inside the axes, which the data area pads.
	p.Legend.XOffs, p.Legend.YOffs = legendInset, -legendInset
	if !best.left {
		p.Legend.XOffs = -legendInset - (da.Max.X - dc.Max.X)
	}
	if !best.top {
		p.Legend.YOffs = legendInset
	}
}

// sans is the Liberation Sans face of the given size and weight.
func sans(size float64, weight stdfont.Weight) font.Font {
	return font.From(font.Font{Typeface: "Liberation", Variant: "Sans", Weight: weight}, vg.Points(size))
}

// render returns p drawn as a PNG or SVG file.
func render(p *plot.Plot, ext string) ([]byte, error) {
	var buf bytes.Buffer
	switch ext {
	case "png":
		c := vgimg.NewWith(vgimg.UseWH(figWidth, figHeight), vgimg.UseDPI(figDPI))
		p.Draw(withMargin(draw.New(c)))
		if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
			return nil, err
		}
	case "svg":
		c := vgsvg.New(figWidth, figHeight)
		p.Draw(withMargin(draw.New(c)))
		if _, err := c.WriteTo(&buf); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown image format %q", ext)
	}
	return buf.Bytes(), nil
}

// figMargin is the white space around a figure.
const figMargin = 8 * vg.Millimeter / 2

// withMargin is c less a margin on every side.
func withMargin(c draw.Canvas) draw.Canvas {
	return draw.Crop(c, figMargin/2, -figMargin, figMargin/2, -figMargin/2)
}

// sizeTicks marks a size axis in log2 units (x = log2 bytes): a tick at every power
// of two, labelled in binary multiples (512, 1K, 2M), at most maxLabels of them, and
// a tick labelled 0 at zeroAt unless it is NaN.
type sizeTicks struct{ zeroAt float64 }

func (t sizeTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	if !math.IsNaN(t.zeroAt) {
		ticks = append(ticks, plot.Tick{Value: t.zeroAt, Label: "0"})
		lo = t.zeroAt + 1
	}
	first, last := int(math.Ceil(lo-1e-9)), int(math.Floor(hi+1e-9))
	step := 1
	for (last-first)/step+1 > maxLabels {
		step *= 2
	}
	for e := first; e <= last; e++ {
		tk := plot.Tick{Value: float64(e)}
		if e%step == 0 {
			tk.Label = sizeLabel(math.Exp2(float64(e)))
		}
		ticks = append(ticks, tk)
	}
	return ticks
}

// sizeLabel prints a size in bytes with binary multiples: 8, 1K, 1.5K, 2M.
func sizeLabel(v float64) string {
	for _, u := range []struct {
		f float64
		s string
	}{{1 << 40, "T"}, {1 << 30, "G"}, {1 << 20, "M"}, {1 << 10, "K"}} {
		if v >= u.f {
			return strconv.FormatFloat(v/u.f, 'g', 4, 64) + u.s
		}
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// logTicks marks a log axis in log10 units (y = log10 value): labelled ticks at 1,
// 2 and 5 times the powers of ten (see fineLog) or at the powers of ten only, and
// minor ticks at every other integer multiple.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	fine := fineLog(math.Pow(10, lo), math.Pow(10, hi))
	var ticks []plot.Tick
	for d := int(math.Floor(lo)); d <= int(math.Ceil(hi)); d++ {
		base := math.Pow10(d)
		for m := 1; m <= 9; m++ {
			v := float64(m) * base
			tk := plot.Tick{Value: math.Log10(v)}
			if m == 1 || (fine && (m == 2 || m == 5)) {
				tk.Label = strconv.FormatFloat(v, 'g', 6, 64)
			}
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

// fineLog reports whether a log axis from lo to hi is labelled at 1, 2 and 5 times
// the powers of ten rather than at the powers of ten only: when it spans at most
// three decades.
func fineLog(lo, hi float64) bool { return math.Log10(hi/lo) <= 3 }

// snap125 widens [lo, hi] (lo > 0) to the nearest labelled ticks of logTicks, so
// that both ends of the axis carry a label.
func snap125(lo, hi float64) (float64, float64) {
	if lo <= 0 || hi <= 0 || lo > hi {
		return lo, hi
	}
	steps := []float64{1, 10}
	if fineLog(lo, hi) {
		steps = []float64{1, 2, 5, 10}
	}
	down := func(v float64) float64 {
		base := math.Pow10(int(math.Floor(math.Log10(v))))
		best := base
		for _, m := range steps {
			if m*base <= v*(1+1e-12) {
				best = m * base
			}
		}
		return best
	}
	up := func(v float64) float64 {
		base := math.Pow10(int(math.Floor(math.Log10(v))))
		for _, m := range steps {
			if m*base >= v*(1-1e-12) {
				return m * base
			}
		}
		return 10 * base
	}
	return down(lo), up(hi)
}

// linearTicks marks a linear axis with 4 to 10 labelled ticks at a step of 1, 2 or
// 5 times a power of ten, and four minor ticks between labels.
type linearTicks struct{}

func (linearTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 6, 64)}}
	}
	step := niceStep((hi - lo) / 6)
	var ticks []plot.Tick
	for i := math.Ceil(lo/step*5 - 1e-9); i <= math.Floor(hi/step*5+1e-9); i++ {
		v := i * step / 5
		if v == 0 {
			v = 0 // not -0
		}
		tk := plot.Tick{Value: v}
		if math.Mod(i, 5) == 0 {
			tk.Label = strconv.FormatFloat(v, 'g', 6, 64)
		}
		ticks = append(ticks, tk)
	}
	return ticks
}

// niceStep is the smallest of 1, 2 and 5 times a power of ten that is >= x > 0.
func niceStep(x float64) float64 {
	base := math.Pow10(int(math.Floor(math.Log10(x))))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*base >= x*(1-1e-12) {
			return m * base
		}
	}
	return 10 * base
}

// niceCeil rounds a linear axis maximum x > 0 up to the next labelled tick of
// linearTicks over [0, x], leaving room above the highest value.
func niceCeil(x float64) float64 {
	if x <= 0 {
		return 1
	}
	step := niceStep(x / 6)
	return math.Ceil(x*1.02/step) * step
}

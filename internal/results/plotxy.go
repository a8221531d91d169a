package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	stdfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/seastar-sim/seastar/params"
)

// Plots of a metric against any column of the tidy table (a swept key, an
// identifying field such as load_offered): `run plot` draws one from a results
// directory, and a sweep draws one per metric against each numeric swept key.

// XYPlot is what to draw: y = the values of metric, against column x, one curve per
// combination of the series columns; replicates (several seeds) become means with
// 95% confidence error bars.
type XYPlot struct {
	Title      string
	X, Metric  string
	Series     []string // nil: every column that varies but x, seed, point, row and metric
	LogX, LogY bool
	XUnit      string // for the axis label
}

// Table is a tidy table in memory.
type Table struct {
	cols []string
	recs [][]any
}

func (t *Table) col(name string) int { return slices.Index(t.cols, name) }

// ReadTable reads DIR/results.json.
func ReadTable(dir string) (*Table, error) {
	b, err := os.ReadFile(filepath.Join(dir, ResultsJSON))
	if err != nil {
		return nil, fmt.Errorf("%s is not a results directory: %w", dir, err)
	}
	var rows []Row
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ResultsJSON), err)
	}
	t := &Table{}
	for _, r := range rows {
		for _, k := range r.Keys {
			if !slices.Contains(t.cols, k) {
				t.cols = append(t.cols, k)
			}
		}
	}
	for _, r := range rows {
		rec := make([]any, len(t.cols))
		for i, c := range t.cols {
			rec[i], _ = r.Get(c)
		}
		t.recs = append(t.recs, rec)
	}
	return t, nil
}

// seriesColumns are the columns that tell curves apart by default: those whose
// value varies among the metric's records, except x, the seed, the indexes, the
// metric and value, and the _text twins of numeric keys.
func (t *Table) seriesColumns(x, metric string) []string {
	mi := t.col("metric")
	var out []string
	for i, c := range t.cols {
		switch {
		case c == x, c == SeedKey, c == "point", c == "row", c == "metric", c == "value", c == x+textSuffix,
			strings.HasSuffix(c, textSuffix):
			continue
		}
		var first string
		varies := false
		for j, r := range t.recs {
			if CellText(r[mi]) != metric {
				continue
			}
			if v := CellText(r[i]); j > 0 && first != "" && v != first {
				varies = true
				break
			} else if first == "" {
				first = v
			}
		}
		if varies {
			out = append(out, c)
		}
	}
	return out
}

// Curves groups the metric's records into curves: label = the series columns (their
// _text twin when there is one, for display), x = column x as a number, y = value;
// with replicates, the mean of the seeds per x, with error bars.
func (t *Table) Curves(pl *XYPlot) ([]*curve, error) {
	xi, mi, vi, si := t.col(pl.X), t.col("metric"), t.col("value"), t.col(SeedKey)
	if xi < 0 {
		return nil, fmt.Errorf("--x %s: no such column (columns: %s)", pl.X, strings.Join(t.cols, ", "))
	}
	series := pl.Series
	if series == nil {
		series = t.seriesColumns(pl.X, pl.Metric)
	}
	for _, s := range series {
		if t.col(s) < 0 {
			return nil, fmt.Errorf("--series %s: no such column (columns: %s)", s, strings.Join(t.cols, ", "))
		}
	}
	seeds := map[string]bool{}
	var out []*curve
	byLabel := map[string]*curve{}
	found := false
	for _, r := range t.recs {
		if CellText(r[mi]) != pl.Metric {
			continue
		}
		found = true
		x, okx := number(r[xi], true)
		y, oky := number(r[vi], true)
		if !okx || !oky {
			continue
		}
		if si >= 0 && !slices.Contains(series, SeedKey) && pl.X != SeedKey {
			seeds[CellText(r[si])] = true
		}
		var label []params.KV
		for _, s := range series {
			c := t.col(s)
			if tc := t.col(s + textSuffix); tc >= 0 {
				c = tc
			}
			label = append(label, params.KV{Key: s, Value: CellText(r[c])})
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
	if !found {
		var ms []string
		for _, r := range t.recs {
			if m := CellText(r[mi]); !slices.Contains(ms, m) {
				ms = append(ms, m)
			}
		}
		return nil, fmt.Errorf("--y %s: no such metric (metrics: %s)", pl.Metric, strings.Join(ms, ", "))
	}
	for _, c := range out {
		slices.SortStableFunc(c.xy, func(a, b plotter.XY) int { return cmpFloat(a.X, b.X) })
		if len(seeds) > 1 {
			c.meanByX()
		}
	}
	return out, nil
}

// maxCurves is the most curves a figure a sweep draws by itself holds; `run plot
// --series` draws any number.
const maxCurves = 12

// DrawXY makes the figure of pl over cs; ok false (with a reason) when there is not
// enough to draw: no curve with two x values, or values a log axis cannot show.
func DrawXY(pl *XYPlot, cs []*curve) (p *plot.Plot, note string, err error) {
	xs := map[float64]bool{}
	dropped := 0
	for _, c := range cs {
		if pl.LogY {
			dropped += c.keep(positiveY)
		}
		if pl.LogX {
			dropped += c.keep(positiveX)
		}
		for _, q := range c.xy {
			xs[q.X] = true
		}
	}
	cs = slices.DeleteFunc(cs, func(c *curve) bool { return len(c.xy) == 0 })
	if len(xs) < 2 || len(cs) == 0 {
		return nil, "", errors.New("fewer than two values of " + pl.X + " to draw")
	}
	p = plot.New()
	names, common, styles := legends(cs)
	p.Title.Text = fmt.Sprintf("%s vs %s: %s", pl.Metric, pl.X, pl.Title)
	if len(common) > 0 {
		p.Title.Text += "\n" + strings.Join(common, ", ")
	}
	p.Title.TextStyle.Font = sans(titleSize, stdfont.WeightBold)
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text = pl.X
	if pl.XUnit != "" && pl.XUnit != "count" {
		p.X.Label.Text += " (" + pl.XUnit + ")"
	}
	p.Y.Label.Text = pl.Metric
	if u := metricUnit(pl.Metric); u != "" {
		p.Y.Label.Text += " (" + u + ")"
	}
	for _, a := range []struct {
		axis *plot.Axis
		log  bool
	}{{&p.X, pl.LogX}, {&p.Y, pl.LogY}} {
		axis, log := a.axis, a.log
		axis.Label.TextStyle.Font = sans(labelSize, stdfont.WeightNormal)
		axis.Tick.Label.Font = sans(tickSize, stdfont.WeightNormal)
		if log {
			axis.Label.Text += ", log scale"
			axis.Tick.Marker = logTicks{}
		} else {
			axis.Tick.Marker = linearTicks{}
		}
	}
	p.Legend.TextStyle.Font = sans(tickSize, stdfont.WeightNormal)
	p.Legend.Padding = vg.Points(2)
	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = color.Gray{Y: 225}, color.Gray{Y: 225}
	p.Add(grid)
	xfn := func(x float64) float64 { return x }
	if pl.LogX {
		xfn = math.Log10
	}
	lines, err := addCurves(p, cs, names, styles, pl.LogY, xfn)
	if err != nil {
		return nil, "", err
	}
	if pl.LogY {
		lo, hi := snap125(math.Pow(10, p.Y.Min), math.Pow(10, p.Y.Max))
		p.Y.Min, p.Y.Max = math.Log10(lo), math.Log10(hi)
	} else if p.Y.Min >= 0 {
		p.Y.Min, p.Y.Max = 0, niceCeil(p.Y.Max)
	}
	span := p.X.Max - p.X.Min
	p.X.Min, p.X.Max = p.X.Min-0.04*span, p.X.Max+0.04*span
	placeLegend(p, lines)
	if dropped > 0 {
		note = fmt.Sprintf("%d values <= 0 left out of the log axes", dropped)
	}
	return p, note, nil
}

// WriteFigure renders p as base.png and base.svg in dir and returns the names.
func WriteFigure(p *plot.Plot, dir, base string) ([]string, error) {
	var files []string
	for _, ext := range []string{"png", "svg"} {
		b, err := render(p, ext)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", base, ext, err)
		}
		name := base + "." + ext
		if err := WriteFileAtomic(filepath.Join(dir, name), b); err != nil {
			return nil, err
		}
		files = append(files, name)
	}
	return files, nil
}

// SweepPlots draws, for every numeric swept key with several values (not the seed),
// each metric against it: plots/METRIC_vs_KEY.png and .svg. A figure that would hold
// more than maxCurves curves is not drawn (a note says how to draw it).
func (rs *Set) SweepPlots(dir string) (files, notes []string, err error) {
	cols, recs := rs.Tidy()
	return rs.sweepPlots(dir, &Table{cols: cols, recs: recs})
}

// sweepPlots is SweepPlots from the tidy table t of rs.
func (rs *Set) sweepPlots(dir string, t *Table) (files, notes []string, err error) {
	dir = filepath.Join(dir, PlotsDir)
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return nil, nil, err
	}
	recs := t.recs
	mi := t.col("metric")
	var metrics []string
	for _, r := range recs {
		if m := CellText(r[mi]); !slices.Contains(metrics, m) {
			metrics = append(metrics, m)
		}
	}
	for _, k := range rs.Keys {
		if k == SeedKey || !rs.numericKind(k) {
			continue
		}
		unit := params.SIUnit(rs.Kinds[k])
		for _, m := range metrics {
			pl := &XYPlot{Title: rs.Title, X: k, Metric: m, XUnit: unit}
			cs, err := t.Curves(pl)
			if err != nil {
				return nil, nil, err
			}
			base := PlotFileName(m, k)
			if len(cs) > maxCurves {
				notes = append(notes, fmt.Sprintf("%s: not drawn: %d curves (run plot DIR --x %s --y %s --series KEY draws a selection)",
					base, len(cs), k, m))
				continue
			}
			p, note, err := DrawXY(pl, cs)
			if err != nil {
				continue // fewer than two values of k for this metric
			}
			if note != "" {
				notes = append(notes, base+": "+note)
			}
			fs, err := WriteFigure(p, dir, base)
			if err != nil {
				return nil, nil, err
			}
			for _, f := range fs {
				files = append(files, filepath.Join(PlotsDir, f))
			}
		}
	}
	return files, notes, nil
}

// PlotFileName is METRIC_vs_KEY with the key's dots as underscores.
func PlotFileName(metric, key string) string {
	return metric + "_vs_" + strings.NewReplacer(".", "_", "/", "_").Replace(key)
}

// UnitOf is column's unit from DIR/units.csv, or "".
func UnitOf(dir, column string) string {
	b, err := os.ReadFile(filepath.Join(dir, UnitsCSV))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Split(line, ","); len(f) >= 2 && f[0] == column {
			return f[1]
		}
	}
	return ""
}

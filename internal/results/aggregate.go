package results

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Replicates: a sweep whose seed takes several values (--seeds N, or --vary seed=LIST)
// runs every configuration once per seed. aggregate.csv and aggregate.json summarize
// them: one record per configuration, row and metric, with the number of seeds, the
// mean, the sample standard deviation and the 95% confidence interval of the mean
// (Student's t with n-1 degrees of freedom), so that a figure can carry error bars.

// Files of the aggregated table.
const (
	AggregateCSV  = "aggregate.csv"
	AggregateJSON = "aggregate.json"
)

// Aggregate returns the aggregated table of rs, or ok false when rs has no
// replicates (no seed column, or a single seed). Columns: those of the tidy table
// but point, seed and value, then n, mean, sd, ci95_low, ci95_high; records in order
// of first appearance, for numeric metrics only. sd and the interval are null for a
// single value.
func (rs *Set) Aggregate() (cols []string, recs [][]any, ok bool) {
	tcols, trecs := rs.Tidy()
	return aggregate(tcols, trecs)
}

// aggregate is Aggregate over the tidy table tcols, trecs.
func aggregate(tcols []string, trecs [][]any) (cols []string, recs [][]any, ok bool) {
	si, vi, pi := slices.Index(tcols, SeedKey), slices.Index(tcols, "value"), slices.Index(tcols, "point")
	if si < 0 || vi < 0 {
		return nil, nil, false
	}
	seeds := map[string]bool{}
	for _, r := range trecs {
		seeds[CellText(r[si])] = true
	}
	if len(seeds) < 2 {
		return nil, nil, false
	}
	var keep []int
	for i, c := range tcols {
		if i != si && i != vi && i != pi {
			keep = append(keep, i)
			cols = append(cols, c)
		}
	}
	cols = append(cols, "n", "mean", "sd", "ci95_low", "ci95_high")
	type group struct {
		head []any
		Vals []float64
	}
	var order []*group
	byKey := map[string]*group{}
	for _, r := range trecs {
		parts := make([]string, len(keep))
		for j, i := range keep {
			parts[j] = CellText(r[i])
		}
		k := strings.Join(parts, "\x00")
		g := byKey[k]
		if g == nil {
			g = &group{}
			for _, i := range keep {
				g.head = append(g.head, r[i])
			}
			byKey[k] = g
			order = append(order, g)
		}
		if v, ok := number(r[vi], true); ok {
			g.Vals = append(g.Vals, v)
		}
	}
	for _, g := range order {
		if len(g.Vals) == 0 {
			continue // a metric that is not a number (a digest): nothing to average
		}
		st := summarize(g.Vals)
		rec := append(slices.Clone(g.head), json.Number(strconv.Itoa(st.n)), num(st.mean), num(st.sd), num(st.lo), num(st.hi))
		recs = append(recs, rec)
	}
	return cols, recs, true
}

// stats is the summary of one group of replicates.
type stats struct {
	n                int
	mean, sd, lo, hi float64 // NaN where undefined
}

// summarize computes the mean, the sample standard deviation and the 95% confidence
// interval of the mean of vs.
func summarize(vs []float64) stats {
	st := stats{n: len(vs), mean: math.NaN(), sd: math.NaN(), lo: math.NaN(), hi: math.NaN()}
	if st.n == 0 {
		return st
	}
	sum := 0.0
	for _, v := range vs {
		sum += v
	}
	st.mean = sum / float64(st.n)
	if st.n < 2 {
		return st
	}
	ss := 0.0
	for _, v := range vs {
		ss += (v - st.mean) * (v - st.mean)
	}
	st.sd = math.Sqrt(ss / float64(st.n-1))
	half := t975(st.n-1) * st.sd / math.Sqrt(float64(st.n))
	st.lo, st.hi = st.mean-half, st.mean+half
	return st
}

// tTable holds the 0.975 quantiles of Student's t distribution for 1..30 degrees of
// freedom (two-sided 95% intervals).
var tTable = [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}

// t975 is the 0.975 quantile of Student's t with df degrees of freedom: the table up
// to 30, then the Cornish-Fisher expansion around the normal quantile (error below
// 1e-3 from 30 on).
func t975(df int) float64 {
	if df >= 1 && df <= len(tTable) {
		return tTable[df-1]
	}
	const z = 1.959963984540054
	d := float64(df)
	return z + (z*z*z+z)/(4*d) + (5*math.Pow(z, 5)+16*z*z*z+3*z)/(96*d*d)
}

// num is a JSON number, or nil (null, an empty CSV cell) for NaN.
func num(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return json.Number(strconv.FormatFloat(f, 'g', 12, 64)) // 12 digits: no float noise (0.19954999999999998)
}

package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The statistics of a hand-computed case: 1, 2, 3, 4.
func TestSummarize(t *testing.T) {
	st := summarize([]float64{1, 2, 3, 4})
	assert.Equal(t, 4, st.n)
	assert.InDelta(t, 2.5, st.mean, 1e-12)
	assert.InDelta(t, math.Sqrt(5.0/3), st.sd, 1e-12) // sum of squares 5, n-1 = 3
	half := 3.182 * math.Sqrt(5.0/3) / 2              // t(0.975, 3) * sd / sqrt(4)
	assert.InDelta(t, 2.5-half, st.lo, 1e-12)
	assert.InDelta(t, 2.5+half, st.hi, 1e-12)
	one := summarize([]float64{7})
	assert.Equal(t, 7.0, one.mean)
	assert.True(t, math.IsNaN(one.sd) && math.IsNaN(one.lo), "no spread from one value")
	assert.InDelta(t, 1.96, t975(100000), 1e-3)
	assert.InDelta(t, 2.0395, t975(31), 1e-3)
}

// run sweep --seeds N: the seeds as the last swept key, aggregate.csv with a record
// per configuration, row and metric, and figures against the swept key; run plot
// draws any column and refuses unknown ones.
func TestSeedsAggregateAndPlot(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	code, _, errs := invoke(t, "sweep", "--bench", "traffic", "--vary", "router.output_queue_packets=2,8", "--seeds", "3", "--jobs", "2",
		"--quiet", "--out", dir, "--", "--load", "0.3,0.6", "--measure", "2us", "--warmup", "1us", "--torus", "4x4x2")
	require.Equal(t, 0, code, errs)
	res := readCSV(t, filepath.Join(dir, resultsCSV))
	assert.Equal(t, []string{"point", "row", "router.output_queue_packets", "seed"}, res[0][:4])
	agg := readCSV(t, filepath.Join(dir, aggregateCSV))
	assert.Equal(t, []string{"row", "router.output_queue_packets", "pattern", "load_offered", "metric", "n", "mean", "sd", "ci95_low", "ci95_high"}, agg[0])
	numeric := 0
	for _, r := range res[1:] {
		if _, err := strconv.ParseFloat(r[len(r)-1], 64); err == nil {
			numeric++
		}
	}
	assert.Len(t, agg, 1+numeric/3, "a record per three seeds of a numeric metric")
	for _, r := range agg[1:] {
		assert.Equal(t, "3", r[5])
	}
	_, err := os.Stat(filepath.Join(dir, sweepPlotsDir, "latency_mean_us_vs_router_output_queue_packets.png"))
	assert.NoError(t, err)

	code, out, errs := invoke(t, "plot", dir, "--x", "load_offered", "--y", "latency_mean_us", "--series", "router.output_queue_packets")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "latency_mean_us_vs_load_offered.png")
	code, _, errs = invoke(t, "plot", dir, "--x", "nonesuch", "--y", "latency_mean_us")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "--x nonesuch: no such column")
	code, _, errs = invoke(t, "plot", dir, "--x", "load_offered", "--y", "nonesuch")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "--y nonesuch: no such metric")
}

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/seastar-sim/seastar/internal/results"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// run sweep --seeds N: the seeds as the last swept key, aggregate.csv with a record
// per configuration, row and metric, and figures against the swept key; run plot
// draws any column and refuses unknown ones.
func TestSeedsAggregateAndPlot(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	code, _, errs := invoke(t, "sweep", "--bench", "traffic", "--vary", "router.output_queue_packets=2,8", "--seeds", "3", "--jobs", "2",
		"--quiet", "--out", dir, "--", "--load", "0.3,0.6", "--measure", "2us", "--warmup", "1us", "--torus", "4x4x2")
	require.Equal(t, 0, code, errs)
	res := readCSV(t, filepath.Join(dir, results.ResultsCSV))
	assert.Equal(t, []string{"point", "row", "router.output_queue_packets", "seed"}, res[0][:4])
	agg := readCSV(t, filepath.Join(dir, results.AggregateCSV))
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
	_, err := os.Stat(filepath.Join(dir, results.PlotsDir, "latency_mean_us_vs_router_output_queue_packets.png"))
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

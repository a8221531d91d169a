package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seastar-sim/seastar/internal/results"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run's directory records where it came from and what it built, and replays to the
// same digest; a tampered digest is caught; a directory that is not one is refused.
func TestReplay(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	code, _, errs := invoke(t, "bench", "portalperf", "--sizes", "8,64", "--iters", "2", "--quiet", "--out", dir,
		"--set", "ppc.clock=400MHz")
	require.Equal(t, 0, code, errs)

	rec, err := readRunRecord(dir)
	require.NoError(t, err)
	assert.NotEmpty(t, rec.GoVersion)
	assert.NotEmpty(t, rec.OS)
	assert.Positive(t, rec.CPUs)
	assert.Equal(t, "8,64", rec.BenchFlags["sizes"])
	assert.Equal(t, "2", rec.BenchFlags["iters"], "every flag of the benchmark, defaults too")
	assert.Contains(t, rec.BenchFlags, "warmup")
	require.NotEmpty(t, rec.Points[0].Reports)
	assert.Equal(t, "2x1x1", rec.Points[0].Reports[0].Model["torus"])
	yml, err := os.ReadFile(filepath.Join(dir, configFile))
	require.NoError(t, err)
	assert.Contains(t, string(yml), "\ntorus: 2x1x1\n", "config.yaml has the topology built, not the preset's")
	assert.Contains(t, string(yml), "clock: 400MHz")

	code, out, errs := invoke(t, "replay", dir)
	require.Equal(t, 0, code, out+errs)
	assert.Contains(t, out, "identical: 1 of 1 points")
	assert.Contains(t, out, rec.Digest)

	// A record whose digest does not match what the configuration gives.
	var raw map[string]any
	b, err := os.ReadFile(filepath.Join(dir, runFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &raw))
	raw["digest"] = "0123456789abcdef"
	b, err = json.Marshal(raw)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, runFile), b, 0o644))
	code, out, errs = invoke(t, "replay", dir)
	assert.Equal(t, exitSimulation, code)
	assert.Contains(t, out, "DIFFERENT")
	assert.Contains(t, errs, "1 digests differ")

	code, _, errs = invoke(t, "replay", t.TempDir())
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "not a results directory")
}

// The replay's command line drops output, trace and peer flags (and their values)
// before a "--", keeps the rest, and reads the recorded configuration.
func TestReplayArgs(t *testing.T) {
	root := newRoot(nil, nil, nil)
	got := replayArgs([]string{"sweep", "--bench", "rawdma", "--out", "x", "--quiet", "--trace-file=t.jsonl", "--config", "a.yaml",
		"--set", "ppc.clock=1GHz", "--vary", "seed=1:2:+1", "--", "--sizes", "8"}, "d/config.yaml", "o", root.PersistentFlags())
	assert.Equal(t, "sweep --bench rawdma --set ppc.clock=1GHz --vary seed=1:2:+1 --config d/config.yaml --out o --quiet --format json -- --sizes 8",
		strings.Join(got, " "))
}

func TestVersion(t *testing.T) {
	code, out, _ := invoke(t, "--version")
	assert.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(out, "run "), out)
	assert.Contains(t, out, buildProvenance().GoVersion)
}

// cancelOnProgress cancels a run at its first progress line, as a SIGINT would.
type cancelOnProgress struct {
	bytes.Buffer
	cancel context.CancelFunc
}

func (w *cancelOnProgress) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte("portalperf: t=")) {
		w.cancel()
	}
	return w.Buffer.Write(b)
}

// An interrupted single run keeps the rows it finished and a run.json marked
// interrupted with the simulated time reached, and exits 130.
func TestInterruptedBenchKeepsRows(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errw := &cancelOnProgress{cancel: cancel}
	var out bytes.Buffer
	code := execute(ctx, []string{"bench", "portalperf", "--sizes", "0:1M:x2", "--iters", "100000", "--budget", "0", "--out", dir}, &out, errw)
	require.Equal(t, exitInterrupted, code, errw.String())
	rec, err := readRunRecord(dir)
	require.NoError(t, err)
	assert.Equal(t, statusInterrupted, rec.Status)
	assert.Empty(t, rec.Digest, "a partial run has no reproducible digest")
	require.Len(t, rec.Points, 1)
	require.NotEmpty(t, rec.Points[0].Reports)
	simT := rec.Points[0].Reports[0].SimTimeS
	assert.Positive(t, simT)
	assert.Less(t, simT, 1e3, "the simulated time reached, not the end bound")
	var rows int
	_, err = fmt.Sscanf(errw.String()[strings.Index(errw.String(), "run: interrupted: "):], "run: interrupted: %d rows", &rows)
	require.NoError(t, err, errw.String())
	csvb, err := os.ReadFile(filepath.Join(dir, results.ResultsCSV))
	require.NoError(t, err)
	recs, err := csv.NewReader(bytes.NewReader(csvb)).ReadAll()
	require.NoError(t, err)
	assert.Len(t, recs, 1+rows*3, "the header and three metrics per finished row (latency, bandwidth, iters)")
	assert.Empty(t, out.String(), "nothing on stdout for an interrupted run")
}

package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/internal/results"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tinyPingpong is the smallest rawdma run that has a latency curve: 2 nodes, 2 timed
// round trips, three sizes.
var tinyPingpong = []string{"--", "--mode", "pingpong", "--iters", "2", "--warmup", "0", "--sizes", "0,1K,8K"}

// sweepArgs is a 2x2 sweep of a PPC clock and a firmware cost over tinyPingpong,
// writing to out.
func sweepArgs(out string, extra ...string) []string {
	args := []string{"sweep", "--bench", "rawdma", "--vary", "ppc.clock=250MHz,500MHz",
		"--vary", "rawdma.som_instr=30,60", "--out", out, "--quiet"}
	return append(append(args, extra...), tinyPingpong...)
}

// invokeCtx is invoke with a context.
func invokeCtx(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := execute(ctx, args, &out, &errb)
	return code, out.String(), errb.String()
}

func readRunJSON(t *testing.T, dir string) runRecord {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, runFile))
	require.NoError(t, err)
	var rec runRecord
	require.NoError(t, json.Unmarshal(b, &rec))
	return rec
}

func readFile(t *testing.T, elem ...string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(elem...))
	require.NoError(t, err)
	return string(b)
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(readFile(t, path))).ReadAll()
	require.NoError(t, err)
	return recs
}

// pointValues lists the points of run.json as "k=v,k=v" in point order.
func pointValues(rec runRecord, keys ...string) []string {
	var out []string
	for _, p := range rec.Points {
		var parts []string
		for _, k := range keys {
			parts = append(parts, k+"="+p.Values[k])
		}
		out = append(out, strings.Join(parts, ","))
	}
	return out
}

func TestSweepCartesianAndZip(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := invoke(t, sweepArgs(dir+"/x", "--format", "json")...)
	require.Equal(t, 0, code, errs)
	rec := readRunJSON(t, dir+"/x")
	assert.Equal(t, []string{
		"ppc.clock=250MHz,rawdma.som_instr=30", "ppc.clock=250MHz,rawdma.som_instr=60",
		"ppc.clock=500MHz,rawdma.som_instr=30", "ppc.clock=500MHz,rawdma.som_instr=60",
	}, pointValues(rec, "ppc.clock", "rawdma.som_instr"), "the first --vary varies slowest")
	assert.Equal(t, "complete", rec.Status)
	assert.Equal(t, 4, rec.Ran)

	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &v), out)
	assert.Equal(t, "sweep", v["command"])
	rows := v["rows"].([]any)
	require.Len(t, rows, 4*3)
	first := rows[0].(map[string]any)
	for _, k := range []string{"point", "ppc.clock", "rawdma.som_instr", "mode", "hops", "size_bytes", "latency_us"} {
		assert.Contains(t, first, k)
	}

	code, _, errs = invoke(t, append([]string{"sweep", "--bench", "rawdma", "--zip", "--vary", "ppc.clock=250MHz,500MHz",
		"--vary", "rawdma.som_instr=60,30", "--out", dir + "/z", "--quiet"}, tinyPingpong...)...)
	require.Equal(t, 0, code, errs)
	rec = readRunJSON(t, dir+"/z")
	assert.Equal(t, []string{"ppc.clock=250MHz,rawdma.som_instr=60", "ppc.clock=500MHz,rawdma.som_instr=30"},
		pointValues(rec, "ppc.clock", "rawdma.som_instr"))
	assert.True(t, rec.Zip)
}

// Bad sweeps: exit status 2, a message naming the flag or key, nothing on stdout and
// nothing run.
func TestSweepUsageErrors(t *testing.T) {
	dir := t.TempDir()
	full := dir + "/full"
	require.NoError(t, os.MkdirAll(full, 0o755))
	require.NoError(t, os.WriteFile(full+"/x", nil, 0o644))
	base := func(extra ...string) []string {
		return append([]string{"sweep", "--bench", "rawdma", "--quiet", "--out", dir + "/new"}, extra...)
	}
	// Every case must fail before a point runs: a sweep that ran by mistake would
	// take long with the default benchmark flags, and leave dir/new behind.
	cases := map[string]struct {
		args []string
		want []string
	}{
		"unknown key":     {base("--vary", "ppc.clok=1GHz"), []string{`--vary: unknown parameter "ppc.clok" (did you mean `, "ppc.clock"}},
		"unknown key 2":   {base("--vary", "rawdma.som_inst=1"), []string{`unknown parameter "rawdma.som_inst" (did you mean rawdma.som_instr?)`}},
		"group key":       {base("--vary", "ppc=1"), []string{`unknown parameter "ppc": it is a group`}},
		"bad value":       {base("--vary", "ppc.clock=5 furlongs"), []string{"--vary", `ppc.clock: invalid frequency "5 furlongs"`}},
		"bad range":       {base("--vary", "ppc.clock=1GHz:1MHz:+1MHz"), []string{`range "1GHz:1MHz:+1MHz": the end is below the start`}},
		"invalid point":   {base("--vary", "ppc.clock=500MHz,0Hz"), []string{"point 1 (ppc.clock=0Hz): ppc: clock must be > 0"}},
		"no equals":       {base("--vary", "ppc.clock"), []string{`--vary "ppc.clock": want KEY=LIST`}},
		"twice":           {base("--vary", "ppc.clock=1GHz", "--vary", "ppc.clock=2GHz"), []string{"--vary ppc.clock: the key is given twice"}},
		"zip lengths":     {base("--zip", "--vary", "ppc.clock=1GHz,2GHz", "--vary", "rawdma.som_instr=1"), []string{"zipped lists must be of one length"}},
		"no vary":         {base(), []string{"--vary KEY=LIST (or --seeds N) is required"}},
		"seeds and zip":   {append(base(), "--vary", "ppc.clock=1GHz", "--seeds", "2", "--zip"), []string{"--seeds takes the product"}},
		"seeds twice":     {append(base(), "--vary", "seed=1,2", "--seeds", "2"), []string{"give the seeds one way"}},
		"negative seeds":  {append(base(), "--seeds", "-1"), []string{"--seeds must be >= 1"}},
		"no bench":        {[]string{"sweep", "--vary", "ppc.clock=1GHz"}, []string{"--bench NAME is required (available: ", "rawdma"}},
		"unknown bench":   {[]string{"sweep", "--bench", "rawdmaa", "--vary", "ppc.clock=1GHz"}, []string{`unknown benchmark "rawdmaa"`}},
		"stray argument":  {base("--vary", "ppc.clock=1GHz", "extra"), []string{`unexpected argument "extra": the benchmark's flags go after --`}},
		"bad bench flag":  {base("--vary", "ppc.clock=1GHz", "--", "--furlongs", "3"), []string{"bench rawdma flags (after --): unknown flag: --furlongs"}},
		"bad bench value": {base("--vary", "ppc.clock=1GHz", "--", "--mode", "teleport"), []string{`point 0 (ppc.clock=1GHz): --mode: unknown mode "teleport"`}},
		"bad jobs":        {base("--vary", "ppc.clock=1GHz", "--jobs", "0"), []string{"--jobs must be >= 1"}},
		"resume no out":   {[]string{"sweep", "--bench", "rawdma", "--vary", "ppc.clock=1GHz", "--resume"}, []string{"--resume needs --out DIR"}},
		"out not empty":   {[]string{"sweep", "--bench", "rawdma", "--vary", "ppc.clock=1GHz", "--out", full}, []string{"is not empty", "--resume"}},
		"bad seed":        {base("--vary", "seed=-1"), []string{`seed: invalid uint "-1"`}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			code, out, errs := invoke(t, c.args...)
			assert.Equal(t, exitUsage, code, errs)
			assert.Empty(t, out)
			for _, w := range c.want {
				assert.Contains(t, errs, w)
			}
			_, err := os.Stat(dir + "/new")
			assert.True(t, errors.Is(err, os.ErrNotExist), "nothing is written for a usage error")
		})
	}
}

// The acceptance test of determinism: the same sweep with --jobs 1 and --jobs 2 (and
// so different worker counts per point) writes identical results files.
func TestSweepJobsIdenticalResults(t *testing.T) {
	dir := t.TempDir()
	for _, jobs := range []string{"1", "2"} {
		code, _, errs := invoke(t, sweepArgs(dir+"/jobs"+jobs, "--jobs", jobs)...)
		require.Equal(t, 0, code, errs)
	}
	for _, f := range []string{results.ResultsCSV, results.ResultsJSON, configFile, "points/3/rows.json", "points/3/config.yaml",
		"latency_vs_size.svg", "latency_vs_size.png"} {
		assert.Equal(t, readFile(t, dir, "jobs1", f), readFile(t, dir, "jobs2", f), f)
	}
	r1, r2 := readRunJSON(t, dir+"/jobs1"), readRunJSON(t, dir+"/jobs2")
	assert.Equal(t, r1.Digest, r2.Digest)
	assert.Equal(t, 1, r1.Jobs)
	assert.Equal(t, 2, r2.Jobs)
	assert.Equal(t, runtime.GOMAXPROCS(0), r1.Points[0].Reports[0].Workers, "one point at a time: all the workers")
	assert.Equal(t, max(1, runtime.GOMAXPROCS(0)/2), r2.Points[0].Reports[0].Workers, "two at a time: half each")
}

// A sweep interrupted after its first point keeps that point; --resume runs only the
// three others and ends with the same files as an uninterrupted sweep.
func TestSweepInterruptAndResume(t *testing.T) {
	dir := t.TempDir()
	ref := dir + "/ref"
	code, _, errs := invoke(t, sweepArgs(ref)...)
	require.Equal(t, 0, code, errs)

	out := dir + "/out"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	setAfterPoint(t, func(int) { cancel() })
	code, stdout, errs := invokeCtx(t, ctx, sweepArgs(out, "--jobs", "1")...)
	assert.Equal(t, exitInterrupted, code, errs)
	assert.Empty(t, stdout)
	assert.Contains(t, errs, "sweep interrupted: 1 of 4 points finished, their results are in "+out)
	assert.Contains(t, errs, "run sweep --bench rawdma --vary ppc.clock=250MHz,500MHz --vary rawdma.som_instr=30,60 --out "+
		out+" --quiet --jobs 1 --resume -- --mode pingpong", "the resume command keeps the bench flags after --")
	rec := readRunJSON(t, out)
	assert.Equal(t, "interrupted", rec.Status)
	assert.Equal(t, 1, rec.Finished)
	assert.Equal(t, statusRan, rec.Points[0].Status)
	assert.Equal(t, statusPending, rec.Points[1].Status)
	for _, r := range readCSV(t, filepath.Join(out, results.ResultsCSV))[1:] {
		assert.Equal(t, "0", r[0], "only the finished point is in the results")
	}

	setAfterPoint(t, nil)
	code, _, errs = invoke(t, sweepArgs(out, "--jobs", "1", "--resume")...)
	require.Equal(t, 0, code, errs)
	rec = readRunJSON(t, out)
	assert.Equal(t, "complete", rec.Status)
	assert.Equal(t, 1, rec.Reused)
	assert.Equal(t, 3, rec.Ran)
	assert.Equal(t, statusReused, rec.Points[0].Status)
	assert.NotEmpty(t, rec.Points[0].Reports, "a reused point keeps its reports")
	for _, f := range []string{results.ResultsCSV, results.ResultsJSON, "latency_vs_size.svg"} {
		assert.Equal(t, readFile(t, ref, f), readFile(t, out, f), f)
	}
	assert.Equal(t, readRunJSON(t, ref).Digest, rec.Digest)

	// A point whose done marker is missing (a crash while writing it) is run again.
	require.NoError(t, os.Remove(filepath.Join(out, pointsDir, "2", pointDone)))
	code, _, errs = invoke(t, sweepArgs(out, "--resume")...)
	require.Equal(t, 0, code, errs)
	rec = readRunJSON(t, out)
	assert.Equal(t, 3, rec.Reused)
	assert.Equal(t, 1, rec.Ran)
	assert.Equal(t, statusRan, rec.Points[2].Status)
	assert.Equal(t, readFile(t, ref, results.ResultsCSV), readFile(t, out, results.ResultsCSV))

	// Resuming with another sweep's definition is refused.
	code, _, errs = invoke(t, append([]string{"sweep", "--bench", "rawdma", "--vary", "ppc.clock=250MHz,500MHz",
		"--vary", "rawdma.som_instr=30,90", "--out", out, "--quiet", "--resume"}, tinyPingpong...)...)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "was made by another sweep")
	code, _, errs = invoke(t, sweepArgs(out, "--resume", "--seed", "2")...)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "its seed differs")
}

// setAfterPoint sets the afterPoint hook for the test.
func setAfterPoint(t *testing.T, f func(int)) {
	t.Helper()
	saved := afterPoint
	afterPoint = f
	t.Cleanup(func() { afterPoint = saved })
}

// The resolved configuration in config.yaml is a valid --config that gives the same
// configuration back, for a run and for every sweep point.
func TestConfigYAMLRoundTrip(t *testing.T) {
	dir := t.TempDir()
	file := dir + "/in.yaml"
	require.NoError(t, os.WriteFile(file, []byte("machine: xt5\nrawdma:\n  som_instr: 45\n"), 0o644))
	args := []string{"bench", "rawdma", "--quiet", "--config", file, "--set", "ppc.clock=400MHz", "--iters", "2",
		"--warmup", "0", "--out", dir + "/a"}
	code, _, errs := invoke(t, args...)
	require.Equal(t, 0, code, errs)

	want := (&common{config: file, sets: []string{"ppc.clock=400MHz"}})
	wantFile, err := want.configFile()
	require.NoError(t, err)
	_, wantTree, err := want.resolve(wantFile, nil, nil)
	require.NoError(t, err)
	// config.yaml holds the topology the benchmark built: two nodes in a line.
	require.NoError(t, wantTree.Set("torus", "2x1x1"))
	require.NoError(t, wantTree.Set("wrap", "mesh"))

	loaded := &common{config: dir + "/a/" + configFile}
	b, err := loaded.configFile()
	require.NoError(t, err)
	_, got, err := loaded.resolve(b, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, wantTree.Values(), got.Values())
	v, _ := got.Get("machine")
	assert.Equal(t, "xt5", v)

	// Through the command line: a run from the written file writes the same file.
	code, _, errs = invoke(t, "bench", "rawdma", "--quiet", "--config", dir+"/a/"+configFile, "--iters", "2",
		"--warmup", "0", "--out", dir+"/b")
	require.Equal(t, 0, code, errs)
	assert.Equal(t, readFile(t, dir, "a", configFile), readFile(t, dir, "b", configFile))

	// A sweep point's configuration has the point's values on top.
	code, _, errs = invoke(t, sweepArgs(dir+"/s", "--config", file)...)
	require.Equal(t, 0, code, errs)
	p := &common{config: filepath.Join(dir, "s", pointsDir, "2", configFile)}
	b, err = p.configFile()
	require.NoError(t, err)
	_, pt, err := p.resolve(b, nil, nil)
	require.NoError(t, err)
	for k, want := range map[string]string{"ppc.clock": "500MHz", "rawdma.som_instr": "30", "machine": "xt5"} {
		v, _ := pt.Get(k)
		assert.Equal(t, want, v, k)
	}
}

func TestSweepPlots(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := invoke(t, sweepArgs(dir+"/pp")...)
	require.Equal(t, 0, code, errs)
	stream := []string{"sweep", "--bench", "rawdma", "--vary", "ppc.clock=250MHz,500MHz", "--out", dir + "/st",
		"--quiet", "--", "--mode", "stream", "--iters", "2", "--sizes", "0:4K:x4"}
	code, _, errs = invoke(t, stream...)
	require.Equal(t, 0, code, errs)

	checkPlot := func(path string) {
		b, err := os.ReadFile(path)
		require.NoError(t, err, path)
		switch filepath.Ext(path) {
		case ".png":
			assert.True(t, bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")), "%s: PNG magic", path)
			assert.Greater(t, len(b), 10000, path)
		case ".svg":
			dec := xml.NewDecoder(bytes.NewReader(b))
			root := ""
			for {
				tok, err := dec.Token()
				if err == io.EOF {
					break
				}
				require.NoError(t, err, "%s parses as XML", path)
				if se, ok := tok.(xml.StartElement); ok && root == "" {
					root = se.Name.Local
				}
			}
			assert.Equal(t, "svg", root, path)
			if strings.Contains(path, "/pp/") {
				assert.Contains(t, string(b), "ppc.clock=250MHz, rawdma.som_instr=30", "legend of %s", path)
			}
		}
	}
	for _, ext := range []string{".png", ".svg"} {
		checkPlot(dir + "/pp/latency_vs_size" + ext)
		checkPlot(dir + "/st/bandwidth_vs_size" + ext)
	}
	_, err := os.Stat(dir + "/pp/bandwidth_vs_size.png")
	assert.True(t, errors.Is(err, os.ErrNotExist), "pingpong rows have no bandwidth")
	rec := readRunJSON(t, dir+"/pp")
	assert.Equal(t, []string{"latency_vs_size.png", "latency_vs_size.svg", "plots/latency_us_vs_ppc_clock.png", "plots/latency_us_vs_ppc_clock.svg",
		"plots/latency_us_vs_rawdma_som_instr.png", "plots/latency_us_vs_rawdma_som_instr.svg"}, rec.Plots, "against the size, then against each swept key")
	assert.Contains(t, strings.Join(rec.Notes, " "), "size 0 B drawn at the tick labelled 0")
}

// results.csv and results.json hold the same tidy records: one per point, row and
// metric, with the point's values and the row's identifying fields.
func TestSweepTidyResults(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := invoke(t, sweepArgs(dir)...)
	require.Equal(t, 0, code, errs)
	recs := readCSV(t, filepath.Join(dir, results.ResultsCSV))
	require.Len(t, recs, 1+4*3*1, "4 points x 3 sizes x 1 metric")
	var js []map[string]any
	dec := json.NewDecoder(strings.NewReader(readFile(t, dir, results.ResultsJSON)))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&js))
	require.Len(t, js, len(recs)-1)
	for i, r := range recs[1:] {
		for j, col := range recs[0] {
			assert.Equal(t, r[j], fmt.Sprint(js[i][col]), "record %d column %s", i, col)
		}
		assert.Equal(t, "latency_us", r[len(r)-2])
		_, err := strconv.ParseFloat(r[len(r)-1], 64)
		assert.NoError(t, err)
	}
	assert.Equal(t, []string{"3", "2", "500000000", "500MHz", "60", "pingpong", "1", "8192", "latency_us"}, recs[len(recs)-1][:9],
		"a swept frequency in Hz, then as given")
	assert.Equal(t, [][]string{{"column", "unit", "kind"}, {"ppc.clock", "Hz", "freq"}, {"rawdma.som_instr", "count", "int"},
		{"latency_us", "us", "metric"}}, readCSV(t, filepath.Join(dir, results.UnitsCSV)))
	for _, k := range []string{"wall", "events_per_s"} {
		assert.NotContains(t, readFile(t, dir, results.ResultsCSV), k, "no wall-clock figures in the results")
	}
}

// The header of results.csv for each kind of run. Regenerate with
//
//	go test ./cmd/run -run TestResultsHeaderGolden -rewrite
func TestResultsHeaderGolden(t *testing.T) {
	dir := t.TempDir()
	runs := []struct {
		name string
		args []string
	}{
		{"sweep rawdma pingpong", sweepArgs(dir + "/sweep")},
		{"sweep rawdma seed", append([]string{"sweep", "--bench", "rawdma", "--vary", "seed=1,2", "--out", dir + "/seed",
			"--quiet"}, tinyPingpong...)},
		{"bench rawdma fanin", []string{"bench", "rawdma", "--mode", "fanin", "--senders", "2", "--iters", "2",
			"--quiet", "--out", dir + "/fanin"}},
		{"bench traffic", append(append([]string{}, smallTraffic...), "--measure", "500ns", "--out", dir+"/traffic")},
		{"phold", append(append([]string{}, smallPhold...), "--out", dir+"/phold")},
	}
	var got strings.Builder
	for i, r := range runs {
		code, _, errs := invoke(t, r.args...)
		require.Equal(t, 0, code, errs)
		out := r.args[slices_Index(r.args, "--out")+1]
		fmt.Fprintf(&got, "%s: %s\n", r.name, strings.Join(readCSV(t, filepath.Join(out, results.ResultsCSV))[0], ","))
		_ = i
	}
	path := filepath.Join("testdata", "results_header.golden")
	if *rewriteGolden {
		require.NoError(t, os.WriteFile(path, []byte(got.String()), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run with -rewrite to create it")
	assert.Equal(t, string(want), got.String(), "run with -rewrite if the change is intended")
}

func slices_Index(args []string, s string) int {
	for i, a := range args {
		if a == s {
			return i
		}
	}
	return -1
}

// run bench writes a results directory; --out none writes none; the default is a
// fresh directory under results/; an existing directory is never overwritten.
func TestBenchResultsDir(t *testing.T) {
	dir := t.TempDir()
	args := []string{"bench", "rawdma", "--iters", "2", "--warmup", "0", "--sizes", "0,1K,8K", "--quiet", "--format", "json"}
	code, out, errs := invoke(t, append(args, "--out", dir+"/a")...)
	require.Equal(t, 0, code, errs)
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &v))
	assert.Equal(t, dir+"/a", v["out"])
	for _, f := range []string{configFile, runFile, results.ResultsCSV, results.ResultsJSON, "latency_vs_size.png", "latency_vs_size.svg"} {
		assert.FileExists(t, filepath.Join(dir, "a", f))
	}
	rec := readRunJSON(t, dir+"/a")
	assert.Equal(t, "bench rawdma", rec.Command)
	assert.Equal(t, "rawdma", rec.Bench)
	assert.Equal(t, v["digest"] != "", rec.Digest != "")
	assert.Len(t, rec.Points[0].Reports, 3, "one report per simulation")
	assert.Equal(t, "devel", rec.Version)
	assert.Equal(t, append(args, "--out", dir+"/a"), rec.Args)

	code, _, errs = invoke(t, append(args, "--out", dir+"/a")...)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "is not empty")

	code, out, errs = invoke(t, append(args, "--out", "none")...)
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, out, `"out"`)

	saved := resultsRoot
	resultsRoot = dir + "/root"
	t.Cleanup(func() { resultsRoot = saved })
	for range 2 { // the same second twice: the second directory gets a suffix
		code, _, errs = invoke(t, args...)
		require.Equal(t, 0, code, errs)
	}
	entries, err := os.ReadDir(dir + "/root")
	require.NoError(t, err)
	require.Len(t, entries, 2)
	assert.True(t, strings.HasPrefix(entries[0].Name(), "bench-rawdma-"), entries[0].Name())
}

// The phold results directory: deterministic results, the engine report in run.json.
func TestPholdResultsDir(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := invoke(t, append(append([]string{}, smallPhold...), "--out", dir)...)
	require.Equal(t, 0, code, errs)
	recs := readCSV(t, filepath.Join(dir, results.ResultsCSV))
	assert.Equal(t, []string{"point", "row", "metric", "value"}, recs[0])
	assert.Equal(t, []string{"0", "0", "sim_time_s", "0.000001"}, recs[2])
	rec := readRunJSON(t, dir)
	require.Len(t, rec.Points[0].Reports, 1)
	assert.NotEmpty(t, rec.Points[0].Reports[0].Parts, "partition statistics")
	assert.Contains(t, readFile(t, dir, configFile), "lps: 64")
}

// Progress: plain lines when stderr is not a terminal, nothing with --quiet.
func TestSweepProgress(t *testing.T) {
	dir := t.TempDir()
	args := sweepArgs(dir + "/a")
	args = slicesDelete(args, "--quiet")
	code, _, errs := invoke(t, append(args[:len(args)-len(tinyPingpong)], append([]string{"--jobs", "2"}, tinyPingpong...)...)...)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, errs, "sweep: 4 points, 4 to run, 2 at a time\n")
	assert.Contains(t, errs, "sweep: 1/4 points, ETA ")
	assert.Contains(t, errs, "sweep: 4/4 points, ETA 0s\n")
	assert.Contains(t, errs, "sweep: 4/4 points in ")
	code, _, errs = invoke(t, sweepArgs(dir+"/b")...)
	require.Equal(t, 0, code)
	assert.Empty(t, errs)

}

func slicesDelete(args []string, s string) []string {
	var out []string
	for _, a := range args {
		if a != s {
			out = append(out, a)
		}
	}
	return out
}

// --vary seed=... varies the root seed: each point is the run of its seed.
func TestSweepSeed(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := invoke(t, "sweep", "--bench", "fake", "--vary", "seed=1:3:+1", "--vary", "ppc.clock=100MHz",
		"--out", dir+"/s", "--quiet")
	require.Equal(t, 0, code, errs)
	rec := readRunJSON(t, dir+"/s")
	require.Len(t, rec.Points, 3)
	for i, p := range rec.Points {
		assert.Equal(t, uint64(i+1), p.Seed)
	}
	assert.NotEqual(t, rec.Points[0].Digest, rec.Points[1].Digest)
	code, _, errs = invoke(t, "bench", "fake", "--seed", "2", "--set", "ppc.clock=100MHz", "--quiet", "--out", dir+"/b")
	require.Equal(t, 0, code, errs)
	assert.Equal(t, readRunJSON(t, dir+"/b").Digest, rec.Points[1].Digest, "point seed=2 is the run with --seed 2")
}

// fakeState is the state of the fake benchmark of these tests.
type fakeState struct {
	failAt, blockAt, usageAt string // a ppc.clock value at which run fails, blocks until cancelled, or rejects its input
}

// The fake benchmark simulates nothing: its rows are a function of the configuration,
// so that the sweep's failure paths can be tested without slow or broken models.
func init() {
	registerBenchmark(&benchmark{
		name:  "fake",
		short: "test benchmark",
		flags: func(fs *pflag.FlagSet) any {
			s := &fakeState{}
			fs.StringVar(&s.failAt, "fail-at", "", "")
			fs.StringVar(&s.blockAt, "block-at", "", "")
			fs.StringVar(&s.usageAt, "usage-at", "", "")
			return s
		},
		run: func(ctx context.Context, cfg *Config, opts actors.Options, state any) (*benchOutput, error) {
			s := state.(*fakeState)
			clock := cfg.PPC.Clock.String()
			switch clock {
			case s.failAt:
				return &benchOutput{}, &actors.SimError{Actor: "node[1].ppc", Time: 5 * actors.Time(actors.Nanosecond), Msg: "injected fault"}
			case s.usageAt:
				return nil, usage(errors.New("--usage-at: rejected"))
			case s.blockAt:
				select {
				case fakeBlocking <- struct{}{}:
				default:
				}
				<-ctx.Done()
				return &benchOutput{}, fmt.Errorf("fake at t=0s: %w", actors.ErrInterrupted)
			}
			h := fnv.New64a()
			fmt.Fprint(h, clock, opts.Seed)
			out := &benchOutput{reports: []*actors.Report{{Digest: fmt.Sprintf("%016x", h.Sum64()), Events: 1}}}
			for _, size := range []int64{0, 64, 4096} {
				var r results.Row
				r.Set("size_bytes", size)
				r.Set("latency_us", float64(size)/float64(cfg.PPC.Clock)*1e6+1)
				r.Set("bandwidth_MBps", float64(size)*float64(cfg.PPC.Clock)/1e12)
				out.rows = append(out.rows, r)
			}
			return out, nil
		},
	})
}

// fakeBlocking receives a value when the fake benchmark starts blocking.
var fakeBlocking = make(chan struct{}, 1)

var fakeSweep = []string{"sweep", "--bench", "fake", "--vary", "ppc.clock=100MHz,200MHz,300MHz,400MHz", "--quiet"}

// A point that fails does not stop the others: exit status 1 naming the point and
// the actor; the finished points are kept and --resume retries the failed one.
func TestSweepPointFailure(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := invoke(t, append(append([]string{}, fakeSweep...), "--out", dir, "--", "--fail-at", "200MHz")...)
	assert.Equal(t, exitSimulation, code, errs)
	assert.Empty(t, out)
	assert.Contains(t, errs, "sweep: 1 of 4 points failed; the results of the 3 finished points are in "+dir)
	assert.Contains(t, errs, "point 1 (ppc.clock=200MHz): node[1].ppc at t=5ns: injected fault")
	rec := readRunJSON(t, dir)
	assert.Equal(t, "failed", rec.Status)
	assert.Equal(t, 3, rec.Finished)
	assert.Equal(t, statusFailed, rec.Points[1].Status)
	assert.NoFileExists(t, filepath.Join(dir, pointsDir, "1", pointDone))
	assert.Len(t, readCSV(t, filepath.Join(dir, results.ResultsCSV)), 1+3*3*2)

	code, _, errs = invoke(t, append(append([]string{}, fakeSweep...), "--out", dir, "--resume", "--", "--fail-at", "200MHz")...)
	assert.Equal(t, exitSimulation, code, errs)
	rec = readRunJSON(t, dir)
	assert.Equal(t, 3, rec.Reused)
	assert.Equal(t, 0, rec.Ran)

	// A usage error from the benchmark ends the sweep with status 2.
	code, _, errs = invoke(t, append(append([]string{}, fakeSweep...), "--out", t.TempDir(), "--", "--usage-at", "300MHz")...)
	assert.Equal(t, exitUsage, code, errs)
	assert.Contains(t, errs, "point 2 (ppc.clock=300MHz): --usage-at: rejected")
}

// Ctrl-C while points run: the running ones are interrupted, the finished ones kept.
func TestSweepInterruptRunningPoint(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	setAfterPoint(t, func(i int) {
		if i == 0 {
			<-fakeBlocking // point 1 runs
			cancel()
		}
	})
	code, _, errs := invokeCtx(t, ctx, append(append([]string{}, fakeSweep...), "--out", dir, "--jobs", "2", "--",
		"--block-at", "200MHz")...)
	assert.Equal(t, exitInterrupted, code, errs)
	rec := readRunJSON(t, dir)
	assert.Equal(t, statusRan, rec.Points[0].Status)
	assert.Equal(t, statusInterrupted, rec.Points[1].Status)
	assert.Equal(t, 1, rec.Finished)
	assert.Contains(t, errs, "1 of 4 points finished")
}

// The fake benchmark's plots: both figures, no size 0 note needed beyond the tick.
func TestPlotsOfFakeSweep(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := invoke(t, append(append([]string{}, fakeSweep...), "--out", dir)...)
	require.Equal(t, 0, code, errs)
	rec := readRunJSON(t, dir)
	assert.Equal(t, []string{"latency_vs_size.png", "latency_vs_size.svg", "bandwidth_vs_size.png", "bandwidth_vs_size.svg",
		"plots/latency_us_vs_ppc_clock.png", "plots/latency_us_vs_ppc_clock.svg", "plots/bandwidth_MBps_vs_ppc_clock.png",
		"plots/bandwidth_MBps_vs_ppc_clock.svg"}, rec.Plots)
	assert.Contains(t, readFile(t, dir, "bandwidth_vs_size.svg"), "ppc.clock=400MHz")
}

// Rows round-trip through JSON with their order and exact number text.
func TestRowJSONRoundTrip(t *testing.T) {
	var r results.Row
	r.Set("mode", "pingpong")
	r.Set("size_bytes", int64(1048576))
	r.Set("latency_us", 1.168437)
	r.Set("tiny", 1e-7)
	r.Set("bad", mathNaN())
	rows, err := results.NormalizeRows([]results.Row{r})
	require.NoError(t, err)
	assert.Equal(t, []string{"mode", "size_bytes", "latency_us", "tiny", "bad"}, rows[0].Keys)
	b, err := json.Marshal(rows[0])
	require.NoError(t, err)
	assert.Equal(t, `{"mode":"pingpong","size_bytes":1048576,"latency_us":1.168437,"tiny":1e-7,"bad":"NaN"}`, string(b))
	assert.Equal(t, "1048576", results.CellText(rows[0].Vals["size_bytes"]))
}

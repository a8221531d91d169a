package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// invoke runs the CLI in-process and returns exit status, stdout and stderr.
func invoke(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := execute(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

var smallPhold = []string{"phold", "--lps", "64", "--end", "1us", "--quiet"}

func pholdJSON(t *testing.T, extra ...string) map[string]any {
	t.Helper()
	code, out, errs := invoke(t, append(append(append([]string{}, smallPhold...), "--format", "json"), extra...)...)
	require.Equal(t, 0, code, errs)
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &v), out)
	return v
}

// The JSON object follows docs/design.md section 8.
func TestPholdJSON(t *testing.T) {
	v := pholdJSON(t, "--seed", "3")
	for _, k := range []string{"command", "seed", "params", "digest", "events", "sim_time_s", "wall_s", "events_per_s", "rows"} {
		assert.Contains(t, v, k)
	}
	assert.Equal(t, "phold", v["command"])
	assert.Equal(t, 3.0, v["seed"])
	params := v["params"].(map[string]any)
	assert.Equal(t, "64", params["lps"])
	assert.Equal(t, "1ns", params["mean"])
	assert.Equal(t, "0.25", params["remote"])
	assert.Equal(t, 1e-6, v["sim_time_s"])
	assert.Positive(t, v["events"])
	assert.NotEmpty(t, v["rows"])
}

// Same digest for every engine, worker count and partitioning.
func TestPholdDigestAcrossEngines(t *testing.T) {
	ref := pholdJSON(t, "--engine", "serial")
	for _, args := range [][]string{
		{"--workers", "1"}, {"--workers", "2"}, {"--workers", "2", "--sync", "window"}, {"--workers", "2", "--sync", "horizon"},
		{"--workers", "4", "--partition", "block"}, {"--workers", "2", "--partition", "node"},
	} {
		v := pholdJSON(t, args...)
		assert.Equal(t, ref["digest"], v["digest"], args)
		assert.Equal(t, ref["events"], v["events"], args)
	}
	other := pholdJSON(t, "--seed", "2")
	assert.NotEqual(t, ref["digest"], other["digest"])
}

func TestPholdTableAndCSV(t *testing.T) {
	code, out, _ := invoke(t, smallPhold...)
	require.Equal(t, 0, code)
	assert.Contains(t, out, "digest")
	assert.Contains(t, out, "events/s")
	code, out, _ = invoke(t, append(smallPhold, "--format", "csv")...)
	require.Equal(t, 0, code)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	assert.Equal(t, []string{"point", "row", "metric", "value"}, recs[0], "the schema of results.csv")
	assert.Equal(t, []string{"0", "0", "events"}, recs[1][:3])
}

// Bad input: exit status 2 and a message naming the offending flag or value.
func TestBadInputExitsWithUsageError(t *testing.T) {
	cases := map[string]struct {
		args []string
		want []string
	}{
		"unknown flag":            {[]string{"phold", "--furlongs", "5"}, []string{"unknown flag: --furlongs"}},
		"malformed unit":          {[]string{"phold", "--mean", "5 furlongs"}, []string{`"5 furlongs"`, "--mean", "furlongs"}},
		"zero lookahead":          {[]string{"phold", "--lookahead", "0", "--workers", "2"}, []string{"--lookahead 0s", "lookahead must be > 0"}},
		"negative lookahead":      {[]string{"phold", "--lookahead", "-1ns"}, []string{"lookahead must be >= 0 (got -1ns)"}},
		"bad remote":              {[]string{"phold", "--remote", "1.5"}, []string{`"1.5"`, "--remote"}},
		"bad lps":                 {[]string{"phold", "--lps", "0"}, []string{"lps must be >= 1 (got 0)"}},
		"bad engine":              {[]string{"phold", "--engine", "quantum"}, []string{`--engine: unknown engine "quantum"`}},
		"bad partition":           {[]string{"phold", "--partition", "slabby"}, []string{`--partition: unknown partitioning "slabby"`}},
		"bad format":              {[]string{"phold", "--format", "xml"}, []string{`--format: unknown format "xml"`}},
		"bad sync":                {[]string{"phold", "--sync", "telepathy"}, []string{`--sync: unknown synchronization "telepathy"`}},
		"horizon too few workers": {[]string{"phold", "--partition", "block", "--sync", "horizon"}, []string{"horizon needs a worker per partition"}},
		"bad workers":             {[]string{"phold", "--workers", "0"}, []string{"--workers must be >= 1 (got 0)"}},
		"unknown command":         {[]string{"teleport"}, []string{`unknown command "teleport"`}},
		"stray argument":          {[]string{"phold", "extra"}, []string{`unknown command "extra"`}},
		"default scenario flags":  {[]string{"--op", "teleport"}, []string{`--op: unknown PortalPerf op "teleport"`}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			code, out, errs := invoke(t, c.args...)
			assert.Equal(t, exitUsage, code, errs)
			assert.Empty(t, out)
			for _, w := range c.want {
				assert.Contains(t, errs, w)
			}
		})
	}
}

// An actor calling Fatalf ends the run with status 1 and a message naming the actor and
// the simulated time, identically under every engine.
func TestSimulationErrorExitsWithStatus1(t *testing.T) {
	var msgs []string
	for _, args := range [][]string{{"--engine", "serial"}, {"--workers", "2"}, {"--partition", "block"}} {
		code, out, errs := invoke(t, append(append(append([]string{}, smallPhold...), "--fail-at", "100ns"), args...)...)
		assert.Equal(t, exitSimulation, code)
		assert.Empty(t, out)
		assert.Contains(t, errs, "lp[0] at t=")
		assert.Contains(t, errs, "injected fault (fail_at 100ns)")
		msgs = append(msgs, errs)
	}
	assert.Equal(t, msgs[0], msgs[1])
	assert.Equal(t, msgs[0], msgs[2])
}

func TestHelp(t *testing.T) {
	code, out, _ := invoke(t, "phold", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "--lookahead")
	assert.Contains(t, out, "Examples:")
}

// --set and --config set parameters; flags win over --set, --set over the file.
func TestSetAndConfigPrecedence(t *testing.T) {
	v := pholdJSON(t, "--set", "phold.mean=2ns", "--set", "phold.lps=32")
	params := v["params"].(map[string]any)
	assert.Equal(t, "2ns", params["mean"])
	assert.Equal(t, "64", params["lps"], "the --lps flag of smallPhold wins over --set")

	dir := t.TempDir()
	file := dir + "/cfg.yaml"
	require.NoError(t, os.WriteFile(file, []byte("phold:\n  mean: 3ns\n  remote: 0.5\n"), 0o644))
	v = pholdJSON(t, "--config", file, "--set", "phold.remote=0.75")
	params = v["params"].(map[string]any)
	assert.Equal(t, "3ns", params["mean"])
	assert.Equal(t, "0.75", params["remote"])
}

func TestBadSettingsExitWithUsageError(t *testing.T) {
	dir := t.TempDir()
	bad := dir + "/bad.yaml"
	require.NoError(t, os.WriteFile(bad, []byte("phold:\n  mena: 3ns\n"), 0o644))
	cases := map[string]struct {
		args []string
		want string
	}{
		"unknown key":   {[]string{"--set", "phold.mena=2ns"}, `unknown parameter "phold.mena" (did you mean phold.mean?)`},
		"bad unit":      {[]string{"--set", "phold.mean=5 furlongs"}, `phold.mean: invalid duration "5 furlongs"`},
		"no equals":     {[]string{"--set", "phold.mean"}, `invalid setting "phold.mean": want key=value`},
		"bad preset":    {[]string{"--set", "machine=cray1"}, `unknown machine preset "cray1"`},
		"missing file":  {[]string{"--config", dir + "/nope.yaml"}, "--config"},
		"bad file key":  {[]string{"--config", bad}, `line 2: unknown parameter "phold.mena"`},
		"invalid value": {[]string{"--set", "phold.lps=0"}, "lps must be >= 1"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"phold", "--quiet", "--end", "100ns"}, c.args...)
			if name == "invalid value" {
				args = []string{"phold", "--quiet", "--end", "100ns", "--set", "phold.lps=0"}
			}
			code, out, errs := invoke(t, args...)
			assert.Equal(t, exitUsage, code, errs)
			assert.Empty(t, out)
			assert.Contains(t, errs, c.want)
		})
	}
}

// The report names the kinds of actor the events went to, with their events a packet
// (table) and every kind in run.json, adding up to the run's events.
func TestReportEventsByBlock(t *testing.T) {
	args := []string{"motif", "halo3d", "--torus", "2x2x2", "--iters", "1", "--warmup", "0", "--face", "1K", "--out", "none", "--quiet"}
	code, out, errs := invoke(t, args...)
	require.Equal(t, 0, code, errs)
	line := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "events by block") {
			line = l
		}
	}
	require.NotEmpty(t, line, out)
	assert.Regexp(t, `router\.Port \d+\.\d% \([0-9.]+ a packet\)`, line)

	code, out, errs = invoke(t, append(args, "--format", "json")...)
	require.Equal(t, 0, code, errs)
	var v struct {
		Events uint64 `json:"events"`
		Run    struct {
			Blocks []struct {
				Block  string `json:"block"`
				Actors int    `json:"actors"`
				Events uint64 `json:"events"`
			} `json:"events_by_block"`
		} `json:"run"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &v), out)
	var sum uint64
	kinds := map[string]int{}
	for _, b := range v.Run.Blocks {
		sum += b.Events
		kinds[b.Block] = b.Actors
	}
	assert.Equal(t, v.Events, sum)
	assert.Equal(t, 8*7, kinds["router.Port"], "seven router ports a node")
	for _, k := range []string{"txdma.Engine", "rxdma.Engine", "ht.Link", "ppc.Core", "host.CPU"} {
		assert.Equal(t, 8, kinds[k], k)
	}

	// A benchmark of several simulations (one per --match-list length) sums them by kind.
	code, out, errs = invoke(t, "bench", "portalperf", "--sizes", "0", "--iters", "10", "--match-list", "0,16", "--out", "none", "--quiet", "--format", "json")
	require.Equal(t, 0, code, errs)
	require.NoError(t, json.Unmarshal([]byte(out), &v), out)
	sum = 0
	for _, b := range v.Run.Blocks {
		sum += b.Events
	}
	assert.Equal(t, v.Events, sum)
}

// The "events by block" line names the busiest kinds, then says how many more there
// are, or how many had no event.
func TestBlocksLine(t *testing.T) {
	r := &result{Events: 100}
	r.Run.Packets = 10
	r.Run.Blocks = []blockInfo{{"a.A", 1, 60}, {"b.B", 2, 40}, {"c.C", 1, 0}, {"d.D", 1, 0}}
	assert.Equal(t, "a.A 60.0% (6 a packet), b.B 40.0% (4 a packet), 2 kinds without events", r.blocksLine())
	r.Run.Packets = 0
	r.Run.Blocks = nil
	for i := range blocksShown + 2 {
		r.Run.Blocks = append(r.Run.Blocks, blockInfo{Block: string(rune('a' + i)), Actors: 1, Events: 10})
	}
	line := r.blocksLine()
	assert.True(t, strings.HasPrefix(line, "a 10.0%, b 10.0%"), line)
	assert.True(t, strings.HasSuffix(line, ", 2 more kinds (events_by_block in run.json and --format json)"), line)
	assert.Empty(t, (&result{}).blocksLine())
}

package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var smallTraffic = []string{"bench", "traffic", "--torus", "4x4x2", "--warmup", "500ns", "--measure", "2us",
	"--drain", "500ns", "--quiet", "--format", "json"}

func trafficJSON(t *testing.T, extra ...string) map[string]any {
	t.Helper()
	code, out, errs := invoke(t, append(append([]string{}, smallTraffic...), extra...)...)
	require.Equal(t, 0, code, errs)
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &v), out)
	return v
}

func trafficRows(t *testing.T, v map[string]any) []map[string]any {
	t.Helper()
	var rows []map[string]any
	for _, r := range v["rows"].([]any) {
		rows = append(rows, r.(map[string]any))
	}
	return rows
}

// Same digest, events and rows for every engine, worker count and partitioning.
func TestTrafficDigestAcrossEngines(t *testing.T) {
	ref := trafficJSON(t, "--load", "0.3,0.8", "--engine", "serial")
	refRows := trafficRows(t, ref)
	require.Len(t, refRows, 2)
	for _, args := range [][]string{
		{"--workers", "1", "--partition", "node"}, {"--workers", "2", "--partition", "node"},
		{"--workers", "4", "--partition", "node"}, {"--workers", "1", "--partition", "auto"},
		{"--workers", "2", "--partition", "auto"}, {"--workers", "4", "--partition", "auto"},
	} {
		v := trafficJSON(t, append([]string{"--load", "0.3,0.8"}, args...)...)
		assert.Equal(t, ref["digest"], v["digest"], args)
		assert.Equal(t, ref["events"], v["events"], args)
		assert.Equal(t, refRows, trafficRows(t, v), args)
	}
	other := trafficJSON(t, "--load", "0.3,0.8", "--seed", "2")
	assert.NotEqual(t, ref["digest"], other["digest"])
}

// Accepted load never exceeds the offered load and saturates as the load grows.
func TestTrafficSaturation(t *testing.T) {
	v := trafficJSON(t, "--load", "0.1:1:+0.3")
	rows := trafficRows(t, v)
	require.Len(t, rows, 4)
	assert.Equal(t, "0.1,0.4,0.7,1", v["params"].(map[string]any)["load"])
	prev := 0.0
	for _, r := range rows {
		offered, accepted := r["load_offered"].(float64), r["load_accepted"].(float64)
		t.Logf("offered %.2f accepted %.3f latency %.3f us p99 %.3f us util %.3f/%.3f", offered, accepted,
			r["latency_mean_us"], r["latency_p99_us"], r["link_util_mean"], r["link_util_max"])
		assert.LessOrEqual(t, accepted, offered+0.02)
		assert.GreaterOrEqual(t, accepted, prev*0.95)
		assert.LessOrEqual(t, r["link_util_max"].(float64), 1.0)
		assert.Equal(t, "uniform", r["pattern"])
		for _, k := range []string{"accepted_GBps_per_node", "latency_mean_us", "latency_p99_us", "link_util_mean", "events"} {
			assert.Contains(t, r, k)
		}
		prev = accepted
	}
	assert.InDelta(t, 0.1, rows[0]["load_accepted"], 0.02, "low load is accepted")
	assert.Less(t, rows[3]["load_accepted"].(float64), 0.98, "full load saturates")
	assert.Greater(t, rows[3]["latency_mean_us"].(float64), rows[0]["latency_mean_us"].(float64))
}

func TestTrafficPatternsAndTable(t *testing.T) {
	for _, p := range []string{"transpose", "hotspot"} {
		v := trafficJSON(t, "--pattern", p, "--load", "0.4", "--mesh", "--msg-packets", "2", "--hotspot-fraction", "0.3")
		rows := trafficRows(t, v)
		require.Len(t, rows, 1)
		assert.Equal(t, p, rows[0]["pattern"])
		assert.Equal(t, "4x4x2 mesh", v["params"].(map[string]any)["topology"])
	}
	code, out, errs := invoke(t, "bench", "traffic", "--torus", "2x2x2", "--measure", "500ns", "--quiet")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "load_accepted")
	assert.Contains(t, out, "router.link_bandwidth")
}

// Router parameters come from --set and the machine preset.
func TestTrafficRouterParams(t *testing.T) {
	xt5 := trafficJSON(t, "--load", "0.2", "--set", "machine=xt5", "--set", "router.crc_error_rate=0.01")
	params := xt5["params"].(map[string]any)
	assert.Equal(t, "3.05GB/s", params["router.link_bandwidth"])
	assert.Equal(t, "0.01", params["router.crc_error_rate"])
	rows := trafficRows(t, xt5)
	assert.InDelta(t, 0.2*3.05, rows[0]["accepted_GBps_per_node"], 0.05)
	assert.Positive(t, rows[0]["retries"])
	code, out, errs := invoke(t, "bench", "traffic", "--quiet", "--set", "router.vcs=3")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out)
	assert.Contains(t, errs, "vcs must be even")
}

// Bad input: exit status 2 and a message naming the flag and the value.
func TestTrafficBadInput(t *testing.T) {
	cases := map[string]struct {
		args []string
		want []string
	}{
		"torus zero":      {[]string{"--torus", "8x0x8"}, []string{`--torus "8x0x8"`}},
		"torus words":     {[]string{"--torus", "big"}, []string{`--torus "big"`}},
		"pattern":         {[]string{"--pattern", "tornado"}, []string{"--pattern", `"tornado"`}},
		"load too high":   {[]string{"--load", "1.5"}, []string{`--load "1.5"`, "out of range"}},
		"load garbage":    {[]string{"--load", "lots"}, []string{`--load "lots"`}},
		"load bad range":  {[]string{"--load", "0.1:1"}, []string{`--load "0.1:1"`, "START:END:+STEP"}},
		"load zero step":  {[]string{"--load", "0.1:1:+0"}, []string{`--load "0.1:1:+0"`, "step"}},
		"load past one":   {[]string{"--load", "0.5:2:+0.5"}, []string{`--load "0.5:2:+0.5"`, "out of range"}},
		"msg packets":     {[]string{"--msg-packets", "0"}, []string{"--msg-packets 0"}},
		"measure":         {[]string{"--measure", "0"}, []string{"--measure 0s"}},
		"measure unit":    {[]string{"--measure", "5 parsecs"}, []string{"--measure", `"5 parsecs"`}},
		"warmup negative": {[]string{"--warmup", "-1us"}, []string{"--warmup -1us"}},
		"hotspot frac":    {[]string{"--hotspot-fraction", "2"}, []string{"--hotspot-fraction", `"2"`}},
		"hotspot node":    {[]string{"--hotspot-node", "99"}, []string{"--hotspot-node 99", "0..31"}},
		"source queue":    {[]string{"--source-queue", "1", "--msg-packets", "2"}, []string{"--source-queue 1"}},
		"workers":         {[]string{"--workers", "0"}, []string{"--workers must be >= 1"}},
		"stray argument":  {[]string{"extra"}, []string{`unknown command "extra"`}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			args := []string{"bench", "traffic", "--torus", "4x4x2", "--quiet"}
			code, out, errs := invoke(t, append(args, c.args...)...)
			assert.Equal(t, exitUsage, code, errs)
			assert.Empty(t, out)
			for _, w := range c.want {
				assert.Contains(t, errs, w)
			}
		})
	}
}

func TestParseLoads(t *testing.T) {
	str := func(ps []actors.Prob) string {
		var s []string
		for _, p := range ps {
			s = append(s, p.String())
		}
		return strings.Join(s, " ")
	}
	for in, want := range map[string]string{
		"0.5":                "0.5",
		"0.1,0.5,1.0":        "0.1 0.5 1",
		"0.1:1.0:+0.1":       "0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1",
		"0.01:1:x2":          "0.01 0.02 0.04 0.08 0.16 0.32 0.64",
		"25%,0.05:0.15:+.05": "0.25 0.05 0.1 0.15",
	} {
		got, err := parseLoads(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, str(got), in)
	}
	_, err := parseLoads("0:1:+0.0001")
	assert.ErrorContains(t, err, "more than 1000 loads")
}

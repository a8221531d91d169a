package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// `run` without a command is the default scenario of docs/design.md s.8: PortalPerf put over
// generic-mode Portals on two nodes, JSON rows with the docs/design.md field names, and a
// results directory with plots.
func TestDefaultScenarioIsPortalPerfPut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	code, out, errs := invoke(t, "--sizes", "0,16,100K", "--iters", "3", "--quiet", "--format", "json", "--out", dir)
	require.Equal(t, 0, code, errs)
	var v struct {
		Command string           `json:"command"`
		Digest  string           `json:"digest"`
		Rows    []map[string]any `json:"rows"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &v), out)
	assert.Equal(t, "bench portalperf", v.Command)
	assert.NotEmpty(t, v.Digest)
	require.Len(t, v.Rows, 3)
	for i, size := range []float64{0, 16, 100 << 10} {
		r := v.Rows[i]
		assert.Equal(t, "put", r["op"])
		assert.Equal(t, "generic", r["mode"])
		assert.Equal(t, size, r["size_bytes"])
	}
	zero, past := v.Rows[0]["latency_us"].(float64), v.Rows[1]["latency_us"].(float64)
	assert.InDelta(t, 4.89, zero, 0.25, "0 B one-way latency (calibration target 4.89 us)")
	assert.Greater(t, past, zero, "16 B no longer fits in the header packet")
	assert.InDelta(t, 1051, v.Rows[2]["bandwidth_MBps"].(float64), 1051*0.05)
	for _, f := range []string{"config.yaml", "run.json", "results.csv", "results.json", "latency_vs_size.png", "bandwidth_vs_size.svg"} {
		_, err := os.Stat(filepath.Join(dir, f))
		assert.NoError(t, err, f)
	}
}

// run bench portalperf: one simulation per op, rows of each op in order; get and
// bidir are slower than half a put round trip, as their mechanisms dictate (a get is
// a request and a reply; bidir shares the NICs between both directions).
func TestBenchPortalPerfOps(t *testing.T) {
	v := invokeJSON(t, "bench", "portalperf", "--op", "put,get,bidir", "--sizes", "0,64K", "--iters", "2")
	require.Len(t, v.Rows, 6)
	lat := map[string]float64{}
	for _, r := range v.Rows {
		if r["size_bytes"].(float64) == 0 {
			lat[r["op"].(string)] = r["latency_us"].(float64)
		}
	}
	assert.Greater(t, lat["get"], lat["put"])
	assert.Greater(t, lat["bidir"], lat["put"])
}

// run bench netpipe: rows per op and size; a stream sends small messages faster than
// a ping-pong's one-way latency. Bad schedules are usage errors.
func TestBenchNetPIPE(t *testing.T) {
	v := invokeJSON(t, "bench", "netpipe", "--op", "pingpong,stream", "--sizes", "8,1K", "--iters", "100")
	require.Len(t, v.Rows, 4)
	assert.Equal(t, "pingpong", v.Rows[0]["op"])
	assert.Equal(t, "stream", v.Rows[2]["op"])
	assert.Less(t, v.Rows[2]["latency_us"].(float64), v.Rows[0]["latency_us"].(float64))
	code, _, errs := invoke(t, "bench", "netpipe", "--start", "1K", "--end", "8", "--out", "none")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "need 1 <= start <= end")
}

package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// run bench jam prints the twelve Table 2 rows and the shared-memory read on both
// networks; StarT-JR and SeaStar benchmarks refuse each other's machines.
func TestJAMBench(t *testing.T) {
	for _, m := range []string{"startjr", "startjr-arctic"} {
		v := invokeJSON(t, "bench", "jam", "--set", "machine="+m, "--stream", "20", "--overheads", "2", "--pingpongs", "2", "--reads", "2")
		require.Len(t, v.Rows, 13, m)
		assert.Equal(t, "JAM_4", v.Rows[0]["primitive"])
		assert.Equal(t, "JAM_reply_dma_n=640", v.Rows[11]["primitive"])
		for _, r := range v.Rows[:12] {
			for _, k := range []string{"send_overhead_us", "recv_overhead_us", "send_MBps", "send_us", "recv_MBps", "recv_us", "latency_us"} {
				assert.Positive(t, r[k].(float64), "%s %s %s", m, r["primitive"], k)
			}
		}
		assert.Equal(t, "shm_read", v.Rows[12]["primitive"])
		assert.InDelta(t, 2.0, v.Rows[12]["latency_us"].(float64), 0.1, m)
	}
	code, _, errs := invoke(t, "bench", "portalperf", "--set", "machine=startjr")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "machine=startjr is a StarT-JR cluster")
	code, _, errs = invoke(t, "motif", "halo3d", "--set", "machine=startjr-arctic")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "StarT-JR cluster")
	code, _, errs = invoke(t, "bench", "jam", "--set", "machine=xt5")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "needs a StarT-JR machine")
	code, _, errs = invoke(t, "bench", "jam", "--primitives", "JAM_5")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `unknown primitive "JAM_5"`)
}

// run bench funi: every pattern delivers everything; the exhausted hotspot shows the
// recovery counters; a cluster too big for a 1394 bus is a usage error.
func TestFUNIBench(t *testing.T) {
	v := invokeJSON(t, "bench", "funi", "--nodes", "4", "--messages", "4", "--set", "funi.gid_quantum=200us")
	require.Len(t, v.Rows, 4)
	for _, r := range v.Rows {
		assert.Zero(t, r["lost"], r["pattern"])
		assert.Positive(t, r["received"].(float64), r["pattern"])
	}
	assert.Positive(t, v.Rows[3]["nacks_gid"].(float64), "two GIDs time-share the nodes")
	v = invokeJSON(t, "bench", "funi", "--pattern", "hotspot", "--messages", "8", "--set", "startjr.squall.fifo_bytes=256",
		"--set", "startjr.i960.clock=10MHz")
	require.Len(t, v.Rows, 1)
	assert.Zero(t, v.Rows[0]["lost"])
	assert.Positive(t, v.Rows[0]["rounds"].(float64))
	assert.Positive(t, v.Rows[0]["retries"].(float64))
	code, _, errs := invoke(t, "bench", "funi", "--nodes", "64")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "at most 63")
}

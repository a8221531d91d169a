package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// run bench osu-latency --layer mpi reports the MPI zero-byte latency, above the raw
// Portals latency of the same benchmark; rows carry the docs/design.md field names.
func TestOSULatencyLayers(t *testing.T) {
	v := invokeJSON(t, "bench", "osu-latency", "--layer", "portals,mpi", "--sizes", "0,1K", "--iters", "5")
	assert.Equal(t, "bench osu-latency", v.Command)
	require.Len(t, v.Rows, 4)
	lat := map[string]float64{}
	for _, r := range v.Rows {
		assert.Equal(t, "generic", r["mode"])
		if r["size_bytes"] == 0.0 {
			lat[r["layer"].(string)] = r["latency_us"].(float64)
		}
	}
	assert.InDelta(t, 4.9, lat["portals"], 0.5)
	assert.Greater(t, lat["mpi"], lat["portals"])
}

// osu-bw and osu-mr report bandwidth and message rate for a window of messages.
func TestOSUBandwidthAndRate(t *testing.T) {
	for _, b := range []string{"osu-bw", "osu-mr"} {
		v := invokeJSON(t, "bench", b, "--layer", "mpi", "--sizes", "8,32K", "--iters", "2", "--window", "16")
		require.Len(t, v.Rows, 2, b)
		assert.Greater(t, v.Rows[1]["bandwidth_MBps"], v.Rows[0]["bandwidth_MBps"], b)
		assert.Greater(t, v.Rows[0]["msg_per_s"], v.Rows[1]["msg_per_s"], b)
		assert.NotContains(t, v.Rows[0], "latency_us", b)
	}
}

// Bad OSU flags: exit status 2 naming the flag.
func TestOSUUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "osu-latency", "--layer", "cci"}, "--layer"},
		{[]string{"bench", "osu-bw", "--window", "0"}, "window"},
		{[]string{"bench", "osu-mr", "--sizes", "1:x"}, "--sizes"},
		{[]string{"bench", "osu-latency", "--bridge", "nobridge"}, "--bridge"},
	} {
		code, _, errs := invoke(t, append(tc.args, "--quiet", "--out", "none")...)
		assert.Equal(t, 2, code, tc.args)
		assert.Contains(t, errs, tc.want, tc.args)
	}
}

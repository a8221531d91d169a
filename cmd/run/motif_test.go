package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type benchJSON struct {
	Command string            `json:"command"`
	Digest  string            `json:"digest"`
	Params  map[string]string `json:"params"`
	Rows    []map[string]any  `json:"rows"`
}

func invokeJSON(t *testing.T, args ...string) benchJSON {
	t.Helper()
	code, out, errs := invoke(t, append(args, "--quiet", "--format", "json", "--out", "none")...)
	require.Equal(t, 0, code, errs)
	var v benchJSON
	require.NoError(t, json.Unmarshal([]byte(out), &v), out)
	return v
}

// run motif halo3d on an 8x8x8 torus: one row with the motif's figures; the same
// digest and figures for the serial engine and the parallel engine with 1, 2 and 4
// workers and node partitioning.
func TestMotifHalo3D8x8x8Digest(t *testing.T) {
	args := []string{"motif", "halo3d", "--torus", "8x8x8", "--face", "1K", "--iters", "1", "--warmup", "0"}
	ref := invokeJSON(t, append(args, "--engine", "serial")...)
	require.Len(t, ref.Rows, 1)
	r := ref.Rows[0]
	assert.Equal(t, "halo3d", r["motif"])
	assert.Equal(t, 512.0, r["ranks"])
	assert.Equal(t, 1024.0, r["size_bytes"])
	assert.Equal(t, 512.0*6, r["messages"])
	assert.Equal(t, "8x8x8", ref.Params["grid"])
	for _, k := range []string{"iter_time_us", "iter_max_us", "bandwidth_MBps", "rank_bandwidth_MBps", "latency_p50_us", "latency_p99_us"} {
		assert.Positive(t, r[k], k)
	}
	for _, extra := range [][]string{{"--workers", "1"}, {"--workers", "2"}, {"--workers", "4"}, {"--workers", "2", "--partition", "node"}} {
		v := invokeJSON(t, append(args, extra...)...)
		assert.Equal(t, ref.Digest, v.Digest, extra)
		assert.Equal(t, ref.Rows, v.Rows, extra)
	}
}

// Every motif runs from the command line; bench motif --motif is the same run.
func TestMotifCommands(t *testing.T) {
	for _, m := range []string{"pingpong", "alltoall", "allreduce", "random", "hotspot"} {
		v := invokeJSON(t, "motif", m, "--torus", "2x2x2", "--size", "512", "--iters", "1")
		require.Len(t, v.Rows, 1, m)
		assert.Equal(t, m, v.Rows[0]["motif"])
		assert.Positive(t, v.Rows[0]["iter_time_us"], m)
	}
	a := invokeJSON(t, "motif", "random", "--torus", "2x2x2", "--placement", "random", "--seed", "5")
	b := invokeJSON(t, "bench", "motif", "--motif", "random", "--torus", "2x2x2", "--placement", "random", "--seed", "5")
	assert.Equal(t, a.Digest, b.Digest)
	assert.Equal(t, a.Rows, b.Rows)
}

// Bad motif input: exit status 2 and a message naming it.
func TestMotifUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"motif", "ring"}, `unknown motif "ring"`},
		{[]string{"motif"}, "want one motif name"},
		{[]string{"motif", "halo3d", "--torus", "2x2x2", "--ranks", "9"}, "ranks must be in 0..8"},
		{[]string{"motif", "halo3d", "--torus", "2x2x2", "--grid", "2x2"}, "--grid"},
		{[]string{"motif", "halo3d", "--torus", "2x2x2", "--placement", "spiral"}, "--placement"},
		{[]string{"motif", "allreduce", "--torus", "2x2x2", "--size", "12"}, "multiple of 8B"},
		{[]string{"motif", "halo3d", "--torus", "2x2x2", "--set", "mpi.eager_max=-1B"}, "mpi: eager_max"},
	} {
		code, _, errs := invoke(t, append(tc.args, "--quiet", "--out", "none")...)
		assert.Equal(t, 2, code, tc.args)
		assert.Contains(t, errs, tc.want, tc.args)
	}
}

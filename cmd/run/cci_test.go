package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// run bench cci-pingpong runs on the xt5 preset unless machine is set, one row per
// connection type and size; latency grows with the size, and a reliable connection
// is not faster than an unreliable one.
func TestCCIPingPongRows(t *testing.T) {
	v := invokeJSON(t, "bench", "cci-pingpong", "--sizes", "0,4K", "--iters", "20", "--warmup", "2")
	assert.Equal(t, "bench cci-pingpong", v.Command)
	assert.Equal(t, "xt5", v.Params["machine"])
	require.Len(t, v.Rows, 6)
	lat := map[string]map[float64]float64{}
	for _, r := range v.Rows {
		assert.Equal(t, "pingpong", r["op"])
		c := r["conn"].(string)
		if lat[c] == nil {
			lat[c] = map[float64]float64{}
		}
		lat[c][r["size_bytes"].(float64)] = r["latency_us"].(float64)
	}
	for _, c := range []string{"uu", "ru", "ro"} {
		assert.Greater(t, lat[c][4096], lat[c][0], c)
	}
	assert.GreaterOrEqual(t, lat["ru"][0], lat["uu"][0])

	rs := invokeJSON(t, "bench", "cci-pingpong", "--conn", "uu", "--sizes", "0", "--iters", "20", "--set", "machine=redstorm")
	require.Len(t, rs.Rows, 1)
	assert.Equal(t, "redstorm", rs.Params["machine"])
}

// run bench cci-stream reports the best of the windows tried, with its window; RMA
// streams run on the reliable connections only; serial and 2 workers agree.
func TestCCIStreamRows(t *testing.T) {
	args := []string{"bench", "cci-stream", "--conn", "uu,ru", "--op", "msg,rma", "--sizes", "64", "--rma-sizes", "64K",
		"--iters", "50", "--warmup", "5", "--rma-iters", "4", "--window", "1,8"}
	v := invokeJSON(t, append(args, "--engine", "serial")...)
	require.Len(t, v.Rows, 3)
	ops := []string{}
	for _, r := range v.Rows {
		ops = append(ops, r["op"].(string)+"/"+r["conn"].(string))
		assert.Contains(t, []float64{1, 8}, r["window"])
		assert.Positive(t, r["msg_per_s"])
		assert.InDelta(t, 1e6/r["msg_per_s"].(float64), r["latency_us"], 1e-6)
	}
	assert.Equal(t, []string{"stream/uu", "stream/ru", "rma/ru"}, ops)
	assert.Equal(t, 8.0, v.Rows[0]["window"], "more messages in flight give a higher rate")
	assert.Greater(t, v.Rows[2]["bandwidth_MBps"], v.Rows[1]["bandwidth_MBps"])
	w2 := invokeJSON(t, append(args, "--workers", "2")...)
	assert.Equal(t, v.Digest, w2.Digest)
	assert.Equal(t, v.Rows, w2.Rows)
}

// Bad CCI flags and values: exit status 2 naming the flag or key.
func TestCCIUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "cci-pingpong", "--conn", "ur"}, "--conn"},
		{[]string{"bench", "cci-pingpong", "--sizes", "8K"}, "mss"},
		{[]string{"bench", "cci-stream", "--window", "0"}, "--window"},
		{[]string{"bench", "cci-stream", "--op", "put"}, "--op"},
		{[]string{"bench", "cci-stream", "--op", "rma", "--conn", "uu"}, "reliable"},
		{[]string{"bench", "cci-pingpong", "--set", "cci.cq_slots=4"}, "cq_slots"},
		// One batch of slots ran for ever: the NIC never wrote back (a hang, not an error).
		{[]string{"bench", "cci-stream", "--set", "cci.cmd_slots=8"}, "cmd_slots (8) must be at least twice cmd_credit_batch (8)"},
	} {
		code, _, errs := invoke(t, append(tc.args, "--quiet", "--out", "none")...)
		assert.Equal(t, 2, code, tc.args)
		assert.Contains(t, errs, tc.want, tc.args)
	}
}

package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A fault campaign: link CRC errors are recovered by the routers' retry and lose
// nothing; end-to-end drops, which Portals 3.3 does not recover, are reported LOST
// with exit status 1; the campaign is the same for any worker count.
func TestFaultsCampaign(t *testing.T) {
	args := []string{"faults", "--motif", "hotspot", "--torus", "2x2x2", "--iters", "2", "--crc", "0,1e-2", "--out", "none", "--quiet",
		"--format", "json"}
	var digests []string
	for _, w := range []string{"1", "2"} {
		code, out, errs := invoke(t, append(args, "--workers", w)...)
		require.Equal(t, 0, code, errs)
		var v struct {
			Digest string           `json:"digest"`
			Rows   []map[string]any `json:"rows"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &v))
		require.Len(t, v.Rows, 2)
		for _, r := range v.Rows {
			assert.Equal(t, "ok", r["delivered"], "%v", r)
			assert.Equal(t, r["messages_sent"], r["messages_received"])
			assert.Equal(t, r["bytes_sent"], r["bytes_received"])
		}
		assert.Zero(t, v.Rows[0]["retries"])
		assert.Greater(t, v.Rows[1]["retries"], 0.0, "CRC errors at 1%% of transmissions are retried")
		digests = append(digests, v.Digest)
	}
	assert.Equal(t, digests[0], digests[1])

	code, out, errs := invoke(t, "faults", "--motif", "hotspot", "--torus", "2x2x2", "--iters", "2", "--crc", "0", "--drop", "0,0.01",
		"--out", "none", "--quiet")
	assert.Equal(t, exitSimulation, code, errs)
	assert.Contains(t, out, "LOST")
	assert.Contains(t, errs, "1 of 2 points LOST data")
}

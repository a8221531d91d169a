package main

import (
	"encoding/json"
	"os"
	"path/filepath"
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
	res := filepath.Join(t.TempDir(), "res")
	code, _, errs = invoke(t, "faults", "--motif", "hotspot", "--torus", "2x2x2", "--iters", "2", "--crc", "0", "--drop", "0,0.01",
		"--out", res, "--quiet")
	assert.Equal(t, exitSimulation, code, errs)
	rj, err := os.ReadFile(filepath.Join(res, "run.json"))
	require.NoError(t, err)
	assert.Contains(t, string(rj), "1 of 2 points LOST data", "run.json says what the rows show")
}

// With portals.recovery=gbn the campaign loses nothing where the C firmware's
// behaviour loses messages (drops) or panics (exhaustion): go-back-n retransmits, the
// same on one and two workers.
func TestFaultsCampaignRecovers(t *testing.T) {
	args := []string{"faults", "--motif", "hotspot", "--torus", "2x2x2", "--iters", "2", "--crc", "0,1e-2", "--drop", "0.05",
		"--set", "portals.recovery=gbn", "--out", "none", "--quiet", "--format", "json"}
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
			assert.Greater(t, r["retransmits"], 0.0, "lost messages are sent again: %v", r)
			assert.Greater(t, r["payloads_intact"], 0.0, "payloads checked at their receivers: %v", r)
			assert.Zero(t, r["payloads_corrupt"], "%v", r)
			assert.Zero(t, r["payloads_twice"], "%v", r)
		}
		digests = append(digests, v.Digest)
	}
	assert.Equal(t, digests[0], digests[1])

	exhaust := []string{"faults", "--motif", "hotspot", "--torus", "2x2x2", "--iters", "2", "--crc", "0", "--set", "portals.sources=2",
		"--out", "none", "--quiet", "--format", "json"}
	code, out, errs := invoke(t, exhaust...)
	assert.Equal(t, exitSimulation, code, "the C firmware panics: %s", errs)
	assert.Contains(t, out, "out of source structures")
	code, out, errs = invoke(t, append(exhaust, "--set", "portals.recovery=gbn")...)
	require.Equal(t, 0, code, errs)
	var v struct {
		Rows []map[string]any `json:"rows"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &v))
	assert.Equal(t, "ok", v.Rows[0]["delivered"])
	assert.Greater(t, v.Rows[0]["refused_resources"], 0.0, "messages refused for want of a source structure, then resent")

	// A single CAM entry: the C firmware panics; go-back-n swaps entries between sources
	// (spilling and refilling their commands), nothing lost, the same on 1 and 2 workers.
	cam := []string{"faults", "--motif", "hotspot", "--torus", "2x2x2", "--iters", "2", "--crc", "0", "--drop", "0,0.02",
		"--set", "cam.entries=1", "--out", "none", "--quiet", "--format", "json"}
	code, _, errs = invoke(t, cam...)
	assert.Equal(t, exitSimulation, code, "the C firmware panics: %s", errs)
	digests = nil
	for _, w := range []string{"1", "2"} {
		code, out, errs = invoke(t, append(cam, "--set", "portals.recovery=gbn", "--workers", w)...)
		require.Equal(t, 0, code, errs)
		var cv struct {
			Digest string           `json:"digest"`
			Rows   []map[string]any `json:"rows"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &cv))
		for _, r := range cv.Rows {
			assert.Equal(t, "ok", r["delivered"], "%v", r)
			assert.Greater(t, r["cam_swaps"], 0.0, "entries swapped between sources: %v", r)
		}
		digests = append(digests, cv.Digest)
	}
	assert.Equal(t, digests[0], digests[1])
}

// A NIC that stalls and a link that goes down delay the workload and lose nothing,
// with or without go-back-n; the same digests on one and two workers.
func TestFaultsStallAndLinkDown(t *testing.T) {
	args := []string{"faults", "--motif", "hotspot", "--torus", "2x2x2", "--iters", "2", "--crc", "0", "--stall", "0,500us",
		"--down", "0,500us", "--fault-node", "1", "--fault-at", "50us", "--out", "none", "--quiet", "--format", "json"}
	for _, rec := range []string{"panic", "gbn"} {
		var digests []string
		for _, w := range []string{"1", "2"} {
			code, out, errs := invoke(t, append(args, "--set", "portals.recovery="+rec, "--workers", w)...)
			require.Equal(t, 0, code, errs)
			var v struct {
				Digest string           `json:"digest"`
				Rows   []map[string]any `json:"rows"`
			}
			require.NoError(t, json.Unmarshal([]byte(out), &v))
			require.Len(t, v.Rows, 4)
			for i, r := range v.Rows {
				assert.Equal(t, "ok", r["delivered"], "%s %v", rec, r)
				if i > 0 {
					assert.Greater(t, r["time_lost_pct"], 0.0, "%s: the fault costs time: %v", rec, r)
				}
			}
			digests = append(digests, v.Digest)
		}
		assert.Equal(t, digests[0], digests[1], rec)
	}
	code, _, errs := invoke(t, "faults", "--torus", "2x2x2", "--crc", "0", "--stall", "1ms", "--fault-node", "8", "--out", "none")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "must name a node")
}

// The campaign's results directory holds plots of the time lost against each fault
// setting it varied.
func TestFaultsCampaignPlots(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "f")
	code, _, errs := invoke(t, "faults", "--motif", "hotspot", "--torus", "2x2x2", "--iters", "1", "--crc", "0,1e-2", "--out", dir, "--quiet")
	require.Equal(t, 0, code, errs)
	for _, f := range []string{"time_lost_pct_vs_crc_error_rate.png", "iter_time_us_vs_crc_error_rate.svg"} {
		assert.FileExists(t, filepath.Join(dir, "plots", f))
	}
	assert.NoFileExists(t, filepath.Join(dir, "plots", "time_lost_pct_vs_drop_rate.png"), "drop_rate was not varied")
}

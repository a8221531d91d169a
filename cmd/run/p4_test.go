package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Portals 4 benchmarks run from the command line on every NIC choice, with rows
// of the documented fields.
func TestBenchPortals4(t *testing.T) {
	for _, nic := range []string{"offload", "onload", "matchunit", "ib"} {
		v := invokeJSON(t, "bench", "p4-latency", "--sizes", "0,1K", "--iters", "2", "--warmup", "1", "--set", "portals4.nic="+nic)
		require.Len(t, v.Rows, 8, nic)
		for _, r := range v.Rows {
			assert.Positive(t, r["latency_us"].(float64), "%s %v", nic, r)
		}
		v = invokeJSON(t, "bench", "p4-msgrate", "--sizes", "8", "--priority", "1,64", "--messages", "32", "--set", "portals4.nic="+nic)
		require.Len(t, v.Rows, 2, nic)
		if nic == "matchunit" { // 64 entries are on chip: no cost
			assert.Equal(t, v.Rows[0]["msg_per_s"], v.Rows[1]["msg_per_s"])
		} else {
			assert.Greater(t, v.Rows[0]["msg_per_s"].(float64), v.Rows[1]["msg_per_s"].(float64), "%s: a longer list costs", nic)
		}
		v = invokeJSON(t, "bench", "p4-trig", "--nodes", "4", "--iters", "2", "--set", "portals4.nic="+nic)
		require.Len(t, v.Rows, 2, nic)
		assert.Positive(t, v.Rows[0]["host_over_triggered"].(float64))
	}
	code, _, errs := invoke(t, "bench", "p4-msgrate", "--set", "portals4.nic=onload", "--set", "portals4.onload_progress=thread")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "host.cores >= 2")
	code, _, errs = invoke(t, "bench", "portalperf", "--set", "machine=ib")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "machine=ib is an InfiniBand cluster")
}

// run conform portals4: a line per file and the summary; JSON as the issue specifies;
// exit 1 when a test fails, 2 for a bad path.
func TestConformRunner(t *testing.T) {
	dir := t.TempDir()
	good := `<?xml version="1.0"?><test><ptl><ptl_ni><ptl_pt><ptl_pt_alloc pt_index="0" ret="PT_IN_USE"/></ptl_pt></ptl_ni></ptl></test>`
	bad := `<?xml version="1.0"?><test><ptl><ptl_ni><ptl_pt pt_index="BIG"/></ptl_ni></ptl></test>`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "good.xml"), []byte(good), 0o644))
	code, out, errs := invoke(t, "conform", "portals4", filepath.Join(dir, "good.xml"))
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "1 passed, 0 failed, 0 skipped")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.xml"), []byte(bad), 0o644))
	code, out, _ = invoke(t, "conform", "portals4", dir, "--format", "json")
	assert.Equal(t, 1, code)
	var v struct {
		Passed, Failed, Skipped int
		Tests                   []struct{ File, Result, Reason string }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &v), out)
	assert.Equal(t, 1, v.Passed)
	assert.Equal(t, 1, v.Failed)
	require.Len(t, v.Tests, 2)
	assert.Equal(t, "fail", v.Tests[0].Result)
	assert.Contains(t, v.Tests[0].Reason, "PTL_ARG_INVALID, want PTL_OK")
	// The results directory says so too: the run completed, one test failed.
	res := filepath.Join(t.TempDir(), "res")
	code, _, _ = invoke(t, "conform", "portals4", dir, "--out", res, "--quiet")
	assert.Equal(t, 1, code)
	rj, err := os.ReadFile(filepath.Join(res, "run.json"))
	require.NoError(t, err)
	assert.Contains(t, string(rj), "1 of 2 tests failed")

	code, _, _ = invoke(t, "conform", "portals4", filepath.Join(dir, "missing"))
	assert.Equal(t, 2, code)
	code, _, _ = invoke(t, "conform", "portals5", dir)
	assert.Equal(t, 2, code)
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var smallPerf = []string{"bench", "portalperf", "--sizes", "0,2K", "--iters", "3", "--quiet", "--out", "none"}

// docs/design.md s.7: the trace file is byte-identical across worker counts and engines, and the
// run report counts what was traced.
func TestTraceFileSameForAnyWorkers(t *testing.T) {
	dir := t.TempDir()
	var files [][]byte
	for i, args := range [][]string{{"--engine", "serial"}, {"--workers", "1"}, {"--workers", "2", "--partition", "node"}} {
		file := filepath.Join(dir, "t"+string(rune('0'+i))+".jsonl")
		all := append(append(append([]string{}, smallPerf...), "--trace-file", file, "--trace-sample", "50%", "--format", "json"), args...)
		code, out, errs := invoke(t, all...)
		require.Equal(t, 0, code, errs)
		var v struct {
			Trace traceReport `json:"trace"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &v), out)
		assert.Positive(t, v.Trace.Traces)
		assert.Equal(t, v.Trace.Spans, v.Trace.Written)
		assert.Zero(t, v.Trace.Dropped)
		assert.Equal(t, "0.5", v.Trace.Sample)
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		assert.Equal(t, v.Trace.Written, int64(strings.Count(string(b), "\n")))
		files = append(files, b)
	}
	assert.Equal(t, string(files[0]), string(files[1]), "serial vs 1 worker")
	assert.Equal(t, string(files[0]), string(files[2]), "serial vs 2 workers")
}

// A traced run that traced no message says so: the traffic generator's packets carry no
// trace id, and a sample can pick none of a short run's messages.
func TestTraceNothingTracedWarns(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := invoke(t, "bench", "traffic", "--torus", "2x2x2", "--measure", "200ns", "--quiet", "--out", "none",
		"--trace-file", filepath.Join(dir, "traffic.jsonl"))
	require.Equal(t, 0, code, errs)
	assert.Contains(t, errs, "no message was traced")
	code, _, errs = invoke(t, append(append([]string{}, smallPerf...), "--trace-file", filepath.Join(dir, "perf.jsonl"))...)
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, errs, "no message was traced")
}

// A raw DMA message is one trace: its root, the host's stores, the TX DMA engine, every
// router hop, the RX DMA engine and the firmware's handlers on both nodes; the file is
// byte-identical for any engine, worker count and partitioning.
func TestTraceRawDMA(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i, extra := range [][]string{{"--engine", "serial"}, {"--workers", "1"}, {"--workers", "2", "--partition", "node"}} {
		file := filepath.Join(dir, "raw"+string(rune('0'+i))+".jsonl")
		args := append([]string{"bench", "rawdma", "--sizes", "0,4K", "--iters", "3", "--quiet", "--out", "none", "--trace-file", file}, extra...)
		code, _, errs := invoke(t, args...)
		require.Equal(t, 0, code, errs)
		assert.NotContains(t, errs, "no message was traced")
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		files = append(files, string(b))
	}
	assert.Equal(t, files[0], files[1], "serial vs 1 worker")
	assert.Equal(t, files[0], files[2], "serial vs 2 workers")
	names := map[string]int{}
	traces := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(files[0]), "\n") {
		var s struct {
			Trace string `json:"trace_id"`
			Name  string `json:"name"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &s), line)
		names[s.Name]++
		traces[s.Trace] = true
	}
	require.Positive(t, names["rawdma/message"])
	assert.Equal(t, len(traces), names["rawdma/message"], "one root a message")
	for _, stage := range []string{"host/send", "txdma/message", "router/hop", "rxdma/message", "ppc/rx_som", "ppc/rx_done", "ppc/tx_done"} {
		assert.Positive(t, names[stage], stage)
	}
}

// run tracedump prints the rings a run wrote with --trace-ring in the format of
// Pedretti & Hudson 2005 figure 2.
func TestTraceRingAndTracedump(t *testing.T) {
	ring := filepath.Join(t.TempDir(), "ring.bin")
	code, out, errs := invoke(t, append(append([]string{}, smallPerf...), "--set", "ppc.trace_enabled=true", "--trace-ring", ring)...)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "2 firmware trace rings in "+ring)
	code, out, errs = invoke(t, "tracedump", ring)
	require.Equal(t, 0, code, errs)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Greater(t, len(lines), 10)
	assert.Regexp(t, `^# node\[0,0,0\]\.ppc: \d+ records \(\d+ written\)$`, lines[0])
	rec := regexp.MustCompile(`^[0-9a-f]{8}: \d+: [0-9a-f]{8} [a-z_]+\+[0-9a-f]{4}( \(\d+ ns\))?$`)
	heads := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "# ") {
			heads++
			continue
		}
		assert.Regexp(t, rec, l)
	}
	assert.Equal(t, 2, heads)
	assert.Contains(t, out, "mainloop+0014")
	assert.Contains(t, out, "rx_header+006c")
}

// CCI's and Portals 4's firmware write the trace ring too: on both nodes, a command, a
// new message and a transmit's completion, each after the main loop's dispatch.
func TestTraceRingCCIAndPortals4(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		handlers []string
	}{
		{[]string{"bench", "cci-pingpong", "--conn", "uu", "--sizes", "0", "--iters", "2"},
			[]string{"cci_command", "cci_rx_header", "cci_rx_done", "cci_tx_done"}},
		{[]string{"bench", "p4-latency", "--sizes", "0", "--ops", "put", "--ni", "matching", "--iters", "2"},
			[]string{"p4_call", "p4_rx_header", "p4_tx_done"}},
	} {
		ring := filepath.Join(t.TempDir(), "ring.bin")
		code, _, errs := invoke(t, append(tc.args, "--out", "none", "--quiet", "--set", "ppc.trace_enabled=true", "--trace-ring", ring)...)
		require.Equal(t, 0, code, errs)
		code, out, errs := invoke(t, "tracedump", ring)
		require.Equal(t, 0, code, errs)
		nodes := strings.Split(out, "# node[")
		require.Len(t, nodes, 3, out)
		for _, n := range nodes[1:] {
			for _, h := range tc.handlers {
				assert.Regexp(t, `mainloop\+0014 \(\d+ ns\)\n[0-9a-f]{8}: \d+: [0-9a-f]{8} `+h+`\+006c`, n, "%s: node[%s", tc.args[1], n[:8])
			}
		}
	}
}

func TestTraceFlagErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(append([]string{}, smallPerf...), "--trace-ring", filepath.Join(dir, "r")), "ppc.trace_enabled=true"},
		{append(append([]string{}, smallPerf...), "--trace-otlp", "ftp://x:1"), "unknown scheme"},
		{append(append([]string{}, smallPerf...), "--trace-file", filepath.Join(dir, "f"), "--trace-epoch", "yesterday"), "--trace-epoch"},
		{append(append([]string{}, smallPerf...), "--trace-file", filepath.Join(dir, "f"), "--trace-sample", "2"), "--trace-sample"},
		{append(append([]string{}, smallPerf...), "--trace-file", filepath.Join(dir, "no", "dir", "f")), "--trace-file: trace file"},
		{append(append([]string{}, smallPerf...), "--trace-timeline", filepath.Join(dir, "no", "dir", "f")), "--trace-timeline: timeline"},
		{[]string{"phold", "--quiet", "--out", "none", "--trace-file", filepath.Join(dir, "f")}, "phold has no messages"},
		{[]string{"tracedump", filepath.Join(dir, "missing")}, "no such file"},
		{[]string{"tracedump"}, "accepts 1 arg"},
	} {
		code, _, errs := invoke(t, tc.args...)
		assert.Equal(t, 2, code, "%v: %s", tc.args, errs)
		assert.Contains(t, errs, tc.want, tc.args)
	}
}

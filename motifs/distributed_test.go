package motifs

import (
	"context"
	"fmt"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/internal/clustertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// halo3dSmall is halo3d on the 8x8x8 torus, one iteration of 1 KiB faces.
func halo3dSmall() Config {
	cfg := small(Halo3D, "8x8x8")
	cfg.Iters, cfg.Warmup = 1, 0
	return cfg
}

// sameResult requires got to be ref: same digest, events, simulated time and results.
func sameResult(t *testing.T, ref, got *Result, msg string) {
	t.Helper()
	assert.Equal(t, ref.Report.Digest, got.Report.Digest, msg)
	assert.Equal(t, ref.Report.Events, got.Report.Events, msg)
	assert.Equal(t, ref.Report.SimTime, got.Report.SimTime, msg)
	assert.Equal(t, ref.Report.Packets, got.Report.Packets, msg, "network packets, every process's")
	r, g := *ref, *got
	r.Report, g.Report = nil, nil
	assert.Equal(t, r, g, msg)
}

// inTwoProcesses runs cfg split across 2 processes (in this test process, slab
// partitions, one worker each) and returns each process's result.
func inTwoProcesses(t *testing.T, cfg Config) []*Result {
	t.Helper()
	res := make([]*Result, 2)
	errs := clustertest.InProcesses(t, 2, actors.Options{Workers: 1, Partitioner: actors.Slab{}},
		func(p int, o actors.Options) error {
			r, err := Run(context.Background(), cfg, o)
			res[p] = r
			return err
		})
	for p := range 2 {
		require.NoError(t, errs[p], "process %d", p)
	}
	return res
}

// halo3d on 8x8x8 gives the same digest and results with the serial engine, the
// parallel engine with 1, 2 and 4 workers and node or slab partitions, and split
// across 2 processes (in this test process), in both processes.
func TestHalo3DSameDigestEverywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("512 nodes, several runs")
	}
	cfg := halo3dSmall()
	ref := run(t, cfg, serial)
	require.Equal(t, int64(512*6), ref.Messages)
	for _, o := range []actors.Options{{Workers: 1}, {Workers: 2}, {Workers: 4},
		{Workers: 2, Partitioner: actors.Node{}}, {Workers: 4, Partitioner: actors.Slab{}}} {
		sameResult(t, ref, run(t, cfg, o), fmt.Sprintf("workers %d %v", o.Workers, o.Partitioner))
	}
	res := inTwoProcesses(t, cfg)
	for p := range 2 {
		assert.Equal(t, 2, res[p].Report.Processes)
		sameResult(t, ref, res[p], fmt.Sprintf("2 processes, process %d", p))
	}
}

// Faults with recovery: a hotspot on 4x4x2 with 5% of messages lost, CRC errors, two
// CAM entries a node and go-back-n (with CAM swapping) delivers everything and gives the
// same digest, events, simulated time and MPI counts with the serial engine, 2
// workers, and split across 2 processes; in generic and in accelerated mode.
func TestFaultsWithRecoverySameDigestEverywhere(t *testing.T) {
	for _, mode := range []string{"generic", "accelerated"} {
		t.Run(mode, func(t *testing.T) { faultsEverywhere(t, mode) })
	}
}

func faultsEverywhere(t *testing.T, mode string) {
	cfg := small(Hotspot, "4x4x2")
	cfg.Portals.Mode = mode
	cfg.Machine.CAM.Entries = 2
	cfg.Machine.RXDMA.DropRate = actors.MustParseProb("0.05")
	cfg.Machine.Router.CRCErrorRate = actors.MustParseProb("1e-3")
	cfg.Portals.Recovery = "gbn"
	ref := run(t, cfg, serial)
	require.Equal(t, ref.MPI.Sends, ref.MPI.Received)
	require.Positive(t, ref.GBN.Retransmits, "messages were lost and sent again")
	require.Positive(t, ref.GBN.Swaps, "CAM entries were swapped between sources")
	sameResult(t, ref, run(t, cfg, actors.Options{Workers: 2, Partitioner: actors.Node{}}), "2 workers")
	res := inTwoProcesses(t, cfg)
	for p := range 2 {
		assert.Equal(t, ref.Report.Digest, res[p].Report.Digest, "process %d", p)
		assert.Equal(t, ref.Report.Events, res[p].Report.Events, "process %d", p)
		assert.Equal(t, ref.Report.Packets, res[p].Report.Packets, "process %d", p)
		assert.Equal(t, ref.MPI, res[p].MPI, "process %d", p)
	}
}

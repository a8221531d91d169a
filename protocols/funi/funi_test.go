package funi

import (
	"context"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/machine"
	"github.com/stretchr/testify/require"
)

func preset(t *testing.T, name string, nodes int) machine.Params {
	mp, err := machine.Preset(name)
	require.NoError(t, err)
	mp.StarTJR.Nodes = nodes
	return mp
}

func within(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	require.InDelta(t, want, got, want*tol, "%s: model %.3g, Table 2 %.3g", what, got, want)
}

// The calibration rows of Hoe & Ehrlich 1996 Table 2 (and the shared-memory read) are
// reproduced within 5% on IEEE 1394.
func TestCalibrationRows(t *testing.T) {
	mp := preset(t, "startjr", 2)
	for _, c := range []struct {
		prim                   string
		so, ro, sendUs, recvUs float64
	}{{"JAM_4", 2.2, 1.1, 29, 29}, {"JAM_n=1", 2.0, 1.3, 27, 26}, {"JAM_n=20", 5.4, 3.5, 42, 42}} {
		pr, _ := PrimitiveByName(c.prim)
		row, _, err := Table(context.Background(), mp, DefaultParams(), pr, DefaultTableConfig(), actors.Options{Seed: 1})
		require.NoError(t, err)
		within(t, c.prim+" send overhead", row.SendOverhead.Microseconds(), c.so, 0.05)
		within(t, c.prim+" recv overhead", row.RecvOverhead.Microseconds(), c.ro, 0.05)
		within(t, c.prim+" send us", row.SendPer.Microseconds(), c.sendUs, 0.05)
		within(t, c.prim+" recv us", row.RecvPer.Microseconds(), c.recvUs, 0.05)
	}
	hit, miss, _, err := ShmRead(context.Background(), mp, DefaultParams(), 4, actors.Options{Seed: 1})
	require.NoError(t, err)
	within(t, "shared-memory read", hit.Microseconds(), 2.0, 0.05)
	require.Greater(t, miss, 5*hit, "a miss goes to the home node over the network")
}

// Arctic, with the minimal protocol, moves small messages with less coprocessor
// occupancy than IEEE 1394 (Hoe & Ehrlich 1996 s.4).
func TestArcticImprovesOnIEEE1394(t *testing.T) {
	pr, _ := PrimitiveByName("JAM_4")
	c := TableConfig{Overheads: 2, Stream: 40, PingPongs: 4}
	a, _, err := Table(context.Background(), preset(t, "startjr-arctic", 2), DefaultParams(), pr, c, actors.Options{Seed: 1})
	require.NoError(t, err)
	b, _, err := Table(context.Background(), preset(t, "startjr", 2), DefaultParams(), pr, c, actors.Options{Seed: 1})
	require.NoError(t, err)
	require.Less(t, a.SendPer, b.SendPer)
	require.Less(t, a.Latency, b.Latency)
}

// A hotspot on eight nodes whose receiving application is slower than its senders fills
// node 0's Rx queue: NACKs and retries, and still every message arrives exactly once.
// The digest does not depend on the workers or the partitioning.
func TestHotspotLosesNothing(t *testing.T) {
	mp := preset(t, "startjr", 8)
	var digest string
	for i, o := range []actors.Options{{Seed: 3, Workers: 1}, {Seed: 3, Engine: actors.Parallel, Workers: 2, Partitioner: actors.Block{}}} {
		r, rep, err := Load(context.Background(), mp, DefaultParams(), "hotspot", 60, 100*actors.Microsecond, o)
		require.NoError(t, err)
		require.Equal(t, int64(7*60), r.Sent)
		require.Zero(t, r.Lost(), "%+v", r)
		require.Zero(t, r.Duplicates)
		require.Positive(t, r.FW.Retries, "the hotspot must make senders retry: %+v", r.FW)
		require.Positive(t, r.FW.Nacks+r.FW.Rounds)
		if i == 0 {
			digest = rep.Digest
		} else {
			require.Equal(t, digest, rep.Digest)
		}
	}
}

// Two applications time-sharing the nodes: packets for the application not running are
// refused (GID) and retried; none reaches the wrong one.
func TestGIDsTimeShared(t *testing.T) {
	mp := preset(t, "startjr", 4)
	p := DefaultParams()
	p.GIDQuantum = 200 * actors.Microsecond
	r, _, err := Load(context.Background(), mp, p, "gids", 10, 0, actors.Options{Seed: 5})
	require.NoError(t, err)
	require.Equal(t, int64(2*4*3*10), r.Sent)
	require.Zero(t, r.Lost(), "%+v", r)
	require.Zero(t, r.Misdel)
	require.Positive(t, r.FW.GIDRejected)
}

// On Arctic (no acknowledgements) the firmware keeps a packet it cannot deliver yet in
// its DRAM, out of the receive FIFO, and looks at it again later: a packet for the
// application not running (GID), or for an Rx queue the slow host has not emptied. A
// packet looked at several times leaves the FIFO once, and each arrives exactly once.
func TestArcticKeepsPacketsInDRAM(t *testing.T) {
	mp := preset(t, "startjr-arctic", 4)
	p := DefaultParams()
	p.GIDQuantum = 200 * actors.Microsecond
	r, _, err := Load(context.Background(), mp, p, "gids", 10, 0, actors.Options{Seed: 5})
	require.NoError(t, err)
	require.Equal(t, int64(2*4*3*10), r.Sent)
	require.Zero(t, r.Lost(), "%+v", r)
	require.Zero(t, r.Duplicates+r.Misdel)
	require.Greater(t, r.FW.GIDRejected, r.Sent, "packets must be looked at again while their application is not running: %+v", r.FW)

	r, _, err = Load(context.Background(), preset(t, "startjr-arctic", 8), DefaultParams(), "hotspot", 20, 100*actors.Microsecond, actors.Options{Seed: 5})
	require.NoError(t, err)
	require.Zero(t, r.Lost(), "%+v", r)
	require.Zero(t, r.Duplicates+r.Misdel)
	require.Positive(t, r.FW.QueueFull, "the slow receiver's Rx queue must fill: %+v", r.FW)
}

func TestRefusesSeaStar(t *testing.T) {
	_, err := NewJob(machine.Default(), DefaultParams(), 1)
	require.ErrorIs(t, err, actors.ErrConfig)
	require.ErrorContains(t, err, "machine=startjr")
}

// With the receive FIFOs shrunk and the i960 slowed (exhaustion on demand), the PLMs
// discard packets: new rounds, restarts and paced retries recover every message, in
// every pattern, identically for one and two workers.
func TestRoundsRecoverDiscards(t *testing.T) {
	mp := preset(t, "startjr", 8)
	mp.StarTJR.Squall.FIFOBytes = 256
	mp.StarTJR.I960.Clock = 10 * actors.Megahertz
	for _, pat := range []string{"hotspot", "alltoall", "gids"} {
		var digest string
		for i, o := range []actors.Options{{Seed: 7, Workers: 1}, {Seed: 7, Engine: actors.Parallel, Workers: 2, Partitioner: actors.Block{}}} {
			r, rep, err := Load(context.Background(), mp, DefaultParams(), pat, 8, 0, o)
			require.NoError(t, err, pat)
			require.Zero(t, r.Lost(), "%s: %+v", pat, r)
			require.Zero(t, r.Duplicates+r.Misdel, pat)
			require.Positive(t, r.Discarded, "%s: the PLM must discard", pat)
			require.Positive(t, r.FW.Rounds, pat)
			require.Positive(t, r.FW.Restarts, pat)
			require.Positive(t, r.FW.Retries, pat)
			if i == 0 {
				digest = rep.Digest
			} else {
				require.Equal(t, digest, rep.Digest, pat)
			}
		}
	}
}

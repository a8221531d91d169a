package router

import (
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomBursts gives every node a few bursts to random destinations, drawn from a
// stream of the test seed (not of the run), so the traffic is the same in every run.
func randomBursts(topo Topology, seed uint64, bursts, size int) func(NodeID) []burst {
	return func(src NodeID) []burst {
		r := actors.NewRand(seed, topo.NodeName(src))
		var b []burst
		for range bursts {
			b = append(b, burst{dst: NodeID(r.IntN(topo.Nodes())), n: 1 + r.IntN(size), class: uint8(r.IntN(2))})
		}
		return b
	}
}

// Seeded CRC errors: every packet is delivered exactly once, and retries happened.
func TestCRCErrorsLoseNothing(t *testing.T) {
	topo := Torus(4, 4, 2)
	p := tinyParams()
	p.CRCErrorRate = actors.MustParseProb("0.2")
	tn := newTestNet(t, topo, p, netOpts{ejectCredits: 2}, randomBursts(topo, 5, 6, 20))
	want := 0
	for _, n := range tn.nics {
		for _, b := range n.bursts {
			want += b.n
		}
	}
	tn.run(t, actors.Options{Seed: 11, Engine: actors.Serial})
	require.NoError(t, CheckDrained(tn.m))
	got := tn.deliveries()
	seen := map[[2]int32]int{}
	for _, d := range got {
		seen[[2]int32{int32(d.src), d.seq}]++
	}
	assert.Len(t, got, want)
	assert.Len(t, seen, want, "duplicates")
	s := CollectStats(tn.m)
	assert.Positive(t, s.Retries)
	t.Logf("%d packets, %d link transmissions, %d retries", want, s.Packets, s.Retries)
	// About 20% of attempts fail: retries / (retries + successes) is near 0.2.
	frac := float64(s.Retries) / float64(s.Retries+s.Packets)
	assert.InDelta(t, 0.2, frac, 0.05)
}

// CRC errors confined to one link (crc_node, crc_dir): only that link retries, and
// every packet is still delivered once.
func TestCRCErrorsOnOneLink(t *testing.T) {
	topo := Torus(4, 4, 2)
	p := tinyParams()
	p.CRCErrorRate = actors.MustParseProb("0.5")
	p.CRCNode, p.CRCDir = 5, "yp"
	tn := newTestNet(t, topo, p, netOpts{ejectCredits: 2}, randomBursts(topo, 5, 6, 20))
	want := 0
	for _, n := range tn.nics {
		for _, b := range n.bursts {
			want += b.n
		}
	}
	tn.run(t, actors.Options{Seed: 11, Engine: actors.Serial})
	require.NoError(t, CheckDrained(tn.m))
	assert.Len(t, tn.deliveries(), want)
	s := CollectStats(tn.m)
	link := topo.NodeName(5) + ".router.yp"
	var on uint64
	for _, ps := range s.Ports {
		if ps.Name == link {
			on = ps.Retries
			assert.Positive(t, ps.Packets, "the faulty link carried traffic")
		} else {
			assert.Zero(t, ps.Retries, "%s retried", ps.Name)
		}
	}
	assert.Positive(t, on, "%s retried", link)
	assert.Equal(t, s.Retries, on)
}

// The same traffic gives the same digest, events and deliveries under the serial
// engine and the parallel engine with any workers and partitioning.
func TestDigestAcrossEngines(t *testing.T) {
	topo := Torus(4, 3, 2)
	p := DefaultParams()
	p.InputBufferPackets = 2
	p.CRCErrorRate = actors.MustParseProb("0.05")
	run := func(opts actors.Options) (*actors.Report, []delivery) {
		tn := newTestNet(t, topo, p, netOpts{}, randomBursts(topo, 9, 4, 30))
		opts.Seed = 3
		rep := tn.run(t, opts)
		require.NoError(t, CheckDrained(tn.m))
		return rep, tn.deliveries()
	}
	ref, refGot := run(serial)
	for _, o := range []actors.Options{
		{Workers: 1, Partitioner: actors.Node{}},
		{Workers: 2, Partitioner: actors.Node{}},
		{Workers: 4, Partitioner: actors.Node{}},
		{Workers: 1, Partitioner: actors.Auto{}},
		{Workers: 2, Partitioner: actors.Auto{}},
		{Workers: 4, Partitioner: actors.Auto{}},
		{Workers: 2, Partitioner: actors.Auto{}, Sync: actors.SyncWindow},
		{Workers: 4, Partitioner: actors.Block{}},
	} {
		rep, got := run(o)
		name := o.Partitioner.Name()
		assert.Equal(t, ref.Digest, rep.Digest, "%s workers %d (seed 3; reproduce: go test ./router -run TestDigestAcrossEngines)", name, o.Workers)
		assert.Equal(t, ref.Events, rep.Events, name)
		assert.Equal(t, refGot, got, name)
	}
}

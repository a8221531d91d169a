package router

import (
	"fmt"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refStep is one link of a reference route: the node it leaves, the port and the
// expected dateline bit.
type refStep struct {
	from NodeID
	out  Dir
	bit  uint8
}

// refRoute is the dumb reference: for each dimension in order x, y, z it walks both
// directions coordinate by coordinate (falling off a mesh edge disqualifies a
// direction) and keeps the shorter walk, + on ties. The dateline bit of a link is 1
// from the wrap link of its dimension on.
func refRoute(t Topology, src, dst NodeID) []refStep {
	var steps []refStep
	cur, goal := t.Coord(src), t.Coord(dst)
	for dim := range 3 {
		k := t.size(dim)
		var best []refStep
		for _, plus := range []bool{true, false} {
			walk, ok := refWalk(t, cur, goal[dim], dim, k, plus)
			if ok && (best == nil || len(walk) < len(best)) {
				best = walk
			}
		}
		steps = append(steps, best...)
		cur[dim] = goal[dim]
	}
	return steps
}

func refWalk(t Topology, cur [3]int, goal, dim, k int, plus bool) ([]refStep, bool) {
	var walk []refStep
	var bit uint8
	out := Dir(2 * dim)
	if !plus {
		out++
	}
	for c := cur; c[dim] != goal; {
		next := c[dim] + 1
		if !plus {
			next = c[dim] - 1
		}
		if next < 0 || next >= k {
			if !t.wrap(dim) {
				return nil, false
			}
			next = (next + k) % k
			bit = 1
		}
		walk = append(walk, refStep{from: t.ID(c[0], c[1], c[2]), out: out, bit: bit})
		c[dim] = next
	}
	return walk, true
}

// routeWalk follows Topology.Route from src to dst.
func routeWalk(t Topology, src, dst NodeID, class uint8) ([]refStep, error) {
	var steps []refStep
	cur, in, vc := src, NIC, 2*class
	for range t.Nodes() + 1 {
		h := t.Route(cur, dst, in, class, vc)
		if h.Out == NIC {
			if h.VC != 2*class {
				return steps, fmt.Errorf("ejects on vc%d", h.VC)
			}
			return steps, nil
		}
		if h.VC/2 != class {
			return steps, fmt.Errorf("vc%d is not a channel of class %d", h.VC, class)
		}
		steps = append(steps, refStep{from: cur, out: h.Out, bit: h.VC & 1})
		next, ok := t.Neighbor(cur, h.Out)
		if !ok {
			return steps, fmt.Errorf("node %d routes through %s, which has no link", cur, h.Out)
		}
		cur, in, vc = next, h.Out.Opposite(), h.VC
	}
	return steps, fmt.Errorf("no arrival after %d hops", t.Nodes()+1)
}

// Property: on random tori, meshes and mixed topologies, dimension-order routing
// takes exactly the reference's links with its virtual channels, and its length is
// the minimal distance.
func TestRouteMatchesReference(t *testing.T) {
	r := actors.NewRand(7, "routing")
	for trial := range 200 {
		topo := Topology{X: 1 + r.IntN(7), Y: 1 + r.IntN(7), Z: 1 + r.IntN(5),
			WrapX: r.IntN(2) == 0, WrapY: r.IntN(2) == 0, WrapZ: r.IntN(2) == 0}
		for range 50 {
			src, dst := NodeID(r.IntN(topo.Nodes())), NodeID(r.IntN(topo.Nodes()))
			class := uint8(r.IntN(2))
			got, err := routeWalk(topo, src, dst, class)
			require.NoError(t, err, "trial %d: %s %d -> %d", trial, topo, src, dst)
			want := refRoute(topo, src, dst)
			require.Equal(t, want, got, "trial %d: %s %d -> %d", trial, topo, src, dst)
			require.Len(t, got, topo.Distance(src, dst))
		}
	}
}

// Every node of small tori and meshes sends to every node (itself included):
// everything arrives once, with the reference's hop count, and the network drains.
func TestAllToAllDelivers(t *testing.T) {
	for _, topo := range []Topology{Torus(3, 3, 3), Mesh(4, 3, 2), Torus(2, 2, 2), {X: 5, Y: 2, Z: 1, WrapX: true}} {
		t.Run(topo.String(), func(t *testing.T) {
			n := topo.Nodes()
			tn := newTestNet(t, topo, tinyParams(), netOpts{ejectCredits: 1}, func(src NodeID) []burst {
				var b []burst
				for i := range n {
					b = append(b, burst{dst: NodeID((int(src) + i) % n), n: 3, class: uint8(i % 2)})
				}
				return b
			})
			tn.run(t, serial)
			require.NoError(t, CheckDrained(tn.m))
			got := tn.deliveries()
			require.Len(t, got, 3*n*n)
			seen := map[[2]int32]bool{}
			for _, d := range got {
				key := [2]int32{int32(d.src), d.seq}
				require.False(t, seen[key], "duplicate %v", d)
				seen[key] = true
				require.EqualValues(t, len(refRoute(topo, d.src, d.dst)), d.hops, "%v", d)
			}
			s := CollectStats(tn.m)
			assert.EqualValues(t, 3*n*n, s.Injected)
			assert.EqualValues(t, 3*n*n, s.Ejected)
		})
	}
}

func TestParseTopology(t *testing.T) {
	for _, c := range []struct {
		dims, wrap string
		want       Topology
	}{
		{"8x8x8", "torus", Torus(8, 8, 8)},
		{"27x16x24", "torus", RedStorm()},
		{"4x3x2", "mesh", Mesh(4, 3, 2)},
		{"16", "torus", Torus(16, 1, 1)},
		{"4x4", "mesh", Mesh(4, 4, 1)},
		{"27x16x24", "mesh,mesh,torus", Topology{X: 27, Y: 16, Z: 24, WrapZ: true}},
	} {
		got, err := ParseTopology(c.dims, c.wrap)
		require.NoError(t, err)
		assert.Equal(t, c.want, got)
		var back Topology
		require.NoError(t, back.UnmarshalText([]byte(got.String())))
		assert.Equal(t, got, back, got.String())
	}
	assert.Equal(t, 10368, RedStorm().Nodes())
	for _, bad := range [][2]string{{"8x8x0", "torus"}, {"8x8x8x8", "torus"}, {"axb", "mesh"}, {"8x8x8", "ring"}, {"8x8x8", "torus,mesh"}, {"-1", "torus"}, {"1000x1000x1000", "torus"}} {
		_, err := ParseTopology(bad[0], bad[1])
		assert.Error(t, err, bad)
	}
	topo := Torus(4, 3, 2)
	for id := range NodeID(topo.Nodes()) {
		c := topo.Coord(id)
		assert.Equal(t, id, topo.ID(c[0], c[1], c[2]))
	}
	assert.Equal(t, "node[3,2,1]", topo.NodeName(topo.ID(3, 2, 1)))
}

func TestParams(t *testing.T) {
	p := DefaultParams()
	require.NoError(t, p.Validate())
	assert.Equal(t, 50*actors.Nanosecond, p.HopLatency(), "500 MHz x 25 cycles")
	assert.Equal(t, "25.6ns", p.PacketTime().String(), "64 B at 2.5 GB/s")
	assert.Equal(t, 53*actors.Nanosecond, p.CableLatency())
	assert.Equal(t, 2, p.Classes())
	for key, mutate := range map[string]func(*Params){
		"link_bandwidth":       func(p *Params) { p.LinkBandwidth = 0 },
		"packet_payload":       func(p *Params) { p.PacketPayload = 0 },
		"clock":                func(p *Params) { p.Clock = 0 },
		"hop_cycles":           func(p *Params) { p.HopCycles = 0 },
		"wire_latency":         func(p *Params) { p.WireLatency = -1 },
		"vcs":                  func(p *Params) { p.VCs = 3 },
		"input_buffer_packets": func(p *Params) { p.InputBufferPackets = 0 },
		"output_queue_packets": func(p *Params) { p.OutputQueuePackets = 0 },
		"retry_delay":          func(p *Params) { p.RetryDelay = -1 },
		"nic_latency":          func(p *Params) { p.NICLatency = 0 },
	} {
		q := DefaultParams()
		mutate(&q)
		err := q.Validate()
		require.Error(t, err, key)
		assert.Contains(t, err.Error(), key)
	}
	q := DefaultParams()
	q.WireLatency, q.HopCycles = 0, 1
	assert.ErrorContains(t, q.Validate(), "wire_latency")
}

package router

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tinyParams are buffers of one packet: the easiest setting for a deadlock.
func tinyParams() Params {
	p := DefaultParams()
	p.InputBufferPackets = 1
	p.OutputQueuePackets = 1
	return p
}

// halfway sends a long burst from every node to the node ceil(X/2) away in x (ties
// go +, so every packet crosses the wrap link of x's ring at some point).
func halfway(topo Topology, n int) func(NodeID) []burst {
	return func(src NodeID) []burst {
		c := topo.Coord(src)
		dst := topo.ID((c[0]+(topo.X+1)/2)%topo.X, c[1], c[2])
		return []burst{{dst: dst, n: n}}
	}
}

// The dateline makes dimension-order routing on a torus deadlock-free: the
// saturating wrap-around pattern delivers every packet.
func TestDatelineAvoidsDeadlock(t *testing.T) {
	for _, topo := range []Topology{Torus(8, 1, 1), Torus(5, 1, 1), Torus(4, 4, 2)} {
		t.Run(topo.String(), func(t *testing.T) {
			const n = 300
			tn := newTestNet(t, topo, tinyParams(), netOpts{ejectCredits: 1}, halfway(topo, n))
			tn.run(t, serial)
			require.NoError(t, CheckDrained(tn.m))
			assert.Len(t, tn.deliveries(), n*topo.Nodes())
		})
	}
}

// Without the dateline the same pattern deadlocks: the run ends because events ran
// out, with packets still buffered in a cycle of channels around the ring. (Whether a
// given run closes the cycle depends on timing; with round-robin arbitration this one
// does.)
func TestNoDatelineDeadlocks(t *testing.T) {
	topo := Torus(8, 1, 1)
	const n = 300
	p := tinyParams()
	p.Arbitration = "round_robin"
	tn := newTestNet(t, topo, p, netOpts{ejectCredits: 1, noDateline: true}, halfway(topo, n))
	rep := tn.run(t, serial)
	err := CheckDrained(tn.m)
	require.Error(t, err)
	t.Logf("after %d events, at %s: %v", rep.Events, rep.SimTime, err)
	assert.Contains(t, err.Error(), "deadlock: events ran out with")
	assert.Less(t, len(tn.deliveries()), n*topo.Nodes())
	assert.Positive(t, CollectStats(tn.m).Buffered)
}

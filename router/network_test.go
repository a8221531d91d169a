package router

import (
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One packet over h hops takes 2 NIC links, h+1 router pipelines, h cables and h+2
// packet times (store and forward on each of the h+2 links it crosses).
func TestUnloadedLatency(t *testing.T) {
	p := DefaultParams()
	tn := newTestNet(t, Torus(4, 1, 1), p, netOpts{}, func(src NodeID) []burst {
		if src == 0 {
			return []burst{{dst: 2, n: 1}}
		}
		return nil
	})
	tn.run(t, serial)
	got := tn.deliveries()
	require.Len(t, got, 1)
	h := 2
	want := actors.Time(0).Add(2*p.NICLatency + actors.Duration(h+1)*p.HopLatency() +
		actors.Duration(h)*p.WireLatency + actors.Duration(h+2)*p.PacketTime())
	assert.Equal(t, want, got[0].at)
	assert.Equal(t, "266.4ns", got[0].at.String())
	assert.EqualValues(t, h, got[0].hops)
	require.NoError(t, CheckDrained(tn.m))
}

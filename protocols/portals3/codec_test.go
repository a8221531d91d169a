package portals3

import (
	"testing"

	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/seastar-sim/seastar/protocols/portals3/ptl"
	"github.com/seastar-sim/seastar/router"
	"github.com/stretchr/testify/assert"
)

// Every field of a Portals message survives crossing processes, including fields added
// to the types later (Populated fills them all).
func TestWireCodec(t *testing.T) {
	h := actorstest.Populated[ptl.Header]()
	w := actorstest.Populated[Wire]()
	w.Hdr = &h
	got := actorstest.RoundTrip(t, &w).(*Wire)
	assert.NotSame(t, &h, got.Hdr)
	w.Data, w.Hdr = nil, nil
	actorstest.RoundTrip(t, &w)
	pk := router.NewPacket(router.Packet{Src: 1, Dst: 2, Seq: 3, Data: &Wire{Kind: Reply, Hdr: &h}})
	actorstest.RoundTrip(t, pk)
}

package portals3

import (
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/seastar-sim/seastar/protocols/portals3/ptl"
	"github.com/seastar-sim/seastar/router"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every field of a Portals message survives crossing processes, including fields added
// to the types later (Populated fills them all).
func TestWireCodec(t *testing.T) {
	h := actorstest.Populated[ptl.Header]()
	w := actorstest.Populated[Wire]()
	w.hdr = h
	w.Hdr = &w.hdr // as newWire makes it
	got := actorstest.RoundTrip(t, &w).(*Wire)
	assert.Same(t, &got.hdr, got.Hdr, "the decoded header lives in the decoded wire")

	// A wire whose header lives elsewhere (the accelerated firmware's) arrives with the
	// same header, kept in the decoded wire.
	x := w
	x.hdr, x.Hdr = ptl.Header{}, &h
	var e actors.Encoder
	e.Value(&x)
	require.NoError(t, e.Err())
	d := actors.NewDecoder(e.Bytes())
	got = d.Value().(*Wire)
	require.NoError(t, d.Err())
	assert.Equal(t, h, *got.Hdr.(*ptl.Header))
	got.hdr, got.Hdr = ptl.Header{}, x.Hdr
	assert.Equal(t, x, *got)

	w.Data, w.Hdr, w.hdr = nil, nil, ptl.Header{}
	actorstest.RoundTrip(t, &w)
	r := &Wire{Kind: Reply, hdr: h}
	r.Hdr = &r.hdr
	pk := router.NewPacket(router.Packet{Src: 1, Dst: 2, Seq: 3, Data: r})
	actorstest.RoundTrip(t, pk)
}

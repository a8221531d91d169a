package portals3

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seastar-sim/seastar/protocols/portals3/ptl"
)

// A sent wire's three holders (sending kernel, receiving RX DMA engine, receiving
// firmware) each drop it once; the last recycles it, not before.
func TestWireRecycledByItsLastHolder(t *testing.T) {
	hdr := ptl.Header{Op: ptl.OpPut, Length: 8192}
	w := newWire(Wire{Kind: Put, Src: 1, Dst: 2, ID: 7, Len: 8192}, hdr, false)
	require.Equal(t, hdr, *w.Hdr.(*ptl.Header), "the header travels inside the wire")
	w.Drop()
	w.Drop()
	require.Equal(t, uint64(7), w.ID, "two of three holders gone: still intact")
	require.Equal(t, hdr, *w.Hdr.(*ptl.Header))
	w.Drop()
	require.Zero(t, w.ID, "the last holder recycled it")
	require.Nil(t, w.Hdr)
}

// Under gbn a message may be resent after its holders are done: its wire is never
// recycled, however often it is dropped; nor is a wire built otherwise (decoded).
func TestWireNotRecycledUnderGBNOrUnpooled(t *testing.T) {
	w := newWire(Wire{Kind: Put, ID: 9}, ptl.Header{Length: 1}, true)
	for range 5 {
		w.Drop()
	}
	require.Equal(t, uint64(9), w.ID)
	plain := &Wire{Kind: Get, ID: 3}
	for range 5 {
		plain.Drop()
	}
	require.Equal(t, uint64(3), plain.ID)
}

package portals4

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seastar-sim/seastar/protocols/portals4/ptl4"
	"github.com/seastar-sim/seastar/router"
)

// A sent wire's three holders (sending firmware, receiving RX DMA engine, receiving
// firmware) each drop it once; the last recycles it and, when the firmware owns it,
// its Portals message, not before.
func TestWireRecycledByItsLastHolder(t *testing.T) {
	m := launched(t, 0xbeef)
	w := newWire(Wire{Msg: m, Src: 1, Dst: 2, ID: 7, Len: 64, ownMsg: true})
	var _ router.Counted = w
	w.Drop()
	w.Drop()
	require.Equal(t, uint64(7), w.ID, "two of three holders gone: still intact")
	require.Equal(t, uint64(0xbeef), m.Match)
	w.Drop()
	require.Zero(t, w.ID, "the last holder recycled it")
	require.Nil(t, w.Msg)
	require.Zero(t, m.Match, "and its message")
}

// Under onload the host libraries read a message from their rings after the wire is
// gone: the wire is recycled, the message is not. Nor is a wire or message built
// otherwise (decoded from another process), however often it is dropped.
func TestWireKeepsAMessageItDoesNotOwn(t *testing.T) {
	m := launched(t, 5)
	w := newWire(Wire{Msg: m, ID: 9})
	for range 3 {
		w.Drop()
	}
	require.Zero(t, w.ID)
	require.Equal(t, uint64(5), m.Match, "the message outlives the wire")
	plain := &Wire{Msg: &ptl4.Msg{Match: 3}, ID: 3, ownMsg: true}
	for range 5 {
		plain.Drop()
	}
	require.Equal(t, uint64(3), plain.ID)
	require.Equal(t, uint64(3), plain.Msg.Match)
}

// launched returns the request a library built for a put with match bits bits.
func launched(t *testing.T, bits uint64) *ptl4.Msg {
	mem := &ptl4.Space{}
	lib := ptl4.New(mem, 1, 0, TestUID)
	require.Equal(t, ptl4.OK, lib.Init())
	ni, _, r := lib.NIInit(ptl4.IfaceDef, ptl4.NIMatching|ptl4.NIPhysical, ptl4.PIDAny, nil)
	require.Equal(t, ptl4.OK, r)
	buf := mem.Alloc(64)
	md, r := lib.MDBind(ni, ptl4.MD{Start: buf, Length: 64, EQ: ptl4.EQNone, CT: ptl4.CTNone})
	require.Equal(t, ptl4.OK, r)
	require.Equal(t, ptl4.OK, lib.Start(ptl4.Args{Kind: ptl4.MsgPut, MD: md, Length: 64, Target: ptl4.ProcessID{NID: 2}, Match: bits}))
	require.Len(t, lib.Outbox, 1)
	return lib.Outbox[0]
}

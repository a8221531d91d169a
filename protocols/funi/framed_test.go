package funi

import (
	"testing"

	"github.com/seastar-sim/seastar/startjr/wire"
	"github.com/stretchr/testify/require"
)

// A pooled packet and its frame stay whole until their last holder drops them; frames
// not made by newFramed (broadcasts, shared-memory lines) are never recycled.
func TestFramedPacketRecycledByItsLastHolder(t *testing.T) {
	pk := newFramed(wire.Packet{Src: 1, Dst: 2, Bytes: 64, ID: 9}, Frame{Kind: fData, Src: 1, Seq: 5}, 2)
	fr := pk.Body.(*Frame)
	require.Same(t, fr, pk.Body, "the packet carries its own frame")
	fr.drop() // the receiving firmware
	require.EqualValues(t, 5, fr.Seq, "one holder left: intact")
	require.Equal(t, 2, pk.Dst)
	fr.drop() // the send buffer, on the acknowledgement
	require.Zero(t, fr.Seq, "recycled (zeroed) by the last holder")
	require.Nil(t, pk.Body)

	lone := &Frame{Kind: fRestart, Src: 3, Round: 4}
	lone.drop()
	lone.drop()
	require.EqualValues(t, 4, lone.Round, "a frame that is not pooled is left alone")
}

// A message keeps its own copy of the arguments and stays whole while its sender, a
// packet carrying it or an Rx entry holds it; the last to let go recycles it.
func TestMessageRecycledByItsLastHolder(t *testing.T) {
	args := []uint32{1, 2, 3}
	m := newMessage(Message{Kind: AMN, Dst: 1, Handler: 2}, args)
	args[0] = 9
	require.Equal(t, []uint32{1, 2, 3}, m.Args, "the message's own copy")
	m.hold() // a packet (queueData)
	pk := newFramed(wire.Packet{Src: 0, Dst: 1, Bytes: 32}, Frame{Kind: fData, Msg: m}, 1)
	m.drop() // the sender, composed
	require.Equal(t, 2, m.Handler, "the packet holds it")
	m.hold() // the receiver's Rx entry
	pk.Body.(*Frame).drop()
	require.Equal(t, AMN, m.Kind, "the Rx entry holds it")
	m.drop() // the library took it
	require.Nil(t, m.Args, "recycled (zeroed)")
	require.Zero(t, m.Handler)
}

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

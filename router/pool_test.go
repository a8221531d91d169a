package router

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// A first packet held by the receiving NIC's FIFO and by the PPC is recycled by the
// later of the two; one not from the pool is never touched.
func TestSharedPacketRecycledByTheLastHolder(t *testing.T) {
	p := NewPacket(Packet{Src: 1, Dst: 2, SOM: true, Payload: 64, Data: "m"})
	p.Share(2)
	p.Unshare()
	require.Equal(t, NodeID(2), p.Dst, "one holder done: the other still reads it")
	require.Equal(t, "m", p.Data)
	p.Unshare()
	require.Nil(t, p.Data, "both done: recycled, keeping nothing alive")
	q := &Packet{Dst: 3, SOM: true}
	q.Share(2)
	q.Unshare()
	q.Unshare()
	require.Equal(t, NodeID(3), q.Dst)
}

// A packet is one cache line, and the allocator's 64-byte class places each on a line
// of its own: a router port or a NIC engine reading a packet reads one line.
func TestPacketIsALine(t *testing.T) {
	const packetSize = 64 // a cache line
	require.LessOrEqual(t, unsafe.Sizeof(Packet{}), uintptr(packetSize))
	for i := range 100 {
		p := NewPacket(Packet{Seq: int32(i)})
		off := uintptr(unsafe.Pointer(p)) % packetSize
		require.LessOrEqual(t, off+unsafe.Sizeof(Packet{}), uintptr(packetSize), "packet %d at %p crosses a line", i, p)
	}
}

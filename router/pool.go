package router

import "sync"

// packetPool recycles the packets NICs inject (NewPacket) once the receiving NIC is
// done with them (Release): a packet's trip then costs no heap allocation. A pool
// shared by all partitions (sync.Pool is safe across the engine's workers); which
// packet value a NIC gets back does not matter, NewPacket sets every field.
var packetPool = sync.Pool{New: func() any { return new(Packet) }}

// NewPacket returns a packet with the fields of f that Release may recycle.
func NewPacket(f Packet) *Packet {
	p := packetPool.Get().(*Packet)
	*p = f
	p.pooled = true
	return p
}

// Release recycles p if it came from NewPacket. The caller must be its last holder:
// the receiving NIC once the packet has left its FIFO and nothing else can refer to it.
// A packet built otherwise (by a test, a decoder) is left to the garbage collector.
func (p *Packet) Release() {
	if !p.pooled {
		return
	}
	*p = Packet{}
	packetPool.Put(p)
}

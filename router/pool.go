package router

import "github.com/seastar-sim/seastar/actors"

// packetPool recycles the packets NICs inject (NewPacket) once the receiving NIC is
// done with them (Release): a packet's trip then costs no heap allocation. One pool for
// all partitions (actors.Pool is safe across the engine's workers); which packet value
// a NIC gets back does not matter, NewPacket sets every field.
var packetPool actors.Pool[Packet, *Packet]

// NewPacket returns a packet with the fields of f that Release may recycle.
func NewPacket(f Packet) *Packet { return packetPool.New(f) }

// Release recycles p if it came from NewPacket. The caller must be its last holder:
// the receiving NIC once the packet has left its FIFO and nothing else can refer to it.
// A packet built otherwise (by a test, a decoder) is left to the garbage collector.
func (p *Packet) Release() { packetPool.Release(p) }

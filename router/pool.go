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
// the receiving NIC once the packet has left its FIFO and nothing else can refer to it
// (or, for a packet that crossed to another process, the encoder: Crossed). A packet
// built otherwise (by a test, a traffic generator's descriptor) is left to the garbage
// collector.
func (p *Packet) Release() { packetPool.Release(p) }

// Share gives p n holders at once (a first packet: the receiving NIC's FIFO and the
// PPC told of it); each calls Unshare when done, and the last recycles it. They may run
// on different workers.
func (p *Packet) Share(n int32) { p.shared.Set(n) }

// Unshare ends one holder's hold on a packet given to several (Share); the last
// holder's call recycles it.
func (p *Packet) Unshare() {
	if p.shared.Drop() {
		p.Release()
	}
}

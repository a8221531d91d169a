package traffic

import (
	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/router"
)

// A traffic packet crosses processes as its router.Packet fields (router's codec) and
// its creation time; it is its own Data, which HoldPacket restores.
func init() {
	actors.RegisterCodec("traffic.packet",
		func(e *actors.Encoder, p *packet) { e.Time(p.created) },
		func(d *actors.Decoder) *packet { return packets.New(packet{created: d.Time()}) })
}

// HoldPacket implements router.PacketHolder.
func (p *packet) HoldPacket(pk router.Packet) *router.Packet {
	p.Packet = pk
	p.Packet.Data = p
	return &p.Packet
}

// Snapshot implements actors.Snapshotter: the node's statistics, which the summary of
// a run reads, shipped to every process of a multi-process run.
func (n *Node) Snapshot(e *actors.Encoder) {
	actors.Vars{&n.stats}.Snapshot(e)
	h := &n.lat
	e.Uint(h.n)
	e.Duration(h.sum)
	e.Duration(h.max)
	e.Uint(uint64(len(h.counts)))
	for _, c := range h.counts {
		e.Uint(uint64(c))
	}
}

// Restore implements actors.Snapshotter.
func (n *Node) Restore(d *actors.Decoder) {
	actors.Vars{&n.stats}.Restore(d)
	h := &n.lat
	h.n, h.sum, h.max = d.Uint(), d.Duration(), d.Duration()
	h.counts = make([]uint32, d.Count(1))
	for i := range h.counts {
		h.counts[i] = uint32(d.Uint())
	}
}

package router

import "github.com/seastar-sim/seastar/actors"

// Codecs of the messages that cross router-to-router links, so that a run can be split
// across processes along slabs of the torus (actors.Slab, actors.Cluster). A packet's
// Data is encoded with its own registered codec: every protocol registers the
// descriptor type it puts there. A decoded packet comes from the receiving process's
// packet pool, with a decoded copy of its Data; packets of one message share that copy
// only if they crossed in one batch (the protocols' descriptors are shared codecs),
// which no receiver relies on. The sending process's packet goes back to its pool once
// encoded (Crossed).
func init() {
	actors.RegisterCodec("router.Packet", encodePacket, decodePacket)
	actors.RegisterCodec("router.Credit",
		func(e *actors.Encoder, c Credit) { e.Byte(byte(c)) },
		func(d *actors.Decoder) Credit { return Credit(d.Byte()) })
}

// PacketHolder is implemented by packet descriptors that contain the packet itself (a
// traffic generator's packet embeds its router.Packet and is its Data). Decoding a
// packet whose Data is such a descriptor returns the descriptor's own packet, with
// the decoded fields and Data set to the descriptor.
type PacketHolder interface {
	HoldPacket(p Packet) *Packet
}

func encodePacket(e *actors.Encoder, p *Packet) {
	e.Int(int64(p.Src))
	e.Int(int64(p.Dst))
	e.Byte(p.Class)
	e.Byte(p.VC)
	e.Int(int64(p.Payload))
	var flags byte
	if p.SOM {
		flags |= 1
	}
	if p.EOM {
		flags |= 2
	}
	e.Byte(flags)
	e.Int(int64(p.Hops))
	e.Time(p.Injected)
	e.Time(p.Entered)
	e.Int(int64(p.Seq))
	e.Value(p.Data)
}

func decodePacket(d *actors.Decoder) *Packet {
	p := Packet{Src: NodeID(d.Int()), Dst: NodeID(d.Int()), Class: d.Byte(), VC: d.Byte(), Payload: int32(d.Int())}
	flags := d.Byte()
	p.SOM, p.EOM = flags&1 != 0, flags&2 != 0
	p.Hops, p.Injected, p.Entered, p.Seq = int16(d.Int()), d.Time(), d.Time(), int32(d.Int())
	p.Data = d.Value()
	if h, ok := p.Data.(PacketHolder); ok {
		return h.HoldPacket(p)
	}
	return NewPacket(p)
}

// Crossed implements actors.Crosser: a packet encoded for another process has no holder
// left here (packets are shared only at the receiving NIC, after the network).
func (p *Packet) Crossed() { p.Release() }

// inside is the number of packets inside the port: in its queues and awaiting a retry.
func (p *Port) inside() int {
	if p.buffered >= 0 {
		return p.buffered
	}
	return p.held()
}

// Snapshot implements actors.Snapshotter: what CollectStats reads, so that every
// process of a multi-process run collects the statistics of every port.
func (p *Port) Snapshot(e *actors.Encoder) {
	actors.Vars{&p.counters}.Snapshot(e)
	e.Int(int64(p.inside()))
	e.Time(p.stallFrom)
	e.Time(p.busyUntil)
}

// Restore implements actors.Snapshotter.
func (p *Port) Restore(d *actors.Decoder) {
	actors.Vars{&p.counters}.Restore(d)
	p.buffered = int(d.Int())
	p.stallFrom, p.busyUntil = d.Time(), d.Time()
}

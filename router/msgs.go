package router

import (
	"strconv"

	"github.com/seastar-sim/seastar/actors"
)

// NodeID identifies a node (a SeaStar and its router): x + X*(y + Y*z) for a
// Topology of size X by Y by Z.
type NodeID int32

// Packet is one network packet. It travels by pointer: the *Packet the NIC injects is
// the one the destination NIC ejects, so a packet costs one allocation in its whole
// life. Exactly one actor holds a packet at a time; routers update VC and Hops in
// place and never look at Data. A Packet fits one cache line (TestPacketIsALine):
// every router port, NIC engine and the digest read packets, pooled and reused across
// the machine, and at 72 bytes (in the allocator's 80-byte class) most of them
// straddled two lines.
type Packet struct {
	Src, Dst NodeID
	// Payload is the number of payload bytes, 0..packet_payload. A partial packet
	// still occupies a link for a full packet time.
	Payload int32
	// Seq is the index of the packet within its message.
	Seq int32
	// Class is the traffic class: 0 requests, 1 responses. Each class has its own
	// virtual channels, so that protocol replies can never be blocked behind requests.
	Class uint8
	// VC is the virtual channel the packet currently occupies, set by the NIC on
	// injection (Injector.VC) and by each router: 2*Class plus the dateline bit.
	VC uint8
	// SOM and EOM mark the first and the last packet of a message.
	SOM, EOM bool
	// Hops counts the router-to-router links traversed so far.
	Hops int16

	actors.PoolMark             // from NewPacket: Release recycles it
	shared          actors.Refs // Share: its holders at the receiving NIC

	// Injected is when the NIC handed the packet to the router (Injector.Inject sets
	// it), for latency statistics.
	Injected actors.Time
	// Entered is when the packet entered the input buffer of the router it is in: the
	// start of its router/hop trace span.
	Entered actors.Time
	// Data is the NIC's view of the message this packet belongs to.
	Data any
}

// String renders the packet for logs and goldens, e.g.
// "pkt 0->5 c0 vc1 #2 64B SOM EOM hops=3".
func (p *Packet) String() string {
	b := make([]byte, 0, 48)
	b = append(b, "pkt "...)
	b = strconv.AppendInt(b, int64(p.Src), 10)
	b = append(b, "->"...)
	b = strconv.AppendInt(b, int64(p.Dst), 10)
	b = append(b, " c"...)
	b = strconv.AppendUint(b, uint64(p.Class), 10)
	b = append(b, " vc"...)
	b = strconv.AppendUint(b, uint64(p.VC), 10)
	b = append(b, " #"...)
	b = strconv.AppendInt(b, int64(p.Seq), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(p.Payload), 10)
	b = append(b, 'B')
	if p.SOM {
		b = append(b, " SOM"...)
	}
	if p.EOM {
		b = append(b, " EOM"...)
	}
	b = append(b, " hops="...)
	b = strconv.AppendInt(b, int64(p.Hops), 10)
	return string(b)
}

// Fingerprint puts the packet's routing state into the run digest, so that the
// digest changes if a packet takes another path or virtual channel.
func (p *Packet) Fingerprint() uint64 {
	h := uint64(uint32(p.Src))<<32 | uint64(uint32(p.Dst))
	h ^= uint64(p.Class)<<56 ^ uint64(p.VC)<<48 ^ uint64(uint16(p.Hops))<<32
	return h ^ uint64(uint32(p.Seq))*0x9e3779b97f4a7c15 ^ uint64(uint32(p.Payload))<<40
}

// Counted is implemented by a packet's Data that counts its holders (Portals 3.3's
// wire descriptor): the receiving NIC calls Drop once, when it has removed the
// message's last packet (EOM) from its FIFO.
type Counted interface{ Drop() }

// Credit returns one buffer slot of the virtual channel it holds to the upstream
// sender: from an input buffer to the output port (or NIC) that feeds it, from an
// output queue to the crossbar input that fed it, and from the NIC's receive side to
// the router's eject port. Being a one-byte value, it is sent without allocation.
type Credit uint8

// String renders the credit, e.g. "credit vc1".
func (c Credit) String() string { return "credit vc" + strconv.Itoa(int(c)) }

// Fingerprint puts the credit's virtual channel into the run digest.
func (c Credit) Fingerprint() uint64 { return uint64(c) + 1 }

// wake is the timer an output port sets for the end of a link transmission.
type wake struct{}

func (wake) String() string { return "router.wake" }

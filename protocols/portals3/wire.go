// Package portals3 is Portals 3.3 on the SeaStar in generic mode (Pedretti & Hudson
// 2005 s.4; Brightwell et al. 2005 s.4): the firmware on the PPC moves headers and data
// and interrupts the host; the Portals library in the host's kernel does the matching,
// reached from applications through a bridge (qkbridge for Catamount applications,
// ukbridge for Linux user processes, kbridge for Linux kernel clients). Portals semantics
// themselves (matching, memory descriptors, events) are the pure library in
// portals3/ptl.
package portals3

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/protocols/portals3/ptl"
	"github.com/seastar-sim/seastar/router"
)

// WireKind is the kind of a Portals message on the network.
type WireKind uint8

// Message kinds.
const (
	Put WireKind = iota
	Get
	Ack
	Reply
	Ctl // recovery=gbn: a NIC's acknowledgement or refusal of a message (not a Portals message)
)

var wireNames = [...]string{"put", "get", "ack", "reply", "ctl"}

func (k WireKind) String() string {
	if int(k) < len(wireNames) {
		return wireNames[k]
	}
	return fmt.Sprintf("kind%d", uint8(k))
}

// Class is the traffic class of a kind: requests (put, get) and responses (ack, reply)
// travel on separate virtual channels, so that responses can never be blocked behind
// requests.
func (k WireKind) Class() uint8 {
	if k == Ack || k == Reply || k == Ctl {
		return 1
	}
	return 0
}

// Wire is a Portals message as the NIC sees it; every packet of the message carries a
// pointer to it (router.Packet.Data). The header packet comes first; Inline payloads
// ride in it, longer payloads follow in their own packets.
type Wire struct {
	Kind   WireKind
	Src    router.NodeID
	Dst    router.NodeID
	Hdr    any   // the Portals header (*ptl.Header); the NIC does not look inside
	Inline int64 // payload bytes inside the header packet (at most the inline capacity)
	Len    int64 // payload bytes after the header packet (0 when inline)
	ID     uint64
	// Data is the payload's bytes when the sender's memory holds real bytes (data
	// correctness tests); nil when only sizes are modelled.
	Data []byte
	// Seq is the message's number from Src to Dst (recovery=gbn; 0 otherwise). On a
	// Ctl message it is the number acknowledged (cumulatively) or, with Nack, the one
	// the sender must resend from.
	Seq  uint32
	Nack bool
	// Resync (recovery=gbn) marks the messages a sender sends after giving up on the
	// destination: the receiver takes the first as the new start of the sequence.
	Resync bool

	hdr  ptl.Header  // Hdr's storage, for a wire from newWire
	refs actors.Refs // holders of a wire from newWire (see newWire)
	actors.PoolMark
}

// wires recycles the wire descriptors the generic kernel sends.
var wires actors.Pool[Wire, *Wire]

// newWire returns w with header hdr (w.Hdr points at the wire's own copy), from the
// pool. Without gbn, three holders release it, each once it no longer reads it: the
// sending kernel after it has handled the message's TX-done event (an accelerated
// library once it has consumed its TX-done record), the receiving RX DMA engine when it
// has removed the message's last packet from its FIFO (Drop), and the receiving
// firmware once the host has released the message's RX pending (an accelerated
// process's: once the firmware frees it, freeAccel). A wire the accelerated firmware
// makes itself has the firmware as its sender, which lets go when it has left (an
// ack's, a served get's reply). Under gbn a message may be sent again and its
// packets may arrive after all three, so the wire is left to the garbage collector, as
// are wires decoded from another process (a holder that never lets go).
func newWire(w Wire, hdr ptl.Header, gbn bool) *Wire {
	var x *Wire
	if gbn {
		x = new(Wire) // not &w: that would put w on the heap on every path
		*x = w
	} else {
		x = wires.New(w)
		x.refs.Set(wireHolders)
	}
	x.hdr = hdr
	x.Hdr = &x.hdr
	return x
}

// wireHolders are the holders of a sent wire that each Drop it (newWire).
const wireHolders = 3

// Drop ends one holder's hold on a wire from newWire; the last recycles it. It
// implements router.Counted for the receiving RX DMA engine.
func (w *Wire) Drop() {
	if w.refs.Drop() {
		wires.Release(w)
	}
}

func (w *Wire) String() string {
	return fmt.Sprintf("portals.%s(node%d->node%d #%d %dB)", w.Kind, w.Src, w.Dst, w.ID, w.Inline+w.Len)
}

// Region is a physically contiguous piece of host memory: the unit of a DMA command.
type Region struct {
	Addr uint64
	Len  int64
}

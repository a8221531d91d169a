package wire

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
)

// Broadcast is the destination of a packet for every other node (IEEE 1394 broadcast
// address 63).
const Broadcast = -1

// Priorities: payload packets travel at Low, acknowledgements at High (Hoe & Ehrlich
// 1996 s.3.2.2: two physically separate or prioritized networks).
const (
	Low  = 0
	High = 1
)

// Packet is one network packet.
type Packet struct {
	Src, Dst int        // nodes; Dst may be Broadcast
	Prio     int        // Low or High
	Bytes    int64      // bytes the firmware wrote into the transmit FIFO (its header and data)
	Body     actors.Msg // the firmware's content, opaque to the hardware
	ID       uint64     // the trace it belongs to
	Span     actors.Duration
}

// Lost is implemented by a Body its firmware recycles: the hardware that discards a
// packet (a receive FIFO overflow) calls Lost, in the receiving firmware's place, and
// uses the packet no more.
type Lost interface{ Lost() }

func (p *Packet) String() string {
	return fmt.Sprintf("wire.Packet(%d->%d prio %d %dB %v)", p.Src, p.Dst, p.Prio, p.Bytes, p.Body)
}

// Destination implements fattree.Frame.
func (p *Packet) Destination() int { return p.Dst }

// WireSpan implements fattree.Frame: head to tail on an Arctic link.
func (p *Packet) WireSpan() actors.Duration { return p.Span }

// TraceID implements fattree.Frame.
func (p *Packet) TraceID() uint64 { return p.ID }

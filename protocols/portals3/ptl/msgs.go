package ptl

import (
	"fmt"
	"slices"
)

// Header is a Portals message header as it travels between interfaces: an immutable
// value built by Put, Get (initiator) or DeliverHeader (target: the ack or reply) and
// handed to the peer's DeliverHeader by the transport. Payload is not part of it: a
// put's data is SendData / SendRegions of the initiator, a reply's is ReadData of the
// target; the simulator may move sizes only.
type Header struct {
	Op     Op
	Src    ProcessID // sender of this message
	SrcJID JID       // job of the sender
	SrcUID UID       // user of the sender
	Dst    ProcessID // receiver of this message
	// PtIndex and MatchBits select the target MD of a put or get; acks and replies
	// repeat those of their request.
	PtIndex   PtIndex
	MatchBits MatchBits
	// RemoteOffset is the target offset a put or get asks for (used if the target MD
	// manages its offset remotely); in an ack or reply, the offset the target used.
	RemoteOffset uint64
	// LocalOffset is where a put's data starts in the initiator's MD, and where a get's
	// reply lands in it (repeated in the reply).
	LocalOffset uint64
	// Length is the bytes a put carries or a get asks for (rlength); in a reply, the
	// bytes it carries (the target's mlength); in an ack, the rlength of the put.
	Length  uint64
	MLength uint64 // ack only: the bytes the target accepted
	HdrData HdrData
	AckReq  bool     // put only: the initiator asked for an ack (PTL_ACK_REQ)
	MD      MDHandle // the initiator's MD: where the ack or reply goes
	// Link numbers the operation at the NI that built the header (Put, Get; for an ack
	// or reply, the target's operation). SendStarted and SendDone find the initiator's
	// operation by it; it also makes a handy trace id.
	Link uint64
}

// String is a one-line summary for logs and traces.
func (h Header) String() string {
	s := fmt.Sprintf("%s %s->%s pt%d bits=%#x len=%d", h.Op, h.Src, h.Dst, h.PtIndex, uint64(h.MatchBits), h.Length)
	if h.Op == OpAck {
		s += fmt.Sprintf(" mlen=%d", h.MLength)
	}
	if h.AckReq {
		s += " ack"
	}
	return s
}

// Event is one entry of an event queue (ptl_event_t). Events carry no time: the caller
// stamps them when it models the write into the queue.
type Event struct {
	Type      EventType
	Initiator ProcessID // the other side: the sender of a put/get, the target of an ack/reply; self for SEND
	UID       UID       // user of Initiator
	JID       JID       // job of Initiator
	PtIndex   PtIndex
	MatchBits MatchBits
	RLength   uint64 // bytes requested (ack: the put's length)
	MLength   uint64 // bytes accepted (ack: what the target accepted)
	Offset    uint64 // offset used in the MD (SEND: the remote offset, as the reference implementation)
	MDHandle  MDHandle
	MD        MD // the MD when the event was posted (Threshold is the live one)
	HdrData   HdrData
	// Link is the same for the START and END events of one operation, and an UNLINK
	// event repeats the Link of the operation that made the MD inactive. Links are
	// numbered per NI (the reference implementation uses the START event's sequence
	// number instead, which does not exist when START events are disabled).
	Link       uint64
	NIFailType NIFailType // END events: PTL_NI_FAIL if the operation did not complete
	Sequence   uint64     // position in the event queue, from 0
}

// String is a one-line summary for logs and traces.
func (e Event) String() string {
	s := fmt.Sprintf("#%d %s %s link=%d pt%d bits=%#x rlen=%d mlen=%d off=%d",
		e.Sequence, e.Type, e.Initiator, e.Link, e.PtIndex, uint64(e.MatchBits), e.RLength, e.MLength, e.Offset)
	if e.NIFailType != NIOK {
		s += " " + e.NIFailType.String()
	}
	return s
}

// Posted is an event written into an event queue by the call that returns it, so that
// the caller can charge the write and wake whoever waits on that queue.
type Posted struct {
	EQ    EQHandle
	Event Event
}

// Delivery is the decision of DeliverHeader about one incoming message.
type Delivery struct {
	Header   Header
	Accepted bool
	Reason   DropReason // why the message was dropped (DropNone if accepted)
	// Searched is the number of match entries examined (put, get): the cost of
	// matching in a list walk.
	Searched int
	ME       MEHandle // the match entry that accepted a put or get
	MD       MDHandle // the MD that accepted the message
	Offset   uint64   // where in the MD the data goes (put, reply) or comes from (get)
	MLength  uint64   // bytes accepted (ack: as reported by the target)
	// Regions are the pieces of host memory the data goes to (put, reply) or comes from
	// (get), MLength bytes in total: what the RX or TX DMA must cover. Valid until the
	// NI's next DeliverHeader: a caller that keeps the Delivery and needs them later
	// keeps a copy (KeepRegions).
	Regions []Region
	sliced  bool // Regions are in the NI's array, not the MD's own
	// Response is the message the target owes: for a get, the reply (send it with
	// ReadData as payload, then Complete); for a put that asked for an ack from an MD
	// that allows acks, the ack (send it only if the put completes without failure).
	// Nil otherwise. It points into the NI, valid until its next DeliverHeader: a caller
	// that keeps the Delivery and needs it later keeps a copy (KeepResponse).
	Response *Header
	// InFlight is true when the operation must be finished with Complete: accepted
	// puts, gets and replies. Acks finish in DeliverHeader.
	InFlight bool
	Link     uint64 // the operation, for Complete
	// Posted are the events DeliverHeader posted (START, or ACK and UNLINK), valid until
	// the NI's next DeliverHeader: take them at once (a Delivery kept for Complete
	// does not need them).
	Posted []Posted
}

// KeepResponse gives d a copy of its response of its own, if it has one, for a caller
// that keeps d past the NI's next DeliverHeader and still needs it.
func (d *Delivery) KeepResponse() {
	if d.Response != nil {
		r := *d.Response
		d.Response = &r
	}
}

// KeepRegions gives d a copy of its regions of its own if they are in the NI's array
// (pieces of an MD region; a whole region is the MD's, valid while the operation is
// in flight), for a caller that keeps d past the NI's next DeliverHeader and still
// needs them.
func (d *Delivery) KeepRegions() {
	if d.sliced {
		d.Regions, d.sliced = slices.Clone(d.Regions), false
	}
}

// String is a one-line summary for logs and traces.
func (d Delivery) String() string {
	if !d.Accepted {
		return fmt.Sprintf("drop %s (%s)", d.Header, d.Reason)
	}
	return fmt.Sprintf("accept %s into %s off=%d mlen=%d", d.Header, d.MD, d.Offset, d.MLength)
}

package cci

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/router"
)

// Type is the message type in the first header word. Types sent by a library come from
// the kernel's header table (Dillow & Atchley 2011 s.IV.B), so an application cannot
// forge them; the answers and read responses are built by the NIC.
type Type uint8

// Message types.
const (
	// TypeInvalid is what a header-table row that the kernel never built holds
	// (zeroed memory): the receiving NIC discards such a message and counts it.
	TypeInvalid   Type = iota
	TypeMsg            // a message on an unreliable (UU) connection
	TypeMsgRel         // a message on a reliable (RU, RO) connection: the receiving NIC acks it
	TypeConnReq        // connection request (reliable)
	TypeConnReply      // connection accept or reject (reliable)
	TypeRMAWrite       // RMA write data into a remote region (reliable)
	TypeReadReq        // RMA read request: the target NIC answers with the data
	TypeReadResp       // RMA read response, built by the target NIC
	TypeAck            // NIC-generated: the message is in host memory
	TypeRefused        // NIC-generated: no such endpoint (or a bad region handle)
	TypeNotReady       // NIC-generated: the endpoint had no room; send again later
	numTypes
)

var typeNames = [numTypes]string{"invalid", "msg", "msg-rel", "conn-req", "conn-reply", "rma-write", "read-req", "read-resp",
	"ack", "refused", "not-ready"}

func (t Type) String() string {
	if t < numTypes {
		return typeNames[t]
	}
	return fmt.Sprintf("type%d", uint8(t))
}

// reliable reports whether the receiving NIC acknowledges messages of type t (or, for a
// read request, answers it with the data).
func (t Type) reliable() bool {
	switch t {
	case TypeMsgRel, TypeConnReq, TypeConnReply, TypeRMAWrite, TypeReadReq:
		return true
	}
	return false
}

// message reports whether the type is a message (not a handshake, RMA or answer).
func (t Type) message() bool { return t == TypeMsg || t == TypeMsgRel }

// answer reports whether t is an answer of the NIC (header only, sent with PIO).
func (t Type) answer() bool { return t == TypeAck || t == TypeRefused || t == TypeNotReady }

// class is the traffic class: answers and read responses travel as responses, so that
// they are never blocked behind requests.
func (t Type) class() uint8 {
	if t.answer() || t == TypeReadResp {
		return 1
	}
	return 0
}

// Status is the outcome of an operation, CCI's status codes. The zero value is success.
type Status uint8

// Statuses.
const (
	OK              Status = iota
	ErrNoBuffers           // CCI_ENOBUFS: no TX area space, no free event or command credit
	ErrMsgSize             // CCI_EMSGSIZE: larger than the MSS
	ErrInvalid             // CCI_EINVAL: bad argument, connection or region handle
	ErrRefused             // CCI_ECONNREFUSED: the peer endpoint does not exist (the peer NIC refused)
	ErrRejected            // CCI_ECONNREFUSED: the peer application rejected the connection
	ErrDisconnected        // CCI_ERR_DISCONNECTED: the connection or the peer endpoint closed
	ErrRNR                 // CCI_ERR_RNR: the receiver stayed not ready
	ErrTimedOut            // CCI_ETIMEDOUT: no ack after every retransmission
	ErrClosed              // the endpoint is closed
	ErrNoMem               // CCI_ENOMEM: a memory registration could not pin its pages
	numStatuses
)

var statusNames = [numStatuses]string{"ok", "no buffers", "message too long", "invalid argument", "connection refused", "connection rejected",
	"disconnected", "receiver not ready", "timed out", "endpoint closed", "out of memory"}

func (s Status) String() string {
	if s < numStatuses {
		return statusNames[s]
	}
	return fmt.Sprintf("status%d", uint8(s))
}

// Error implements error, so that a Status can be returned as one.
func (s Status) Error() string { return "cci: " + s.String() }

// Header is the rest of the CCI header after the first word, built by the sending
// library in its TX area (Dillow & Atchley 2011 s.IV.B): untrusted, so the receiving
// library validates it. The answers of a NIC copy the source fields of the message
// they answer into the destination fields.
type Header struct {
	Nonce   uint64 // the destination endpoint's nonce: proves a connection was established
	Conn    uint32 // the destination's connection id (its table slot)
	Gen     uint32 // the generation of that slot: stale connections are rejected
	Seq     uint32 // reliable connections: the sender's sequence number
	SrcEP   uint16 // reliable: the sender's endpoint, for the NIC's ack
	SrcConn uint32 // reliable: the sender's connection id
	SrcGen  uint32 // reliable: its generation
	Conn2   *ConnInfo
	RMA     *RMAInfo
}

// ConnInfo is the payload of a connection request or reply.
type ConnInfo struct {
	Attr   Attr
	Nonce  uint64 // the sender endpoint's nonce
	Accept bool   // reply: accepted
}

// RMAInfo describes an RMA transfer: where it goes in the target (write) or comes from
// (read), and for a read where it lands in the initiator.
type RMAInfo struct {
	Remote    Handle
	RemoteOff int64
	Local     Handle
	LocalOff  int64
	Len       int64 // read: bytes requested
}

// Wire is a CCI message as the network carries it; every packet of the message points
// to it (router.Packet.Data). The first word (Type, DstEP, Len) is trusted: it comes
// from the kernel's header table or from the NIC. H is what the sender's library
// wrote. Data is the payload when real bytes are modelled, else nil.
type Wire struct {
	Type   Type
	DstEP  uint16
	Len    int64 // payload bytes after the header
	Src    router.NodeID
	Dst    router.NodeID
	Status Status // answers: why a message was refused
	H      Header
	Data   []byte
	ID     uint64 // per-node transmission number, for traces

	refs actors.Refs // holders of a wire from newWire
	actors.PoolMark
}

// wires recycles two kinds of message, each dropped once by each of its holders:
//   - the answers the NIC generates (acks, refusals, not-ready), with two holders: the
//     receiving RX DMA engine when it has removed the answer's packet from its FIFO
//     (Drop, router.Counted), and the receiving endpoint once it has read it: its
//     library (Endpoint.consume), or its firmware when it loses the answer (no
//     endpoint, no room to hold it, the endpoint closed);
//   - messages (TypeMsg, TypeMsgRel), with three: the sending firmware at their TX
//     completion, the receiving RX DMA engine, and the receiving library once it has
//     taken the message (Endpoint.consume). A message refused, discarded or orphaned
//     by a closed endpoint loses its last holder's drop and is left to the garbage
//     collector.
//
// Other messages (connection handshakes, whose requests the library keeps until they
// are answered, and RMA) are not recycled: Drop leaves them to the garbage collector,
// as it does messages decoded from another process.
var wires actors.Pool[Wire, *Wire]

// Holders of a sent wire that each Drop it (newWire).
const (
	answerHolders  = 2
	messageHolders = 3
)

// newWire returns w from the pool with holders holders.
func newWire(w Wire, holders int32) *Wire {
	x := wires.New(w)
	x.refs.Set(holders)
	return x
}

// Drop ends one holder's hold on a wire from newWire; the last recycles it. It
// implements router.Counted for the receiving RX DMA engine.
func (w *Wire) Drop() {
	if w.refs.Drop() {
		wires.Release(w)
	}
}

func (w *Wire) String() string {
	return fmt.Sprintf("cci.%s(node%d->node%d ep%d #%d seq%d %dB)", w.Type, w.Src, w.Dst, w.DstEP, w.ID, w.H.Seq, w.Len)
}

// Fingerprint puts the message's identity into the run digest.
func (w *Wire) Fingerprint() uint64 {
	return uint64(w.Type)<<56 ^ uint64(w.DstEP)<<40 ^ uint64(w.H.Seq)<<20 ^ uint64(w.Len) ^ w.ID*0x9e3779b97f4a7c15
}

// Attr is a connection's reliability and ordering.
type Attr uint8

// Connection attributes (Dillow & Atchley 2011 s.IV.A).
const (
	UU Attr = iota // unreliable, unordered
	RU             // reliable, unordered
	RO             // reliable, ordered
)

var attrNames = [...]string{"uu", "ru", "ro"}

func (a Attr) String() string {
	if int(a) < len(attrNames) {
		return attrNames[a]
	}
	return fmt.Sprintf("attr%d", uint8(a))
}

// ParseAttr parses uu, ru or ro.
func ParseAttr(s string) (Attr, error) {
	for i, n := range attrNames {
		if s == n {
			return Attr(i), nil
		}
	}
	return 0, fmt.Errorf("unknown connection type %q (want uu, ru or ro)", s)
}

// Reliable reports whether messages are acknowledged and retransmitted.
func (a Attr) Reliable() bool { return a != UU }

// Handle names a registered memory region: its slot in the NIC's table and a random
// key, so that a guessed handle is refused.
type Handle struct {
	Index uint32
	Key   uint32
}

func (h Handle) String() string { return fmt.Sprintf("mr%d/%08x", h.Index, h.Key) }

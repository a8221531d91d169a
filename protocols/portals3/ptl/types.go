package ptl

import (
	"fmt"
	"strings"
)

// NID is a node id (ptl_nid_t). NIDAny (PTL_NID_ANY) is the wildcard of a match entry.
type NID uint32

// PID is a process id on a node (ptl_pid_t). PIDAny (PTL_PID_ANY) is the wildcard.
type PID uint32

// JID is a job id (ptl_jid_t): the processes of one parallel application share it.
// JIDAny (PTL_JID_ANY) is the wildcard.
type JID uint32

// UID is a user id (ptl_uid_t). UIDAny (PTL_UID_ANY) is the wildcard.
type UID uint32

// Wildcards of a match entry (the all-ones values of the reference implementation).
const (
	NIDAny NID = ^NID(0) // PTL_NID_ANY
	PIDAny PID = ^PID(0) // PTL_PID_ANY
	JIDAny JID = ^JID(0) // PTL_JID_ANY
	UIDAny UID = ^UID(0) // PTL_UID_ANY
)

// PtIndex is a portal table index (ptl_pt_index_t), 0..Limits.MaxPtIndex.
type PtIndex uint32

// MatchBits are the 64 match bits of a message or match entry (ptl_match_bits_t); the
// same type carries the ignore bits of a match entry.
type MatchBits uint64

// HdrData is the 64 bits of out-of-band data a put carries to the target's events
// (ptl_hdr_data_t).
type HdrData uint64

// ProcessID names a process: node and process id (ptl_process_id_t).
type ProcessID struct {
	NID NID
	PID PID
}

// String prints nid/pid, "*" for a wildcard.
func (p ProcessID) String() string {
	return fmt.Sprintf("%s/%s", fmtID(uint32(p.NID)), fmtID(uint32(p.PID)))
}

// MatchID is what a match entry compares with the source of a message: the 3.3
// match_id (node and process) extended, as on Red Storm, with the job id and the user
// id (Brightwell et al. 2005, s.3.1). Each field may be its wildcard; the zero value
// matches only node 0, process 0, job 0, user 0, so start from MatchAny.
type MatchID struct {
	NID NID
	PID PID
	JID JID
	UID UID
}

// MatchAny returns the match id that accepts every source.
func MatchAny() MatchID { return MatchID{NID: NIDAny, PID: PIDAny, JID: JIDAny, UID: UIDAny} }

// String prints nid/pid, job and user, "*" for a wildcard.
func (m MatchID) String() string {
	return fmt.Sprintf("%s/%s j%s u%s", fmtID(uint32(m.NID)), fmtID(uint32(m.PID)),
		fmtID(uint32(m.JID)), fmtID(uint32(m.UID)))
}

func fmtID(v uint32) string {
	if v == ^uint32(0) {
		return "*"
	}
	return fmt.Sprint(v)
}

// UnlinkOp says whether a match entry or memory descriptor is unlinked automatically
// (ptl_unlink_t): an MD when it becomes inactive, an ME when its MD is unlinked.
type UnlinkOp uint8

// Unlink operations.
const (
	Retain UnlinkOp = iota // PTL_RETAIN
	Unlink                 // PTL_UNLINK
)

// String returns the C name (PTL_UNLINK, PTL_RETAIN).
func (u UnlinkOp) String() string {
	if u == Unlink {
		return "PTL_UNLINK"
	}
	return "PTL_RETAIN"
}

// InsPos is where a new match entry goes (ptl_ins_pos_t): before or after the base
// entry (MEInsert) or at the head or tail of the match list (MEAttach).
type InsPos uint8

// Insert positions.
const (
	InsBefore InsPos = iota // PTL_INS_BEFORE
	InsAfter                // PTL_INS_AFTER
)

// String returns the C name (PTL_INS_BEFORE, PTL_INS_AFTER).
func (p InsPos) String() string {
	if p == InsBefore {
		return "PTL_INS_BEFORE"
	}
	return "PTL_INS_AFTER"
}

// AckReq says whether a put asks the target for an acknowledgment (ptl_ack_req_t).
type AckReq uint8

// Acknowledgment requests. The zero value asks for none.
const (
	NoAckReq AckReq = iota // PTL_NOACK_REQ
	AckReqd                // PTL_ACK_REQ
)

// String returns the C name (PTL_ACK_REQ, PTL_NOACK_REQ).
func (a AckReq) String() string {
	if a == AckReqd {
		return "PTL_ACK_REQ"
	}
	return "PTL_NOACK_REQ"
}

// Options are the option bits of a memory descriptor (ptl_md_t.options); the values
// are those of the reference implementation.
type Options uint32

// Memory descriptor options.
const (
	MDOpPut             Options = 1 << iota // PTL_MD_OP_PUT: accept incoming puts
	MDOpGet                                 // PTL_MD_OP_GET: accept incoming gets
	MDManageRemote                          // PTL_MD_MANAGE_REMOTE: the initiator chooses the offset
	MDTruncate                              // PTL_MD_TRUNCATE: shorten requests that do not fit instead of rejecting them
	MDAckDisable                            // PTL_MD_ACK_DISABLE: never acknowledge puts, even if asked
	MDIovec                                 // PTL_MD_IOVEC: the region is the list MD.Iov
	MDMaxSize                               // PTL_MD_MAX_SIZE: inactive once fewer than MaxSize bytes remain (local offsets only)
	MDEventStartDisable                     // PTL_MD_EVENT_START_DISABLE: post no START events
	MDEventEndDisable                       // PTL_MD_EVENT_END_DISABLE: post no END events
	mdOptionsAll        = MDOpPut | MDOpGet | MDManageRemote | MDTruncate | MDAckDisable | MDIovec |
		MDMaxSize | MDEventStartDisable | MDEventEndDisable
)

var optionNames = [...]string{"PTL_MD_OP_PUT", "PTL_MD_OP_GET", "PTL_MD_MANAGE_REMOTE",
	"PTL_MD_TRUNCATE", "PTL_MD_ACK_DISABLE", "PTL_MD_IOVEC", "PTL_MD_MAX_SIZE",
	"PTL_MD_EVENT_START_DISABLE", "PTL_MD_EVENT_END_DISABLE"}

// String lists the set options joined by "|", or "0".
func (o Options) String() string {
	var parts []string
	for i, name := range optionNames {
		if o&(1<<i) != 0 {
			parts = append(parts, name)
		}
	}
	if rest := o &^ mdOptionsAll; rest != 0 {
		parts = append(parts, fmt.Sprintf("%#x", uint32(rest)))
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, "|")
}

// ThreshInf is the infinite threshold of a memory descriptor (PTL_MD_THRESH_INF).
const ThreshInf = -1

// EventType is the kind of an event (ptl_event_kind_t). The zero value is not an event.
type EventType uint8

// Event kinds. START/END pairs bracket an operation on a memory descriptor; ACK and
// UNLINK are single events.
const (
	EventGetStart   EventType = iota + 1 // PTL_EVENT_GET_START: a get matched this MD (target)
	EventGetEnd                          // PTL_EVENT_GET_END: the reply data has been sent (target)
	EventPutStart                        // PTL_EVENT_PUT_START: a put matched this MD (target)
	EventPutEnd                          // PTL_EVENT_PUT_END: the put data has landed (target)
	EventReplyStart                      // PTL_EVENT_REPLY_START: a reply began arriving (initiator of a get)
	EventReplyEnd                        // PTL_EVENT_REPLY_END: the reply data has landed (initiator of a get)
	EventSendStart                       // PTL_EVENT_SEND_START: a put began leaving (initiator)
	EventSendEnd                         // PTL_EVENT_SEND_END: the put data has left (initiator)
	EventAck                             // PTL_EVENT_ACK: the target acknowledged a put (initiator)
	EventUnlink                          // PTL_EVENT_UNLINK: the MD was unlinked automatically
)

var eventNames = [...]string{"", "PTL_EVENT_GET_START", "PTL_EVENT_GET_END",
	"PTL_EVENT_PUT_START", "PTL_EVENT_PUT_END", "PTL_EVENT_REPLY_START",
	"PTL_EVENT_REPLY_END", "PTL_EVENT_SEND_START", "PTL_EVENT_SEND_END", "PTL_EVENT_ACK",
	"PTL_EVENT_UNLINK"}

// String returns the C name of the event kind, e.g. "PTL_EVENT_PUT_END".
func (t EventType) String() string {
	if t > 0 && int(t) < len(eventNames) {
		return eventNames[t]
	}
	return fmt.Sprintf("EventType(%d)", uint8(t))
}

// NIFailType is the failure indication of an event (ptl_ni_fail_t): END events report
// whether the operation completed.
type NIFailType uint8

// Failure types.
const (
	NIOK   NIFailType = iota // PTL_NI_OK
	NIFail                   // PTL_NI_FAIL
)

// String returns the C name (PTL_NI_OK, PTL_NI_FAIL).
func (f NIFailType) String() string {
	if f == NIOK {
		return "PTL_NI_OK"
	}
	return "PTL_NI_FAIL"
}

// SRIndex selects a status register of the network interface (ptl_sr_index_t). Only
// SRDropCount is defined by the 3.3 specification; the others are the extensions of
// the reference implementation, with its numbers.
type SRIndex uint32

// Status registers.
const (
	SRDropCount  SRIndex = iota // PTL_SR_DROP_COUNT: incoming messages dropped
	SRDropLength                // PTL_SR_DROP_LENGTH: bytes (rlength) of the dropped messages
	SRRecvCount                 // PTL_SR_RECV_COUNT: puts, replies and acks accepted
	SRRecvLength                // PTL_SR_RECV_LENGTH: bytes (mlength) of the puts and replies accepted
	SRSendCount                 // PTL_SR_SEND_COUNT: puts, gets and replies initiated
	SRSendLength                // PTL_SR_SEND_LENGTH: bytes of the puts and replies initiated
	numSR
)

var srNames = [numSR]string{"PTL_SR_DROP_COUNT", "PTL_SR_DROP_LENGTH", "PTL_SR_RECV_COUNT",
	"PTL_SR_RECV_LENGTH", "PTL_SR_SEND_COUNT", "PTL_SR_SEND_LENGTH"}

// String returns the C name of the register, e.g. PTL_SR_DROP_COUNT.
func (s SRIndex) String() string {
	if s < numSR {
		return srNames[s]
	}
	return fmt.Sprintf("SRIndex(%d)", uint32(s))
}

// Op is the kind of a Portals message on the wire.
type Op uint8

// Message kinds. The zero value is not a message.
const (
	OpPut   Op = iota + 1 // a put request with its data (initiator to target)
	OpGet                 // a get request (initiator to target)
	OpAck                 // the acknowledgment of a put (target to initiator)
	OpReply               // the reply to a get, with its data (target to initiator)
)

var opNames = [...]string{"", "put", "get", "ack", "reply"}

// String returns the lower-case kind: put, get, ack, reply.
func (o Op) String() string {
	if o > 0 && int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// DropReason says why an incoming message was dropped. Every drop also counts in the
// PTL_SR_DROP_COUNT register and posts no event.
type DropReason uint8

// Drop reasons.
const (
	DropNone           DropReason = iota // not dropped
	DropNIInvalid                        // the NI was finalized
	DropWrongTarget                      // the header is addressed to another process
	DropBadOp                            // the header's Op is not a message kind
	DropPtIndexInvalid                   // the portal index is beyond the portal table
	DropNoMatch                          // no match entry matched with an MD that accepts the operation
	DropMDInvalid                        // the ack or reply names an MD that no longer exists
	DropMDInactive                       // the ack or reply names an inactive MD
	DropNoRoom                           // the reply does not fit the MD and it does not truncate
)

var dropNames = [...]string{"none", "ni-invalid", "wrong-target", "bad-op", "pt-index-invalid",
	"no-match", "md-invalid", "md-inactive", "no-room"}

// String returns a short name for logs, e.g. no-match.
func (r DropReason) String() string {
	if int(r) < len(dropNames) {
		return dropNames[r]
	}
	return fmt.Sprintf("DropReason(%d)", uint8(r))
}

// Package ptl is Portals 3.3 semantics as a pure, transport-agnostic library: the
// portal table, match entries, memory descriptors, event queues and status registers
// of one process's network interface, and the decisions the API and the arrival of
// messages make on them. Both the generic-mode host library (the kernel matches) and
// the accelerated-mode firmware (the PPC matches) are built on it (Brightwell et al.
// 2005, s.3 and s.4). It has no notion of time and moves no data on its own: calls go
// in, Headers, Deliveries and posted Events come out, and the caller charges their
// costs and stamps their times.
//
// Names, semantics and return codes follow the Portals 3.3 specification (SAND2006-0420)
// and, where the specification is silent, the Sandia reference implementation that the
// SeaStar port is based on (Brightwell et al. 2005, s.4). Every call returns nil or an
// Errno whose String is the C name (PTL_MD_NO_UPDATE, ...).
//
// # Calls
//
//	API (process side)            Portals 3.3          notes
//	NewNI, Fini                   PtlNIInit/Fini        Config: nid, pid, jid, uid, Limits
//	Status                        PtlNIStatus           PTL_SR_DROP_COUNT and friends
//	MEAttach, MEAttachAny         PtlMEAttach[Any]      head (InsBefore) or tail (InsAfter)
//	MEInsert, MEUnlink            PtlMEInsert/Unlink    MEUnlink also unlinks the MD
//	MDAttach, MDBind              PtlMDAttach/Bind      MDBind: free-floating
//	MDUnlink, MDUpdate            PtlMDUnlink/Update    MDUpdate: conditional on a test EQ
//	EQAlloc, EQFree, EQGet, EQPoll PtlEQ*               EQPoll never blocks (timeout 0)
//	Put, PutRegion, Get, GetRegion PtlPut[Region], ... return the Header to transmit
//
//	transport (initiator side)    effect
//	SendStarted(h)                SEND_START of put h
//	SendDone(h, failed)           SEND_END (ni_fail_type), MD released, maybe UNLINK
//	SendRegions(h), SendData(h)   the memory / bytes a put's payload is read from
//
//	transport (receive side)      effect
//	DeliverHeader(h)              put/get: match, PUT_START/GET_START; ack: ACK;
//	                              reply: REPLY_START. Returns a Delivery.
//	Complete(d, failed)           PUT_END / GET_END / REPLY_END, MD released, maybe UNLINK
//	WriteData(d, p), ReadData(d)  bytes into (put, reply) or out of (get) the MD
//
// # A put, step by step
//
// Initiator: h := Put(...) counts against the MD's threshold; SendStarted(h) posts
// SEND_START; the transport carries h (and SendData(h) if it carries bytes);
// SendDone(h, false) posts SEND_END. Target: d := DeliverHeader(h) matches, consumes
// the MD and posts PUT_START; WriteData(d, payload); Complete(d, false) posts PUT_END;
// if d.Response is an ack, the transport carries it back and the initiator's
// DeliverHeader(ack) posts ACK with the mlength the target accepted. A get is the
// same with GET_START/GET_END at the target, where d.Response is the reply to carry
// with ReadData(d), and REPLY_START/REPLY_END at the initiator.
//
// # Decisions where the specification is silent or ambiguous
//
//   - Matching (lib_find_md of the reference implementation): entries are tried in
//     list order; one matches if node, process, job and user ids are equal or
//     wildcards and (match_bits XOR bits) AND NOT ignore_bits == 0. A matching entry
//     whose MD is missing, inactive, does not allow the operation, or has no room
//     (without PTL_MD_TRUNCATE) is passed over and the walk continues. No match: the
//     message is dropped, counted in PTL_SR_DROP_COUNT, no event anywhere, no ack.
//     The job and user ids are part of the match entry (Brightwell et al. 2005, s.3.1)
//     instead of a separate access control table; there is no PtlACEntry.
//   - Offsets and lengths: the offset is the MD's local offset, or the request's if
//     PTL_MD_MANAGE_REMOTE. mlength = rlength if it fits in size - offset, else
//     size - offset with PTL_MD_TRUNCATE, else the MD rejects the message; an offset
//     beyond the end is rejected. The local offset advances by mlength (puts and
//     gets). A reply lands at the offset its get named (PtlGetRegion's local offset,
//     0 for PtlGet), truncated if the MD allows, dropped if it does not fit otherwise.
//   - Thresholds: every operation that can generate an event counts one, at the moment
//     it is committed (PtlPut, a matched put or get, an arriving ack or reply); a get
//     request does not (its reply does). So a put with ack consumes two, which is why
//     MPI-like layers give such MDs a threshold of 2. A threshold below 0 other than
//     PTL_MD_THRESH_INF counts as 0.
//   - PTL_MD_MAX_SIZE: the MD becomes inactive when size - local offset < max_size; it
//     does not limit the length of a single request (the reference implementation),
//     and it is ignored with PTL_MD_MANAGE_REMOTE.
//   - Inactive and unlink: an MD is inactive when its threshold is 0 or max size is
//     reached. Inactive MDs are passed over at once, even with operations in flight.
//     An inactive PTL_UNLINK MD is unlinked when its last operation in flight finishes:
//     its UNLINK event follows that operation's END event, and repeats the Link and
//     fields of the operation that made it inactive. Unlinking an MD unlinks its match
//     entry if the entry was created with PTL_UNLINK. Explicit MDUnlink and MEUnlink
//     post no UNLINK event, and are refused while operations are in flight.
//   - Events: PTL_MD_EVENT_START_DISABLE / END_DISABLE silence START / END events; ACK
//     and UNLINK events are silenced only when both are set (the reference
//     implementation). START and END of one operation share a Link, numbered per NI.
//     Events carry the MD as it is when they are posted. SEND events report the remote
//     offset; ACK events report the put's rlength, the accepted mlength and the target
//     offset; ACK and REPLY events carry the request's portal index and match bits.
//   - Event queues overwrite their oldest event when full; the next EQGet/EQPoll
//     returns the oldest event still queued with PTL_EQ_DROPPED.
//   - MDUpdate: the local offset restarts at 0; refused with PTL_MD_NO_UPDATE when
//     the test queue holds events or is owed events by operations in flight, and
//     always when the MD itself has operations in flight.
//   - Free-floating MDs (MDBind) are never matched: they initiate puts and gets and
//     receive acks and replies.
//   - Put and Get need an active MD (PTL_MD_INVALID otherwise) and a target that is
//     not a wildcard (PTL_PROCESS_INVALID); a region beyond the MD is PTL_MD_ILLEGAL.
//   - An ack or reply for an unlinked or inactive MD is dropped and counted.
//   - Handles carry a generation: a stale handle is invalid, never another object.
package ptl

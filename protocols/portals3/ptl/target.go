package ptl

// DeliverHeader processes an incoming message header and returns the decision. It is
// the single receive entry point, whatever the message:
//
//   - a put or get (this NI is the target) walks the match list of its portal (see
//     match); on a match the operation counts against the MD (threshold, local offset;
//     the MD may become inactive now, so later messages pass it over), PUT_START or
//     GET_START is posted, and the Delivery says where the data goes or comes from
//     and what response is owed. The transport moves the data (WriteData / ReadData
//     for real bytes) and then calls Complete, which posts the END event. A message
//     that matches nothing is dropped: no event, PTL_SR_DROP_COUNT counts it, and a
//     put's initiator gets no ack.
//   - an ack (this NI initiated the put) posts the single ACK event, reporting the
//     length the target accepted; it counts against the initiator MD's threshold.
//   - a reply (this NI initiated the get) lands at the offset the get named
//     (Header.LocalOffset) in the initiator MD, truncated if the MD allows it;
//     REPLY_START is posted now and REPLY_END by Complete; it counts against the
//     threshold.
//
// An ack or reply whose MD has been unlinked or is inactive is dropped.
func (ni *NI) DeliverHeader(h Header) Delivery {
	d := Delivery{Header: h}
	if ni != nil {
		d.Posted = ni.delivered[:0]
	}
	switch {
	case ni.check() != nil:
		d.Reason = DropNIInvalid
	case h.Dst != ni.ID():
		d.Reason = DropWrongTarget
	default:
		switch h.Op {
		case OpPut, OpGet:
			ni.deliverRequest(&d)
		case OpAck:
			ni.deliverAck(&d)
		case OpReply:
			ni.deliverReply(&d)
		default:
			d.Reason = DropBadOp
		}
	}
	if ni != nil {
		if !d.Accepted {
			ni.sr[SRDropCount]++
			ni.sr[SRDropLength] += h.Length
		}
		ni.delivered = d.Posted[:0] // with the capacity appends gave it
	}
	if len(d.Posted) == 0 {
		d.Posted = nil
	}
	return d
}

// deliverRequest matches a put or get at the target.
func (ni *NI) deliverRequest(d *Delivery) {
	h := d.Header
	if int(h.PtIndex) >= len(ni.pt) {
		d.Reason = DropPtIndexInvalid
		return
	}
	e, off, n, searched := ni.match(h)
	d.Searched = searched
	if e == nil {
		d.Reason = DropNoMatch
		return
	}
	m := e.md
	ev := h.event(n, off, ni.nextLink())
	kind, start := opPut, EventPutStart
	if h.Op == OpGet {
		kind, start = opGet, EventGetStart
	} else {
		ev.HdrData = h.HdrData
	}
	ni.consume(m, n, ev, true)
	ni.begin(kind, m, ev)
	if m.startEvents() {
		ni.post(m, ev, start, NIOK, &d.Posted)
	}
	d.Accepted, d.InFlight, d.Link = true, true, ev.Link
	d.ME, d.MD, d.Offset, d.MLength = e.h, m.h, off, n
	d.Regions, d.sliced = ni.slice(m, off, n)
	if h.Op == OpGet {
		d.Response = ni.response(h, off, ev.Link)
		d.Response.Op, d.Response.Length = OpReply, n
		ni.sr[SRSendCount]++
		ni.sr[SRSendLength] += n
		return
	}
	if h.AckReq && m.spec.Options&MDAckDisable == 0 {
		d.Response = ni.response(h, off, ev.Link)
		d.Response.Op, d.Response.Length, d.Response.MLength = OpAck, h.Length, n
	}
	ni.sr[SRRecvCount]++
	ni.sr[SRRecvLength] += n
}

// response returns a new header answering request h (an ack or a reply, whose
// operation and lengths the caller sets), matched at offset off for operation link:
// the NI's, valid until its next DeliverHeader (Delivery.Response).
func (ni *NI) response(h Header, off, link uint64) *Header {
	ni.resp = Header{Src: ni.ID(), SrcJID: ni.cfg.JID, SrcUID: ni.cfg.UID, Dst: h.Src, PtIndex: h.PtIndex,
		MatchBits: h.MatchBits, RemoteOffset: off, LocalOffset: h.LocalOffset, MD: h.MD, Link: link}
	return &ni.resp
}

// event is the event of incoming message h: its initiator, portal, match bits and
// requested length, with the manipulated length mlength at offset of the MD, for
// operation link.
func (h Header) event(mlength, offset, link uint64) Event {
	return Event{Initiator: h.Src, UID: h.SrcUID, JID: h.SrcJID, PtIndex: h.PtIndex, MatchBits: h.MatchBits,
		RLength: h.Length, MLength: mlength, Offset: offset, Link: link}
}

// responseMD returns the live, active initiator MD an ack or reply names.
func (ni *NI) responseMD(d *Delivery) *md {
	m, ok := ni.mds.get(uint64(d.Header.MD))
	switch {
	case !ok:
		d.Reason = DropMDInvalid
	case !m.active():
		d.Reason = DropMDInactive
	default:
		return m
	}
	return nil
}

// deliverAck posts the ACK event of a put this NI initiated.
func (ni *NI) deliverAck(d *Delivery) {
	h := d.Header
	m := ni.responseMD(d)
	if m == nil {
		return
	}
	ev := h.event(h.MLength, h.RemoteOffset, ni.nextLink())
	ni.consume(m, 0, ev, false)
	if m.singleEvents() {
		ni.post(m, ev, EventAck, NIOK, &d.Posted)
	}
	ni.sr[SRRecvCount]++
	d.Accepted, d.MD, d.MLength, d.Offset, d.Link = true, m.h, h.MLength, h.RemoteOffset, ev.Link
	ni.autoUnlink(m, &d.Posted)
}

// deliverReply accepts the reply to a get this NI initiated.
func (ni *NI) deliverReply(d *Delivery) {
	h := d.Header
	m := ni.responseMD(d)
	if m == nil {
		return
	}
	off := h.LocalOffset
	if off > m.size || (h.Length > m.size-off && m.spec.Options&MDTruncate == 0) {
		d.Reason = DropNoRoom
		return
	}
	n := min(h.Length, m.size-off)
	ev := h.event(n, off, ni.nextLink())
	ni.consume(m, n, ev, false)
	ni.begin(opReply, m, ev)
	if m.startEvents() {
		ni.post(m, ev, EventReplyStart, NIOK, &d.Posted)
	}
	ni.sr[SRRecvCount]++
	ni.sr[SRRecvLength] += n
	d.Accepted, d.InFlight, d.Link = true, true, ev.Link
	d.MD, d.Offset, d.MLength = m.h, off, n
	d.Regions, d.sliced = ni.slice(m, off, n)
}

// slice is m.slice for a Delivery: pieces that are not one whole region of the MD go
// into an array the NI reuses at its next DeliverHeader (Delivery.Regions; inOut).
func (ni *NI) slice(m *md, off, n uint64) (r []Region, inOut bool) {
	r, inOut = m.sliceInto(off, n, ni.sliced)
	if inOut {
		ni.sliced = r[:0]
	}
	return r, inOut
}

// Complete finishes an accepted put, get or reply whose Delivery has InFlight set:
// the data has landed (put, reply) or the reply has been sent (get), or the transfer
// failed (failed). It posts the END event with PTL_NI_OK or PTL_NI_FAIL and releases
// the MD; if the MD became inactive and was attached with PTL_UNLINK, and no other
// operation is in flight on it, it is unlinked (with its match entry if that was
// created with PTL_UNLINK) and the UNLINK event follows the END event. Threshold and
// offset were consumed at DeliverHeader, as in the reference implementation, and are
// not given back on failure. Errors: ErrFail if d is not an operation in flight. The
// events are valid until the next SendStarted, SendDone or Complete of the NI.
func (ni *NI) Complete(d Delivery, failed bool) ([]Posted, error) {
	if err := ni.check(); err != nil {
		return nil, err
	}
	o := ni.ops[d.Link]
	if !d.InFlight || o == nil || o.kind == opSend || o.md.h != d.MD {
		return nil, ErrFail
	}
	out := ni.posted[:0]
	ni.finish(o, failed, &out)
	ni.posted = out
	return out, nil
}

// WriteData copies an incoming payload (a put's data at the target, a reply's at the
// initiator) into the regions of the Delivery: the first MLength bytes of payload
// land at the MD's offset, the rest (truncated by the MD) is discarded; size-only
// regions are skipped. A nil payload copies nothing. Errors: ErrFail if the delivery
// was not accepted or payload is shorter than MLength.
func (ni *NI) WriteData(d Delivery, payload []byte) error {
	if err := ni.check(); err != nil {
		return err
	}
	if payload == nil {
		return nil
	}
	if !d.Accepted || uint64(len(payload)) < d.MLength {
		return ErrFail
	}
	scatter(d.Regions, payload[:d.MLength])
	return nil
}

// ReadData returns a copy of the MLength bytes a get reads at the target (the reply's
// payload), or nil if that memory is size-only or the delivery was not accepted.
func (ni *NI) ReadData(d Delivery) []byte {
	if !d.Accepted || ni.check() != nil {
		return nil
	}
	return gather(d.Regions)
}

package ptl

// activeMD returns the live, active MD named by h, for an initiator call. Errors: those
// of the NI's check, then ErrMDInvalid for a handle that names no MD or an inactive
// one (as the reference implementation).
func (ni *NI) activeMD(h MDHandle) (*md, error) {
	if err := ni.check(); err != nil {
		return nil, err
	}
	m, ok := ni.mds.get(uint64(h))
	if !ok || !m.active() {
		return nil, ErrMDInvalid
	}
	return m, nil
}

// regionMD returns the MD of an initiator call on length bytes at localOffset, sent
// to target. Errors: as activeMD, then ErrProcessInvalid for a wildcard target (a
// message goes to one process), ErrMDIllegal for a region beyond the MD.
func (ni *NI) regionMD(h MDHandle, localOffset, length uint64, target ProcessID) (*md, error) {
	m, err := ni.activeMD(h)
	if err != nil {
		return nil, err
	}
	if target.NID == NIDAny || target.PID == PIDAny {
		return nil, ErrProcessInvalid
	}
	if localOffset > m.size || length > m.size-localOffset {
		return nil, ErrMDIllegal
	}
	return m, nil
}

// Put initiates a put of the whole MD (PtlPut): see PutRegion.
func (ni *NI) Put(mdh MDHandle, ack AckReq, target ProcessID, pt PtIndex, bits MatchBits, remoteOffset uint64, hdr HdrData) (Header, error) {
	m, err := ni.activeMD(mdh)
	if err != nil {
		return Header{}, err
	}
	return ni.PutRegion(mdh, 0, m.size, ack, target, pt, bits, remoteOffset, hdr)
}

// PutRegion initiates a put of length bytes starting at localOffset of the MD
// (PtlPutRegion) and returns the header to transmit. The operation counts against the
// MD's threshold now and holds the MD until SendDone; the transport calls SendStarted
// when the data starts leaving (SEND_START) and SendDone when it has left (SEND_END).
// The portal index is not checked here: the target drops what it cannot match.
// Errors: ErrMDInvalid (no such MD, or inactive), ErrProcessInvalid (wildcard
// target), ErrMDIllegal (region beyond the MD).
func (ni *NI) PutRegion(mdh MDHandle, localOffset, length uint64, ack AckReq, target ProcessID, pt PtIndex, bits MatchBits, remoteOffset uint64, hdr HdrData) (Header, error) {
	m, err := ni.regionMD(mdh, localOffset, length, target)
	if err != nil {
		return Header{}, err
	}
	link := ni.nextLink()
	ev := Event{Initiator: ni.ID(), UID: ni.cfg.UID, JID: ni.cfg.JID, PtIndex: pt, MatchBits: bits,
		RLength: length, MLength: length, Offset: remoteOffset, HdrData: hdr, Link: link}
	ni.consume(m, length, ev, false)
	o := ni.begin(opSend, m, ev)
	if o.startOwed = m.startEvents(); o.startOwed {
		ni.owe(m, 1)
	}
	ni.sr[SRSendCount]++
	ni.sr[SRSendLength] += length
	return Header{Op: OpPut, Src: ni.ID(), SrcJID: ni.cfg.JID, SrcUID: ni.cfg.UID, Dst: target,
		PtIndex: pt, MatchBits: bits, RemoteOffset: remoteOffset, LocalOffset: localOffset,
		Length: length, HdrData: hdr, AckReq: ack == AckReqd, MD: mdh, Link: link}, nil
}

// Get initiates a get filling the whole MD (PtlGet): see GetRegion.
func (ni *NI) Get(mdh MDHandle, target ProcessID, pt PtIndex, bits MatchBits, remoteOffset uint64) (Header, error) {
	m, err := ni.activeMD(mdh)
	if err != nil {
		return Header{}, err
	}
	return ni.GetRegion(mdh, 0, m.size, target, pt, bits, remoteOffset)
}

// GetRegion initiates a get of length bytes whose reply lands at localOffset of the MD
// (PtlGetRegion) and returns the request header to transmit. As in the reference
// implementation, sending the request generates no event and does not count against
// the threshold; the reply does (REPLY_START/END, see DeliverHeader). SendStarted and
// SendDone accept the header and do nothing. Errors: as PutRegion.
func (ni *NI) GetRegion(mdh MDHandle, localOffset, length uint64, target ProcessID, pt PtIndex, bits MatchBits, remoteOffset uint64) (Header, error) {
	if _, err := ni.regionMD(mdh, localOffset, length, target); err != nil {
		return Header{}, err
	}
	ni.sr[SRSendCount]++
	return Header{Op: OpGet, Src: ni.ID(), SrcJID: ni.cfg.JID, SrcUID: ni.cfg.UID, Dst: target,
		PtIndex: pt, MatchBits: bits, RemoteOffset: remoteOffset, LocalOffset: localOffset,
		Length: length, MD: mdh, Link: ni.nextLink()}, nil
}

// sendOp returns the initiator operation of a put header built by this NI.
func (ni *NI) sendOp(h Header) (*op, error) {
	if err := ni.check(); err != nil {
		return nil, err
	}
	o := ni.ops[h.Link]
	if o == nil || o.kind != opSend || o.md.h != h.MD {
		return nil, ErrFail
	}
	return o, nil
}

// SendStarted tells the initiator that the put of h started leaving: it posts
// SEND_START. Calling it is optional (SendDone posts a missing SEND_START first). The
// events it returns are valid until the next SendStarted, SendDone or Complete of the
// NI, which reuse their array.
// A get header is accepted and ignored. Errors: ErrFail if h is not a put of this NI
// in flight or SendStarted was already called.
func (ni *NI) SendStarted(h Header) ([]Posted, error) {
	if h.Op == OpGet {
		return nil, ni.check()
	}
	o, err := ni.sendOp(h)
	if err != nil {
		return nil, err
	}
	if o.started {
		return nil, ErrFail
	}
	out := ni.posted[:0]
	ni.sendStart(o, &out)
	ni.posted = out
	return out, nil
}

// sendStart marks o started and posts its SEND_START if owed.
func (ni *NI) sendStart(o *op, out *[]Posted) {
	o.started = true
	if o.startOwed {
		o.startOwed = false
		ni.owe(o.md, -1)
		ni.post(o.md, o.ev, EventSendStart, NIOK, out)
	}
}

// SendDone tells the initiator that the put of h has left, or failed to (failed): it
// posts SEND_END with PTL_NI_FAIL or PTL_NI_OK, releases the MD and, if the MD is
// inactive and PTL_UNLINK, unlinks it (UNLINK after SEND_END); an ack arriving later
// is then dropped, which is why MPI-like layers give a put-with-ack MD a threshold of
// 2. A get header is accepted and ignored. Errors: ErrFail if h is not a put of this
// NI in flight. The events are valid until the next SendStarted, SendDone or Complete.
func (ni *NI) SendDone(h Header, failed bool) ([]Posted, error) {
	if h.Op == OpGet {
		return nil, ni.check()
	}
	o, err := ni.sendOp(h)
	if err != nil {
		return nil, err
	}
	out := ni.posted[:0]
	ni.sendStart(o, &out)
	ni.finish(o, failed, &out)
	ni.posted = out
	return out, nil
}

// SendRegions returns the pieces of host memory the payload of put h is read from,
// while the put is in flight (nil for a get). Errors: ErrFail as SendDone.
func (ni *NI) SendRegions(h Header) ([]Region, error) {
	if h.Op == OpGet {
		return nil, ni.check()
	}
	o, err := ni.sendOp(h)
	if err != nil {
		return nil, err
	}
	return o.md.slice(h.LocalOffset, h.Length), nil
}

// SendData returns a copy of the payload of put h, or nil if its memory is size-only
// (or h is a get). Errors: ErrFail as SendDone.
func (ni *NI) SendData(h Header) ([]byte, error) {
	rs, err := ni.SendRegions(h)
	if err != nil || h.Op == OpGet {
		return nil, err
	}
	return gather(rs), nil
}

package ptl

// me is a live match entry, linked into the match list of its portal.
type me struct {
	h          MEHandle
	pt         PtIndex
	id         MatchID
	bits       MatchBits
	ignore     MatchBits
	unlink     UnlinkOp
	md         *md
	prev, next *me
}

// matches applies the match rule to a message from src (with its job and user ids)
// carrying bits: every id equal or wildcarded, and the match bits equal outside the
// ignore bits.
func (e *me) matches(h Header) bool {
	return (e.id.NID == NIDAny || e.id.NID == h.Src.NID) &&
		(e.id.PID == PIDAny || e.id.PID == h.Src.PID) &&
		(e.id.JID == JIDAny || e.id.JID == h.SrcJID) &&
		(e.id.UID == UIDAny || e.id.UID == h.SrcUID) &&
		(e.bits^h.MatchBits)&^e.ignore == 0
}

// newME allocates a match entry, not yet linked.
func (ni *NI) newME(pt PtIndex, id MatchID, bits, ignore MatchBits, unlink UnlinkOp) (*me, error) {
	if ni.pt[pt].n >= ni.lim.MaxMEList {
		return nil, ErrMEListTooLong
	}
	e := ni.meFree.New(me{pt: pt, id: id, bits: bits, ignore: ignore, unlink: unlink})
	h, ok := ni.mes.alloc(e)
	if !ok {
		ni.meFree.Take(e)
		return nil, ErrNoSpace
	}
	e.h = MEHandle(h)
	return e, nil
}

// MEAttach creates a match entry and puts it at the head (InsBefore) or tail
// (InsAfter) of the match list of portal pt (PtlMEAttach). Match ids are not checked:
// any value may name a process. Errors: ErrPtIndexInvalid, ErrMEListTooLong,
// ErrNoSpace.
func (ni *NI) MEAttach(pt PtIndex, id MatchID, bits, ignore MatchBits, unlink UnlinkOp, pos InsPos) (MEHandle, error) {
	if err := ni.check(); err != nil {
		return InvalidHandle, err
	}
	if int(pt) >= len(ni.pt) {
		return InvalidHandle, ErrPtIndexInvalid
	}
	e, err := ni.newME(pt, id, bits, ignore, unlink)
	if err != nil {
		return InvalidHandle, err
	}
	p := &ni.pt[pt]
	if pos == InsBefore {
		ni.insertBetween(e, nil, p.head)
	} else {
		ni.insertBetween(e, p.tail, nil)
	}
	return e.h, nil
}

// MEAttachAny attaches a match entry to the lowest portal table entry whose match list
// is empty, and returns that index (PtlMEAttachAny). Errors: ErrPTFull, ErrNoSpace.
func (ni *NI) MEAttachAny(id MatchID, bits, ignore MatchBits, unlink UnlinkOp) (PtIndex, MEHandle, error) {
	if err := ni.check(); err != nil {
		return 0, InvalidHandle, err
	}
	for i := range ni.pt {
		if ni.pt[i].n == 0 {
			h, err := ni.MEAttach(PtIndex(i), id, bits, ignore, unlink, InsAfter)
			return PtIndex(i), h, err
		}
	}
	return 0, InvalidHandle, ErrPTFull
}

// MEInsert creates a match entry just before or after base, on base's portal
// (PtlMEInsert). Errors: ErrMEInvalid, ErrMEListTooLong, ErrNoSpace.
func (ni *NI) MEInsert(base MEHandle, id MatchID, bits, ignore MatchBits, unlink UnlinkOp, pos InsPos) (MEHandle, error) {
	if err := ni.check(); err != nil {
		return InvalidHandle, err
	}
	b, ok := ni.mes.get(uint64(base))
	if !ok {
		return InvalidHandle, ErrMEInvalid
	}
	e, err := ni.newME(b.pt, id, bits, ignore, unlink)
	if err != nil {
		return InvalidHandle, err
	}
	if pos == InsBefore {
		ni.insertBetween(e, b.prev, b)
	} else {
		ni.insertBetween(e, b, b.next)
	}
	return e.h, nil
}

// insertBetween puts e between prev and next (either may be nil: list ends) on e's portal.
func (ni *NI) insertBetween(e, prev, next *me) {
	p := &ni.pt[e.pt]
	e.prev, e.next = prev, next
	if prev == nil {
		p.head = e
	} else {
		prev.next = e
	}
	if next == nil {
		p.tail = e
	} else {
		next.prev = e
	}
	p.n++
}

// MEUnlink unlinks a match entry and the MD attached to it, if any (PtlMEUnlink); no
// UNLINK event is posted for an explicit unlink. Errors: ErrMEInvalid, ErrMEInUse if
// its MD has operations in flight.
func (ni *NI) MEUnlink(h MEHandle) error {
	if err := ni.check(); err != nil {
		return err
	}
	e, ok := ni.mes.get(uint64(h))
	if !ok {
		return ErrMEInvalid
	}
	if e.md != nil && e.md.pending > 0 {
		return ErrMEInUse
	}
	if m := e.md; m != nil {
		m.me, e.md = nil, nil
		ni.freeMD(m)
	}
	ni.unlinkME(e)
	return nil
}

// unlinkME takes e off its match list and frees it.
func (ni *NI) unlinkME(e *me) {
	p := &ni.pt[e.pt]
	if e.prev == nil {
		p.head = e.next
	} else {
		e.prev.next = e.next
	}
	if e.next == nil {
		p.tail = e.prev
	} else {
		e.next.prev = e.prev
	}
	p.n--
	ni.mes.release(uint64(e.h))
	ni.meFree.Take(e) // off its list, its handle released, its MD detached: nothing names it
}

// MEs returns the match list of portal pt, head first (the reference implementation's
// PtlTblDump, as data). Errors: ErrPtIndexInvalid.
func (ni *NI) MEs(pt PtIndex) ([]MEHandle, error) {
	if err := ni.check(); err != nil {
		return nil, err
	}
	if int(pt) >= len(ni.pt) {
		return nil, ErrPtIndexInvalid
	}
	var out []MEHandle
	for e := ni.pt[pt].head; e != nil; e = e.next {
		out = append(out, e.h)
	}
	return out, nil
}

// match walks the match list of h's portal for the first entry that matches h and
// whose MD accepts the operation: an entry without MD, with an inactive MD, with an MD
// that does not allow the operation or that has no room (without truncation) is passed
// over (Brightwell et al. 2005, s.3.1; the reference implementation's lib_find_md).
// It returns the entry, the offset and bytes accepted, and the entries examined.
func (ni *NI) match(h Header) (e *me, offset, mlength uint64, searched int) {
	want := MDOpPut
	if h.Op == OpGet {
		want = MDOpGet
	}
	for e = ni.pt[h.PtIndex].head; e != nil; e = e.next {
		searched++
		if !e.matches(h) {
			continue
		}
		m := e.md
		if m == nil || !m.active() || m.spec.Options&want == 0 {
			continue
		}
		if off, n, ok := m.fit(h.RemoteOffset, h.Length); ok {
			return e, off, n, searched
		}
	}
	return nil, 0, 0, searched
}

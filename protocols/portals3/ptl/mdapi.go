package ptl

// buildMD validates spec and allocates an MD. Errors: ErrMDIllegal, ErrEQInvalid,
// ErrNoSpace.
func (ni *NI) buildMD(spec MD, unlink UnlinkOp) (*md, error) {
	if err := spec.check(ni.lim); err != nil {
		return nil, err
	}
	if spec.EQ != EQNone {
		if _, ok := ni.eqs.get(uint64(spec.EQ)); !ok {
			return nil, ErrEQInvalid
		}
	}
	m := ni.newMDState(spec, unlink)
	h, ok := ni.mds.alloc(m)
	if !ok {
		return nil, ErrNoSpace
	}
	m.h = MDHandle(h)
	return m, nil
}

// MDAttach attaches a memory descriptor to a match entry (PtlMDAttach); with unlink ==
// Unlink the MD is unlinked automatically once inactive and idle. Errors:
// ErrMEInvalid, ErrMEInUse (the entry has an MD), ErrMDIllegal, ErrEQInvalid,
// ErrNoSpace.
func (ni *NI) MDAttach(meh MEHandle, spec MD, unlink UnlinkOp) (MDHandle, error) {
	if err := ni.check(); err != nil {
		return InvalidHandle, err
	}
	e, ok := ni.mes.get(uint64(meh))
	if !ok {
		return InvalidHandle, ErrMEInvalid
	}
	if e.md != nil {
		return InvalidHandle, ErrMEInUse
	}
	m, err := ni.buildMD(spec, unlink)
	if err != nil {
		return InvalidHandle, err
	}
	m.me, e.md = e, m
	return m.h, nil
}

// MDBind creates a free-floating memory descriptor (PtlMDBind): attached to no match
// entry, it can initiate puts and gets and receive their acks and replies, but no
// incoming put or get can reach it (Brightwell et al. 2005, s.3.1). Errors:
// ErrMDIllegal, ErrEQInvalid, ErrNoSpace.
func (ni *NI) MDBind(spec MD, unlink UnlinkOp) (MDHandle, error) {
	if err := ni.check(); err != nil {
		return InvalidHandle, err
	}
	m, err := ni.buildMD(spec, unlink)
	if err != nil {
		return InvalidHandle, err
	}
	return m.h, nil
}

// MDUnlink unlinks a memory descriptor (PtlMDUnlink), and its match entry if that was
// created with PTL_UNLINK. No UNLINK event is posted: that event reports automatic
// unlinks only, as in the reference implementation. Errors: ErrMDInvalid, ErrMDInUse
// if operations are in flight.
func (ni *NI) MDUnlink(h MDHandle) error {
	if err := ni.check(); err != nil {
		return err
	}
	m, ok := ni.mds.get(uint64(h))
	if !ok {
		return ErrMDInvalid
	}
	if m.pending > 0 {
		return ErrMDInUse
	}
	ni.unlinkMD(m)
	return nil
}

// MDUpdate returns the current MD (old_md) and, if newMD is not nil, replaces it
// (PtlMDUpdate): memory, threshold, max size, options, user pointer and event queue
// change, the local offset restarts at 0, the match entry and unlink op stay. The
// update is conditional: if testEQ is not EQNone it happens only if that queue is
// empty and no operation in flight owes it an event; in every case the MD itself must
// have no operation in flight (the reference implementation's rule with a test queue,
// applied always so that an operation never sees its MD change under it). Errors:
// ErrMDInvalid, ErrEQInvalid (testEQ or newMD.EQ), ErrMDIllegal, ErrMDNoUpdate.
func (ni *NI) MDUpdate(h MDHandle, newMD *MD, testEQ EQHandle) (MD, error) {
	if err := ni.check(); err != nil {
		return MD{}, err
	}
	m, ok := ni.mds.get(uint64(h))
	if !ok {
		return MD{}, ErrMDInvalid
	}
	old := m.snapshot()
	if newMD == nil {
		return old, nil
	}
	var tq *eq
	if testEQ != EQNone {
		if tq, ok = ni.eqs.get(uint64(testEQ)); !ok {
			return old, ErrEQInvalid
		}
	}
	if err := newMD.check(ni.lim); err != nil {
		return old, err
	}
	if newMD.EQ != EQNone {
		if _, ok := ni.eqs.get(uint64(newMD.EQ)); !ok {
			return old, ErrEQInvalid
		}
	}
	if m.pending > 0 || (tq != nil && (tq.count() > 0 || tq.owed > 0)) {
		return old, ErrMDNoUpdate
	}
	m.reset(*newMD)
	ni.forgetLastEvent(m)
	return old, nil
}

// MDState is the library's view of a memory descriptor (not part of the 3.3 API; for
// firmware cost models and tests).
type MDState struct {
	MD      MD       // as built or last updated; Threshold is the live one
	Offset  uint64   // the local offset
	Pending int      // operations in flight
	Active  bool     // whether it responds to operations
	Unlink  UnlinkOp // PTL_UNLINK: unlinked when inactive and idle
	ME      MEHandle // its match entry; InvalidHandle if free-floating (MDBind)
	Size    uint64   // bytes covered
}

// MDStatus returns the state of a memory descriptor. Errors: ErrMDInvalid.
func (ni *NI) MDStatus(h MDHandle) (MDState, error) {
	if err := ni.check(); err != nil {
		return MDState{}, err
	}
	m, ok := ni.mds.get(uint64(h))
	if !ok {
		return MDState{}, ErrMDInvalid
	}
	s := MDState{MD: m.snapshot(), Offset: m.offset, Pending: m.pending, Active: m.active(), Unlink: m.unlink, Size: m.size}
	if m.me != nil {
		s.ME = m.me.h
	}
	return s, nil
}

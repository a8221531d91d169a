package ptl

import (
	"fmt"
	"slices"
)

// Region is one piece of host memory: its address (what a DMA engine and traces need),
// its length in bytes, and optionally the bytes themselves. Buf is owned by the caller
// ("host memory"): the library only slices it. A nil Buf makes the region size-only,
// as most simulations run; a non-nil Buf must be exactly Len bytes long.
type Region struct {
	Addr uint64
	Len  uint64
	Buf  []byte
}

// String prints the region as address+length.
func (r Region) String() string { return fmt.Sprintf("%#x+%d", r.Addr, r.Len) }

// MD describes a memory descriptor (ptl_md_t): the memory it covers and how it responds
// to operations. A contiguous MD is Start/Length (with Buf holding the bytes, or nil);
// with MDIovec the MD is the concatenation of the regions in Iov (offsets index the
// concatenation) and Start, Length and Buf are ignored: the C API overloads start and
// length as the iovec array and its count, here they are separate fields.
type MD struct {
	Start     uint64   // address of a contiguous region
	Length    uint64   // bytes of a contiguous region
	Buf       []byte   // the bytes of a contiguous region (nil: size-only; else len(Buf) == Length)
	Iov       []Region // the regions of an MDIovec descriptor, at most Limits.MaxMDIovecs
	Threshold int      // operations left before the MD becomes inactive; ThreshInf for no limit; below 0 counts as 0
	MaxSize   uint64   // with MDMaxSize and a local offset: inactive once Size - offset < MaxSize
	Options   Options  // PTL_MD_* bits
	UserPtr   uint64   // opaque to the library, returned in events (user_ptr)
	EQ        EQHandle // where the MD's events go; EQNone for none
	// LazyBuf (a simulator extension, contiguous MDs only) gives a contiguous MD its
	// bytes when first used: if not nil and Buf is nil, the first operation that
	// reaches the MD's memory allocates Length bytes into *LazyBuf and uses them as
	// Buf from then on. A large buffer that is mostly unused (MPI's unexpected-message
	// buffers) then costs memory only once something lands in it.
	LazyBuf *[]byte
}

// Size is the number of bytes the MD covers.
func (m MD) Size() uint64 {
	if m.Options&MDIovec == 0 {
		return m.Length
	}
	var n uint64
	for _, r := range m.Iov {
		n += r.Len
	}
	return n
}

// setRegions lays out the MD's memory as a list of regions: the MD's own copy of its
// iovec list (reset made it; the bytes are shared), or for a contiguous MD the one
// region kept inside it (no allocation: MPI binds an MD per message).
func (m *md) setRegions() {
	if m.spec.Options&MDIovec == 0 {
		m.one[0] = Region{Addr: m.spec.Start, Len: m.spec.Length, Buf: m.spec.Buf}
		m.regions = m.one[:]
		return
	}
	m.regions = m.spec.Iov
}

// check returns ErrMDIllegal if the MD cannot be built under limits l.
func (m MD) check(l Limits) error {
	if m.Options&^mdOptionsAll != 0 {
		return ErrMDIllegal
	}
	if m.Options&MDIovec == 0 {
		if len(m.Iov) != 0 || (m.Buf != nil && uint64(len(m.Buf)) != m.Length) {
			return ErrMDIllegal
		}
		return nil
	}
	if m.LazyBuf != nil {
		return ErrMDIllegal
	}
	if len(m.Iov) > l.MaxMDIovecs {
		return ErrMDIllegal
	}
	for _, r := range m.Iov {
		if r.Buf != nil && uint64(len(r.Buf)) != r.Len {
			return ErrMDIllegal
		}
	}
	return nil
}

// md is a live memory descriptor.
type md struct {
	h       MDHandle
	spec    MD // as given; spec.Threshold is the live threshold
	regions []Region
	one     [1]Region // the region of a contiguous MD (regions points at it)
	size    uint64
	offset  uint64 // local offset (PTL_MD_MANAGE_REMOTE unset)
	unlink  UnlinkOp
	me      *me // nil for a free-floating MD (MDBind)
	pending int // operations committed and not finished
	// lastEv is the event of the operation that made the MD inactive, nil while it is
	// active: its UNLINK event repeats its fields and its Link. A record of the NI's
	// (evFree), so that an MD carries a pointer, not a 208-byte event.
	lastEv *Event
}

// unlinkEvent is the event an UNLINK event of the MD repeats.
func (m *md) unlinkEvent() Event {
	if m.lastEv == nil {
		return Event{} // inactive from birth
	}
	return *m.lastEv
}

func (ni *NI) newMDState(spec MD, unlink UnlinkOp) *md {
	m := ni.mdFree.New(md{unlink: unlink})
	m.reset(spec)
	return m
}

// reset makes m describe spec from its start (a new MD, or PtlMDUpdate in place).
func (m *md) reset(spec MD) {
	if spec.Threshold < 0 && spec.Threshold != ThreshInf {
		spec.Threshold = 0 // as the reference implementation: inactive from birth
	}
	spec.Iov = append([]Region(nil), spec.Iov...)
	m.spec, m.size, m.offset = spec, spec.Size(), 0
	m.setRegions()
}

// snapshot returns the MD as the API shows it (events, MDUpdate, MDStatus), with a
// private copy of the region list so that callers cannot edit the live one.
func (m *md) snapshot() MD {
	s := m.spec
	s.Iov = slices.Clone(s.Iov)
	return s
}

// maxSizeApplies: PTL_MD_MAX_SIZE is ignored with a remotely managed offset.
func (m *md) maxSizeApplies() bool {
	return m.spec.Options&MDMaxSize != 0 && m.spec.Options&MDManageRemote == 0
}

// active reports whether the MD responds to operations: its threshold is not exhausted
// and, with PTL_MD_MAX_SIZE, at least MaxSize bytes remain past the local offset.
func (m *md) active() bool {
	if m.spec.Threshold == 0 {
		return false
	}
	return !m.maxSizeApplies() || m.size-m.offset >= m.spec.MaxSize
}

// fit decides whether a put or get of rlength bytes at the requested remote offset
// fits: the offset used (the local offset, or roffset if remotely managed) and the
// bytes accepted. A request longer than what remains is truncated with MDTruncate and
// rejected without; an offset beyond the end is rejected.
func (m *md) fit(roffset, rlength uint64) (offset, mlength uint64, ok bool) {
	offset = m.offset
	if m.spec.Options&MDManageRemote != 0 {
		offset = roffset
	}
	if offset > m.size {
		return 0, 0, false
	}
	rest := m.size - offset
	switch {
	case rlength <= rest:
		return offset, rlength, true
	case m.spec.Options&MDTruncate != 0:
		return offset, rest, true
	}
	return 0, 0, false
}

// consume commits one operation of mlength bytes on m: the local offset advances
// (unless remotely managed), the threshold drops (unless infinite) and the operation is
// pending. If the MD became inactive, ev is remembered for its UNLINK event.
func (ni *NI) consume(m *md, mlength uint64, ev Event, advance bool) {
	if advance && m.spec.Options&MDManageRemote == 0 {
		m.offset += mlength
	}
	if m.spec.Threshold != ThreshInf {
		m.spec.Threshold--
	}
	if !m.active() {
		if m.lastEv == nil {
			m.lastEv = ni.evFree.Get()
		}
		*m.lastEv = ev
	}
}

// forgetLastEvent returns the MD's inactivating event record to the NI.
func (ni *NI) forgetLastEvent(m *md) {
	if m.lastEv != nil {
		ni.evFree.Put(m.lastEv)
		m.lastEv = nil
	}
}

// startEvents, endEvents: whether the MD posts START / END events.
func (m *md) startEvents() bool { return m.spec.Options&MDEventStartDisable == 0 }
func (m *md) endEvents() bool   { return m.spec.Options&MDEventEndDisable == 0 }

// singleEvents: whether the MD posts ACK and UNLINK events. As in the reference
// implementation, only disabling both START and END events silences them.
func (m *md) singleEvents() bool { return m.startEvents() || m.endEvents() }

// slice returns the pieces of the MD's memory that cover [offset, offset+n).
func (m *md) slice(offset, n uint64) []Region {
	r, _ := m.sliceInto(offset, n, nil)
	return r
}

// sliceInto is slice with the pieces appended to out (inOut) unless they are one whole
// region of the MD's.
func (m *md) sliceInto(offset, n uint64, out []Region) (r []Region, inOut bool) {
	if m.spec.LazyBuf != nil && m.spec.Buf == nil && n > 0 { // first use: the bytes come now
		m.spec.Buf = make([]byte, m.spec.Length)
		*m.spec.LazyBuf = m.spec.Buf
		m.regions[0].Buf = m.spec.Buf
	}
	return sliceRegions(m.regions, offset, n, out)
}

// sliceRegions appends to out the pieces of rs that cover [off, off+n) and returns
// them (inOut). A single piece that is a whole region of rs is returned as rs's own
// instead (a transfer of a whole contiguous MD, the common case, copies nothing):
// callers do not modify the result, and use it only while the operation it is for is
// in flight, during which the MD can be neither unlinked nor updated (its record is
// not reused) and its regions do not change.
func sliceRegions(rs []Region, off, n uint64, out []Region) (r []Region, inOut bool) {
	out = out[:0]
	for i, r := range rs {
		if n == 0 {
			break
		}
		if off >= r.Len {
			off -= r.Len
			continue
		}
		take := min(r.Len-off, n)
		if len(out) == 0 && off == 0 && take == r.Len && take == n && (r.Buf == nil || uint64(len(r.Buf)) == take) {
			return rs[i : i+1 : i+1], false
		}
		p := Region{Addr: r.Addr + off, Len: take}
		if r.Buf != nil {
			p.Buf = r.Buf[off : off+take : off+take]
		}
		out = append(out, p)
		n -= take
		off = 0
	}
	if len(out) == 0 {
		return nil, false
	}
	return out, true
}

// gather concatenates the bytes of rs; nil if any region is size-only.
func gather(rs []Region) []byte {
	var n uint64
	for _, r := range rs {
		if r.Buf == nil && r.Len > 0 {
			return nil
		}
		n += r.Len
	}
	out := make([]byte, 0, n)
	for _, r := range rs {
		out = append(out, r.Buf...)
	}
	return out
}

// scatter copies p into rs in order, skipping the bytes of size-only regions.
func scatter(rs []Region, p []byte) {
	for _, r := range rs {
		if uint64(len(p)) < r.Len {
			r.Len = uint64(len(p))
		}
		if r.Buf != nil {
			copy(r.Buf[:r.Len], p)
		}
		p = p[r.Len:]
	}
}

package portals4

import "github.com/seastar-sim/seastar/protocols/portals4/ptl4"

// shadow is the host library's record of the objects its calls created: enough to
// check a data-movement call or a counter update without asking the firmware (the
// answer is the same: ptl4.Validate runs on both), so that those calls are posted
// into the mailbox and return at once.
type shadow struct {
	inits int
	nis   [4]*shadowNI
	mds   map[ptl4.Handle]ptl4.MDInfo
	desc  map[ptl4.Handle]ptl4.MD
	cts   map[ptl4.Handle]bool
	eqs   map[ptl4.Handle]*eqState
}

// eqState is the consumer side of an event queue, in host memory.
type eqState struct {
	next    uint64 // the next sequence number to read
	dropped bool   // events were lost since the last one returned
}

type shadowNI struct {
	info ptl4.NIInfo
	refs int
}

func newShadow() shadow {
	return shadow{mds: map[ptl4.Handle]ptl4.MDInfo{}, desc: map[ptl4.Handle]ptl4.MD{}, cts: map[ptl4.Handle]bool{},
		eqs: map[ptl4.Handle]*eqState{}}
}

// Inited implements ptl4.View.
func (s *shadow) Inited() bool { return s.inits > 0 }

// MD implements ptl4.View.
func (s *shadow) MD(h ptl4.Handle) (ptl4.MDInfo, bool) {
	m, ok := s.mds[h]
	return m, ok
}

// NI implements ptl4.View.
func (s *shadow) NI(idx int) (ptl4.NIInfo, bool) {
	if idx < 0 || idx >= len(s.nis) || s.nis[idx] == nil {
		return ptl4.NIInfo{}, false
	}
	return s.nis[idx].info, true
}

func (s *shadow) init() { s.inits++ }

func (s *shadow) fini() {
	if s.inits == 0 {
		return
	}
	if s.inits--; s.inits == 0 {
		*s = newShadow()
	}
}

func (s *shadow) niInit(h ptl4.Handle, opt uint32, lim ptl4.Limits) {
	i := h.NIIndex()
	if s.nis[i] == nil {
		s.nis[i] = &shadowNI{info: ptl4.NIInfo{Limits: lim, Logical: opt&ptl4.NILogical != 0}}
	}
	s.nis[i].refs++
}

func (s *shadow) niFini(h ptl4.Handle) {
	i := h.NIIndex()
	if s.nis[i] == nil {
		return
	}
	if s.nis[i].refs--; s.nis[i].refs > 0 {
		return
	}
	s.nis[i] = nil
	var gone []ptl4.Handle
	for mh := range s.mds {
		gone = append(gone, mh)
	}
	for ch := range s.cts {
		gone = append(gone, ch)
	}
	for eh := range s.eqs {
		gone = append(gone, eh)
	}
	for _, x := range gone { // order does not matter: deleting from maps
		if x.NIIndex() == i {
			delete(s.mds, x)
			delete(s.desc, x)
			delete(s.cts, x)
			delete(s.eqs, x)
		}
	}
}

func (s *shadow) setMap(h ptl4.Handle, n int) {
	if ni := s.nis[h.NIIndex()]; ni != nil {
		ni.info.MapLen = n
	}
}

// ctOK is PtlCTInc's and PtlCTSet's check.
func (s *shadow) ctOK(h ptl4.Handle) ptl4.Ret {
	switch {
	case s.inits == 0:
		return ptl4.NoInit
	case !s.cts[h]:
		return ptl4.ArgInvalid
	}
	return ptl4.OK
}

// mdBytes copies n bytes at offset off of a contiguous MD out of the process's
// memory; nil for an iovec MD or unmapped memory (the firmware then reads the MD when
// it builds the request).
func (r *Rank) mdBytes(h ptl4.Handle, off, n uint64) []byte {
	d, ok := r.sh.desc[h]
	if !ok || d.Options&ptl4.MDIovec != 0 {
		return nil
	}
	b := r.space.Bytes(d.Start+off, n)
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, n), b...)
}

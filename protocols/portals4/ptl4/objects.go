package ptl4

// pt is a portal table entry.
type pt struct {
	alloc   bool
	enabled bool
	opt     uint32
	eq      Handle
	lists   [2][]*entry // priority, overflow
	unexp   []*uhdr
}

// entry is an ME or an LE.
type entry struct {
	h        Handle
	le       bool
	d        ME
	buf      buffer
	list     List
	pt       uint32
	userPtr  uint64
	localOff uint64
	linked   bool // on its list
	auto     bool // unlinked automatically (use-once, min_free): AUTO_FREE follows on the overflow list
	uhRefs   int  // unexpected headers whose data is in this (overflow) entry
}

// uhdr is an unexpected header: a message that matched an overflow entry. The Lib
// recycles it once taken off its list (releaseHeader).
type uhdr struct {
	m       Msg   // the header's own copy (no payload)
	ev      Event // the event the message raised at the overflow entry
	ov      *entry
	mlength uint64
}

type md struct {
	h        Handle
	d        MD
	buf      buffer
	inflight int
}

// eq is an event queue: a ring of events numbered by sequence. head is the oldest
// event neither consumed nor dropped, tail the next to be written. The consumer is
// the library's own EQGet, or (RecordEvents) a host that reads the records the
// caller copies out and reports what it consumed (EQConsumed).
type eq struct {
	h          Handle
	ring       []Event
	head, tail uint64
	dropped    bool
}

type ct struct {
	h    Handle
	v    CTEvent
	trig []*trig
}

// PTAlloc is PtlPTAlloc.
func (l *Lib) PTAlloc(h Handle, opt uint32, eqh Handle, req uint32) (uint32, Ret) {
	n, r := l.getNI(h)
	if r != OK {
		return 0, r
	}
	if opt&^ptOptMask != 0 {
		return 0, ArgInvalid
	}
	if eqh != EQNone && l.eqOf(n, eqh) == nil {
		return 0, ArgInvalid
	}
	if opt&PTFlowCtrl != 0 && eqh == EQNone {
		return 0, PTEQNeeded
	}
	idx := req
	if req == PTAny {
		idx = uint32(len(n.pts))
		for i := range n.pts {
			if !n.pts[i].alloc {
				idx = uint32(i)
				break
			}
		}
		if idx == uint32(len(n.pts)) {
			return 0, PTFull
		}
	} else if req >= uint32(len(n.pts)) {
		return 0, ArgInvalid
	} else if n.pts[req].alloc {
		return 0, PTInUse
	}
	n.pts[idx] = pt{alloc: true, enabled: opt&PTAllocDisabled == 0, opt: opt, eq: eqh}
	return idx, OK
}

func (l *Lib) getPT(h Handle, idx uint32) (*ni, *pt, Ret) {
	n, r := l.getNI(h)
	if r != OK {
		return nil, nil, r
	}
	if idx >= uint32(len(n.pts)) || !n.pts[idx].alloc {
		return nil, nil, ArgInvalid
	}
	return n, &n.pts[idx], OK
}

// PTFree is PtlPTFree.
func (l *Lib) PTFree(h Handle, idx uint32) Ret {
	n, p, r := l.getPT(h, idx)
	if r != OK {
		return r
	}
	if len(p.lists[0])+len(p.lists[1]) > 0 {
		return PTInUse
	}
	n.unexp -= len(p.unexp)
	*p = pt{}
	return OK
}

// PTDisable is PtlPTDisable.
func (l *Lib) PTDisable(h Handle, idx uint32) Ret {
	_, p, r := l.getPT(h, idx)
	if r == OK {
		p.enabled = false
	}
	return r
}

// PTEnable is PtlPTEnable.
func (l *Lib) PTEnable(h Handle, idx uint32) Ret {
	_, p, r := l.getPT(h, idx)
	if r == OK {
		p.enabled = true
	}
	return r
}

func (l *Lib) eqOf(n *ni, h Handle) *eq {
	if h.kind() != hEQ || h.ni() != n.idx {
		return nil
	}
	return n.eqs[h]
}

func (l *Lib) ctOf(n *ni, h Handle) *ct {
	if h.kind() != hCT || h.ni() != n.idx {
		return nil
	}
	return n.cts[h]
}

// MDBind is PtlMDBind.
func (l *Lib) MDBind(h Handle, d MD) (Handle, Ret) {
	n, r := l.getNI(h)
	if r != OK {
		return InvalidHandle, r
	}
	if d.Options&^mdOptMask != 0 {
		return InvalidHandle, ArgInvalid
	}
	if d.EQ != EQNone && l.eqOf(n, d.EQ) == nil {
		return InvalidHandle, ArgInvalid
	}
	if d.CT != CTNone && l.ctOf(n, d.CT) == nil {
		return InvalidHandle, ArgInvalid
	}
	buf, ok := newBuffer(l.mem, d.Start, d.Length, d.Options&MDIovec != 0, n.lim.MaxIovecs)
	if !ok {
		return InvalidHandle, ArgInvalid
	}
	if n.nMD >= n.lim.MaxMDs {
		return InvalidHandle, NoSpace
	}
	m := &md{h: l.handle(hMD, n.idx), d: d, buf: buf}
	n.mds[m.h] = m
	n.nMD++
	return m.h, OK
}

func (l *Lib) mdOf(h Handle) (*ni, *md) {
	if h.kind() != hMD {
		return nil, nil
	}
	n := l.niOf(h)
	if n == nil {
		return nil, nil
	}
	m := n.mds[h]
	if m == nil {
		return nil, nil
	}
	return n, m
}

// MDRelease is PtlMDRelease; an MD with operations in flight cannot be released
// (PTL_ARG_INVALID, as the reference implementation answers: the caller retries).
func (l *Lib) MDRelease(h Handle) Ret {
	if l.inits == 0 {
		return NoInit
	}
	n, m := l.mdOf(h)
	if m == nil {
		return ArgInvalid
	}
	if m.inflight > 0 {
		return ArgInvalid
	}
	delete(n.mds, h)
	n.nMD--
	return OK
}

// Append is PtlMEAppend (le false) and PtlLEAppend (le true).
func (l *Lib) Append(h Handle, idx uint32, d ME, list List, userPtr uint64, le bool) (Handle, Ret) {
	n, r := l.getNI(h)
	if r != OK {
		return InvalidHandle, r
	}
	mask := uint32(meOptMask)
	if le {
		mask = leOptMask
	}
	if le == n.matching() || d.Options&^mask != 0 || list > Overflow {
		return InvalidHandle, ArgInvalid
	}
	if idx >= uint32(len(n.pts)) || !n.pts[idx].alloc {
		return InvalidHandle, ArgInvalid
	}
	if d.CT != CTNone && l.ctOf(n, d.CT) == nil {
		return InvalidHandle, ArgInvalid
	}
	buf, ok := newBuffer(l.mem, d.Start, d.Length, d.Options&MEIovec != 0, n.lim.MaxIovecs)
	if !ok {
		return InvalidHandle, ArgInvalid
	}
	p := &n.pts[idx]
	if n.nEntry >= n.lim.MaxEntries || len(p.lists[0])+len(p.lists[1]) >= n.lim.MaxListSize {
		return InvalidHandle, NoSpace
	}
	k := hME
	if le {
		k = hLE
	}
	e := l.dead.New(entry{h: l.handle(k, n.idx), le: le, d: d, buf: buf, list: list, pt: idx, userPtr: userPtr})
	n.entries[e.h] = e
	n.nEntry++
	if list == Priority && l.matchUnexpected(n, p, e) {
		return e.h, OK // used up by unexpected headers: never linked
	}
	e.linked = true
	p.lists[list] = append(p.lists[list], e)
	if d.Options&MELinkDisable == 0 {
		l.post(n, p.eq, Event{Type: EvLink, PTIndex: idx, UserPtr: userPtr, List: list}, d.Options&MESuccessDisable != 0)
	}
	return e.h, OK
}

// matchUnexpected delivers the unexpected headers a new priority entry matches, oldest
// first: an *_OVERFLOW event each. It reports whether the entry was used up (a
// use-once entry, or one a managed offset filled).
func (l *Lib) matchUnexpected(n *ni, p *pt, e *entry) bool {
	for i := 0; i < len(p.unexp); {
		u := p.unexp[i]
		l.Work.Walked++
		if !l.matches(n, e, &u.m) {
			i++
			continue
		}
		p.unexp = append(p.unexp[:i], p.unexp[i+1:]...)
		n.unexp--
		ev := u.ev
		ev.Type = overflowKind(u.ev.Type)
		ev.UserPtr = e.userPtr
		ev.List = Overflow
		if e.d.Options&MELocalIncUHRLength != 0 && e.d.Options&MEManageLocal != 0 {
			e.localOff += u.ev.RLength
		}
		l.post(n, p.eq, ev, e.d.Options&(MESuccessDisable|MECommDisable|MEOverDisable) != 0)
		l.countEntry(n, e, u.mlength, true)
		l.releaseHeader(n, p, u)
		if e.d.Options&MEUseOnce != 0 || l.full(e) {
			l.autoUnlink(n, p, e)
			return true
		}
	}
	return false
}

func overflowKind(k EventKind) EventKind {
	switch k {
	case EvGet, EvPut, EvAtomic, EvFetchAtomic:
		return k + 1
	}
	return k
}

// releaseHeader drops u's hold on its overflow entry, the last hold on an unlinked
// entry freeing it (PTL_EVENT_AUTO_FREE), and recycles u, which the caller has taken
// off its list.
func (l *Lib) releaseHeader(n *ni, p *pt, u *uhdr) {
	ov := u.ov
	*u = uhdr{}
	l.uhdrs.Put(u)
	if ov == nil {
		return
	}
	ov.uhRefs--
	if ov.uhRefs == 0 && !ov.linked {
		if ov.auto && ov.d.Options&MEUnlinkDisable == 0 {
			l.post(n, p.eq, Event{Type: EvAutoFree, PTIndex: ov.pt, UserPtr: ov.userPtr, List: Overflow}, false)
		}
		if n.entries[ov.h] == ov {
			l.free(n, ov)
		}
	}
}

// full reports whether a locally managed entry has less room left than its min_free.
func (l *Lib) full(e *entry) bool {
	if e.d.Options&MEManageLocal == 0 {
		return false
	}
	return e.buf.total < e.localOff || e.buf.total-e.localOff < e.d.MinFree
}

// autoUnlink takes e off its list after use (PTL_EVENT_AUTO_UNLINK).
func (l *Lib) autoUnlink(n *ni, p *pt, e *entry) {
	l.unlink(n, p, e)
	e.auto = true
	if e.d.Options&MEUnlinkDisable == 0 {
		l.post(n, p.eq, Event{Type: EvAutoUnlink, PTIndex: e.pt, UserPtr: e.userPtr, List: e.list}, false)
	}
	if e.uhRefs == 0 {
		l.free(n, e)
	}
}

// free deletes entry e, which no list or header holds any more; the struct is kept,
// unchanged, for a later append. The caller may still read e until then: nothing
// appends while a call or a delivery runs.
func (l *Lib) free(n *ni, e *entry) {
	delete(n.entries, e.h)
	n.nEntry--
	l.dead.Put(e)
}

func (l *Lib) unlink(n *ni, p *pt, e *entry) {
	if e.linked {
		lst := p.lists[e.list]
		for i, x := range lst {
			if x == e {
				p.lists[e.list] = append(lst[:i], lst[i+1:]...)
				break
			}
		}
		e.linked = false
	}
}

// Unlink is PtlMEUnlink and PtlLEUnlink.
func (l *Lib) Unlink(h Handle) Ret {
	if l.inits == 0 {
		return NoInit
	}
	if h.kind() != hME && h.kind() != hLE {
		return ArgInvalid
	}
	n := l.niOf(h)
	if n == nil {
		return ArgInvalid
	}
	e := n.entries[h]
	if e == nil || !e.linked {
		return ArgInvalid
	}
	p := &n.pts[e.pt]
	l.unlink(n, p, e)
	if e.uhRefs == 0 {
		l.free(n, e)
	}
	return OK
}

// Search is PtlMESearch and PtlLESearch: the unexpected headers the description
// matches, as PTL_EVENT_SEARCH events (PTL_SEARCH_ONLY) or *_OVERFLOW events that
// remove them (PTL_SEARCH_DELETE); a persistent description yields an event for every
// matching header, a use-once one for the first; none found is one PTL_EVENT_SEARCH
// with PTL_NI_NO_MATCH.
func (l *Lib) Search(h Handle, idx uint32, d ME, op SearchOp, userPtr uint64, le bool) Ret {
	n, p, r := l.getPT(h, idx)
	if r != OK {
		return r
	}
	if le == n.matching() || op > SearchDelete {
		return ArgInvalid
	}
	if d.CT != CTNone && l.ctOf(n, d.CT) == nil {
		return ArgInvalid
	}
	probe := &entry{le: le, d: d, userPtr: userPtr}
	found := false
	for i := 0; i < len(p.unexp); {
		u := p.unexp[i]
		l.Work.Walked++
		if !l.matches(n, probe, &u.m) {
			i++
			continue
		}
		found = true
		if op == SearchOnly {
			ev := u.ev
			ev.Type, ev.UserPtr, ev.List = EvSearch, userPtr, Overflow
			l.post(n, p.eq, ev, d.Options&MESuccessDisable != 0)
			i++
		} else {
			p.unexp = append(p.unexp[:i], p.unexp[i+1:]...)
			n.unexp--
			ev := u.ev
			ev.Type, ev.UserPtr, ev.List = overflowKind(u.ev.Type), userPtr, Overflow
			l.post(n, p.eq, ev, d.Options&(MESuccessDisable|MEOverDisable) != 0)
			l.countEntry(n, probe, u.mlength, true)
			l.releaseHeader(n, p, u)
		}
		if d.Options&MEUseOnce != 0 { // a use-once description matches once; a persistent one, every header
			break
		}
	}
	if !found {
		l.post(n, p.eq, Event{Type: EvSearch, PTIndex: idx, UserPtr: userPtr, NIFail: NINoMatch, List: Overflow}, false)
	}
	return OK
}

// EQAlloc is PtlEQAlloc.
func (l *Lib) EQAlloc(h Handle, count int) (Handle, Ret) {
	n, r := l.getNI(h)
	if r != OK {
		return InvalidHandle, r
	}
	if count <= 0 {
		return InvalidHandle, ArgInvalid
	}
	if n.nEQ >= n.lim.MaxEQs {
		return InvalidHandle, NoSpace
	}
	e := &eq{h: l.handle(hEQ, n.idx), ring: make([]Event, count)}
	n.eqs[e.h] = e
	n.nEQ++
	return e.h, OK
}

func (l *Lib) eqByHandle(h Handle) (*ni, *eq) {
	if h.kind() != hEQ {
		return nil, nil
	}
	n := l.niOf(h)
	if n == nil {
		return nil, nil
	}
	return n, n.eqs[h]
}

// EQFree is PtlEQFree.
func (l *Lib) EQFree(h Handle) Ret {
	if l.inits == 0 {
		return NoInit
	}
	n, e := l.eqByHandle(h)
	if e == nil {
		return ArgInvalid
	}
	delete(n.eqs, h)
	n.nEQ--
	l.changed()
	return OK
}

// EQGet is PtlEQGet: the oldest event; PTL_EQ_DROPPED with it when events were lost
// to overflow since the last call.
func (l *Lib) EQGet(h Handle) (Event, Ret) {
	if l.inits == 0 {
		return Event{}, NoInit
	}
	_, e := l.eqByHandle(h)
	if e == nil {
		return Event{}, ArgInvalid
	}
	if e.head == e.tail {
		return Event{}, EQEmpty
	}
	ev := e.ring[e.head%uint64(len(e.ring))]
	e.head++
	if e.dropped {
		e.dropped = false
		return ev, EQDropped
	}
	return ev, OK
}

// EQReady reports whether h has an event (PtlEQPoll's test), and whether h is valid.
func (l *Lib) EQReady(h Handle) (bool, Ret) {
	if l.inits == 0 {
		return false, NoInit
	}
	_, e := l.eqByHandle(h)
	if e == nil {
		return false, ArgInvalid
	}
	return e.head != e.tail, OK
}

// room is the free space of an event queue.
func (e *eq) room() int { return len(e.ring) - int(e.tail-e.head) }

// EQConsumed tells the library that the consumer has taken every event of queue h
// up to sequence seq (RecordEvents mode): their slots are free again.
func (l *Lib) EQConsumed(h Handle, seq uint64) {
	if _, e := l.eqByHandle(h); e != nil && seq >= e.head && seq < e.tail {
		e.head = seq + 1
		e.dropped = false
	}
}

// EQRecord is an event written into a queue (Drop false), or the notice that the
// event of that sequence was overwritten before it was consumed (Drop true).
type EQRecord struct {
	EQ   Handle
	Seq  uint64
	Ev   Event
	Drop bool
}

// post writes an event; suppressed events are not written. A full queue overwrites
// its oldest event and remembers the loss.
func (l *Lib) post(n *ni, h Handle, ev Event, suppress bool) {
	if suppress || h == EQNone {
		return
	}
	e := l.eqOf(n, h)
	if e == nil {
		return
	}
	size := uint64(len(e.ring))
	if e.tail-e.head == size {
		if l.RecordEvents {
			l.Records = append(l.Records, EQRecord{EQ: h, Seq: e.head, Drop: true})
		}
		e.head++
		e.dropped = true
	}
	e.ring[e.tail%size] = ev
	if l.RecordEvents {
		l.Records = append(l.Records, EQRecord{EQ: h, Seq: e.tail, Ev: ev})
	}
	e.tail++
	l.Work.Events++
	l.changed()
}

// CTAlloc is PtlCTAlloc.
func (l *Lib) CTAlloc(h Handle) (Handle, Ret) {
	n, r := l.getNI(h)
	if r != OK {
		return InvalidHandle, r
	}
	if n.nCT >= n.lim.MaxCTs {
		return InvalidHandle, NoSpace
	}
	c := &ct{h: l.handle(hCT, n.idx)}
	n.cts[c.h] = c
	n.nCT++
	return c.h, OK
}

func (l *Lib) ctByHandle(h Handle) (*ni, *ct) {
	if h.kind() != hCT {
		return nil, nil
	}
	n := l.niOf(h)
	if n == nil {
		return nil, nil
	}
	return n, n.cts[h]
}

// CTFree is PtlCTFree: pending triggered operations on it are discarded.
func (l *Lib) CTFree(h Handle) Ret {
	if l.inits == 0 {
		return NoInit
	}
	n, c := l.ctByHandle(h)
	if c == nil {
		return ArgInvalid
	}
	n.nTrig -= len(c.trig)
	delete(n.cts, h)
	n.nCT--
	l.changed()
	return OK
}

// CTCancelTriggered is PtlCTCancelTriggered.
func (l *Lib) CTCancelTriggered(h Handle) Ret {
	if l.inits == 0 {
		return NoInit
	}
	n, c := l.ctByHandle(h)
	if c == nil {
		return ArgInvalid
	}
	n.nTrig -= len(c.trig)
	c.trig = nil
	return OK
}

// CTGet is PtlCTGet.
func (l *Lib) CTGet(h Handle) (CTEvent, Ret) {
	if l.inits == 0 {
		return CTEvent{}, NoInit
	}
	_, c := l.ctByHandle(h)
	if c == nil {
		return CTEvent{}, ArgInvalid
	}
	return c.v, OK
}

// CTSet is PtlCTSet.
func (l *Lib) CTSet(h Handle, v CTEvent) Ret {
	if l.inits == 0 {
		return NoInit
	}
	n, c := l.ctByHandle(h)
	if c == nil {
		return ArgInvalid
	}
	c.v = v
	l.ctChanged(n, c)
	return OK
}

// CTInc is PtlCTInc.
func (l *Lib) CTInc(h Handle, v CTEvent) Ret {
	if l.inits == 0 {
		return NoInit
	}
	n, c := l.ctByHandle(h)
	if c == nil {
		return ArgInvalid
	}
	if v.Success > 0 && v.Failure > 0 {
		return ArgInvalid
	}
	c.v.Success += v.Success
	c.v.Failure += v.Failure
	l.ctChanged(n, c)
	return OK
}

// count adds to a counter named by an object's options.
func (l *Lib) count(n *ni, h Handle, bytes bool, nbytes uint64, failed bool) {
	if h == CTNone {
		return
	}
	c := l.ctOf(n, h)
	if c == nil {
		return
	}
	l.Work.Counts++
	switch {
	case failed:
		c.v.Failure++
	case bytes:
		c.v.Success += nbytes
	default:
		c.v.Success++
	}
	l.ctChanged(n, c)
}

// countEntry counts a delivery on entry e: CT_COMM for a priority delivery,
// CT_OVERFLOW for one through the overflow list.
func (l *Lib) countEntry(n *ni, e *entry, mlength uint64, overflow bool) {
	want := uint32(MECTComm)
	if overflow {
		want = MECTOverflow
	}
	if e.d.Options&want == 0 {
		return
	}
	l.count(n, e.d.CT, e.d.Options&MECTBytes != 0, mlength, false)
}

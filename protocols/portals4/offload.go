package portals4

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/host"
	"github.com/seastar-sim/seastar/protocols/portals4/conform"
	"github.com/seastar-sim/seastar/protocols/portals4/ptl4"
)

// Rank is the host side of one process of a job: its memory, shared by its threads,
// and the job runtime (rank, size, barrier, helper threads).
type Rank struct {
	p       Params
	rank    int
	size    int
	pid     uint32
	space   *ptl4.Space
	helpers []*host.Proc
	gen     uint64
	sh      shadow // the objects the process's calls created (shadow.go)
	newAPI  func(p *host.Proc) API
	barrier func(addr uint64) actors.Msg // the runtime's barrier request; nil: the SeaStar firmware's
	// readHead: the library reads its mailbox's head pointer across HyperTransport
	// before each command (ppc.write_through off: no cached copy), as Portals 3.3's does.
	readHead bool
	// forgot is the last change notification forgotten from host memory: every one up
	// to it had landed (forgetBells).
	forgot uint64
}

// Lib is the user-level Portals 4 library of one thread under offload and matchunit:
// it implements conform.Env on the simulated host. Data movement and counter updates
// are checked against the process's shadow and posted into the firmware's mailbox;
// events are read from the rings the firmware writes in host memory; every other
// call is a mailbox command and a busy-wait for its result.
type Lib struct {
	env
	bell uint64 // notifications seen
}

var _ conform.Env = (*Lib)(nil)

// NewLib returns the library of thread p of process r.
func NewLib(r *Rank, p *host.Proc) *Lib {
	return &Lib{env: env{r: r, p: p}}
}

// forgetBells forgets, through thread p, the process's change notifications that have
// landed (forgetLanded).
func (r *Rank) forgetBells(p *host.Proc) { forgetLanded(p.CPU(), p, r.pid, &r.forgot) }

// forgetLanded forgets, through h, the change notifications of process pid that have
// landed in cpu's memory, oldest first after forgot, the last one forgotten. Each would
// otherwise stay there for the rest of the run (a thread that waits on an event queue's
// slot never reads them); a thread that waits for one later reads it as it would have
// found it there (waitBell).
func forgetLanded(cpu *host.CPU, h interface{ Forget(addr uint64) }, pid uint32, forgot *uint64) {
	for forgetBell(cpu, h, pid, *forgot+1) {
		*forgot++
	}
}

// waitBell waits, through thread p, for change notification k of process pid, or until
// deadline (negative: none); false at the deadline. One forgotten (k <= *forgot) had
// landed: p reads it as WaitFor reads an entry already there, once its clock has caught
// up with simulated time (during which more may be forgotten), after a cache miss.
func waitBell(p *host.Proc, pid uint32, k uint64, forgot *uint64, deadline actors.Time) bool {
	p.Sync()
	addr := bellAddr(pid, k)
	switch {
	case k <= *forgot:
		p.Compute(p.CPU().Params().CacheMiss)
		return true
	case deadline < 0:
		p.WaitFor(addr)
		return true
	}
	_, ok := p.WaitUntil(addr, deadline)
	return ok
}

var _ host.Superseded = (*Bell)(nil)

// forgetBell forgets notification k of process pid through h (host memory recycles
// it) if it has landed in cpu's memory; it reports whether it had.
func forgetBell(cpu *host.CPU, h interface{ Forget(addr uint64) }, pid uint32, k uint64) bool {
	addr := bellAddr(pid, k)
	if _, ok := cpu.Memory(addr); !ok {
		return false
	}
	h.Forget(addr)
	return true
}

// call runs fn on the process's Portals state in the firmware.
func (l *Lib) call(name string, fn func(*ptl4.Lib) any) any {
	v, _, _, _ := l.wait(Call{Name: name, Fn: fn})
	return v
}

// wait posts call c into the mailbox and busy-waits for its result: its value, or
// the handle or counter and the return code of a typed operation.
func (l *Lib) wait(c Call) (any, ptl4.Handle, ptl4.CTEvent, ptl4.Ret) {
	l.p.Compute(l.r.p.LibCall)
	l.seq++
	addr := resultAddr(l.p.ID, l.seq)
	c.PID, c.Result = l.r.pid, addr
	l.mailbox(calls.New(c))
	res := l.p.WaitFor(addr).(*Result)
	l.p.Forget(addr)
	l.bell = max(l.bell, res.Bell)
	l.r.forgetBells(l.p)
	v, h, ct, r := res.Value, res.H, res.CT, res.R
	results.Release(res)
	return v, h, ct, r
}

// waitChange waits until the firmware reports a change after the last one this
// thread saw, or until deadline (negative: none); false at the deadline.
func (l *Lib) waitChange(deadline actors.Time) bool {
	if !waitBell(l.p, l.r.pid, l.bell+1, &l.r.forgot, deadline) {
		return false
	}
	l.bell++
	l.r.forgetBells(l.p)
	return true
}

type ret struct{ r ptl4.Ret }
type handleRet struct {
	h ptl4.Handle
	r ptl4.Ret
}

func (l *Lib) r0(name string, fn func(*ptl4.Lib) ptl4.Ret) ptl4.Ret {
	return l.call(name, func(x *ptl4.Lib) any { return ret{fn(x)} }).(ret).r
}

func (l *Lib) h0(name string, fn func(*ptl4.Lib) (ptl4.Handle, ptl4.Ret)) (ptl4.Handle, ptl4.Ret) {
	v := l.call(name, func(x *ptl4.Lib) any { h, r := fn(x); return handleRet{h, r} }).(handleRet)
	return v.h, v.r
}

// Init is PtlInit.
func (l *Lib) Init() ptl4.Ret {
	r := l.r0("PtlInit", (*ptl4.Lib).Init)
	if r == ptl4.OK {
		l.r.sh.init()
	}
	return r
}

// Fini is PtlFini.
func (l *Lib) Fini() {
	l.call("PtlFini", func(x *ptl4.Lib) any { x.Fini(); return nil })
	l.r.sh.fini()
}

// NIInit is PtlNIInit.
func (l *Lib) NIInit(iface, opt, pid uint32, desired *ptl4.Limits) (ptl4.Handle, ptl4.Limits, ptl4.Ret) {
	type res struct {
		h   ptl4.Handle
		lim ptl4.Limits
		r   ptl4.Ret
	}
	var d *ptl4.Limits
	if desired != nil {
		c := *desired
		d = &c
	}
	v := l.call("PtlNIInit", func(x *ptl4.Lib) any { h, lim, r := x.NIInit(iface, opt, pid, d); return res{h, lim, r} }).(res)
	if v.r == ptl4.OK {
		l.r.sh.niInit(v.h, opt, v.lim)
	}
	return v.h, v.lim, v.r
}

// NIFini is PtlNIFini.
func (l *Lib) NIFini(ni ptl4.Handle) ptl4.Ret {
	r := l.r0("PtlNIFini", func(x *ptl4.Lib) ptl4.Ret { return x.NIFini(ni) })
	if r == ptl4.OK {
		l.r.sh.niFini(ni)
	}
	return r
}

// NIStatus is PtlNIStatus.
func (l *Lib) NIStatus(ni ptl4.Handle, reg int) (uint64, ptl4.Ret) {
	type res struct {
		v uint64
		r ptl4.Ret
	}
	v := l.call("PtlNIStatus", func(x *ptl4.Lib) any { s, r := x.NIStatus(ni, reg); return res{s, r} }).(res)
	return v.v, v.r
}

// NIHandle is PtlNIHandle.
func (l *Lib) NIHandle(h ptl4.Handle) (ptl4.Handle, ptl4.Ret) {
	return l.h0("PtlNIHandle", func(x *ptl4.Lib) (ptl4.Handle, ptl4.Ret) { return x.NIHandle(h) })
}

// SetMap is PtlSetMap.
func (l *Lib) SetMap(ni ptl4.Handle, m []ptl4.ProcessID) ptl4.Ret {
	m = append([]ptl4.ProcessID(nil), m...)
	r := l.r0("PtlSetMap", func(x *ptl4.Lib) ptl4.Ret { return x.SetMap(ni, m) })
	if r == ptl4.OK {
		l.r.sh.setMap(ni, len(m))
	}
	return r
}

// GetMap is PtlGetMap.
func (l *Lib) GetMap(ni ptl4.Handle, size int) ([]ptl4.ProcessID, int, ptl4.Ret) {
	type res struct {
		m []ptl4.ProcessID
		n int
		r ptl4.Ret
	}
	v := l.call("PtlGetMap", func(x *ptl4.Lib) any { m, n, r := x.GetMap(ni, size); return res{m, n, r} }).(res)
	return v.m, v.n, v.r
}

// GetUID is PtlGetUid.
func (l *Lib) GetUID(ni ptl4.Handle) (uint32, ptl4.Ret) {
	type res struct {
		u uint32
		r ptl4.Ret
	}
	v := l.call("PtlGetUid", func(x *ptl4.Lib) any { u, r := x.GetUID(ni); return res{u, r} }).(res)
	return v.u, v.r
}

// GetID is PtlGetId.
func (l *Lib) GetID(ni ptl4.Handle) (ptl4.ProcessID, ptl4.Ret) {
	type res struct {
		id ptl4.ProcessID
		r  ptl4.Ret
	}
	v := l.call("PtlGetId", func(x *ptl4.Lib) any { id, r := x.GetID(ni); return res{id, r} }).(res)
	return v.id, v.r
}

// PTAlloc is PtlPTAlloc.
func (l *Lib) PTAlloc(ni ptl4.Handle, opt uint32, eq ptl4.Handle, idx uint32) (uint32, ptl4.Ret) {
	h, r := l.h0("PtlPTAlloc", func(x *ptl4.Lib) (ptl4.Handle, ptl4.Ret) {
		i, r := x.PTAlloc(ni, opt, eq, idx)
		return ptl4.Handle(i), r
	})
	return uint32(h), r
}

// PTFree is PtlPTFree.
func (l *Lib) PTFree(ni ptl4.Handle, idx uint32) ptl4.Ret {
	return l.r0("PtlPTFree", func(x *ptl4.Lib) ptl4.Ret { return x.PTFree(ni, idx) })
}

// PTDisable is PtlPTDisable.
func (l *Lib) PTDisable(ni ptl4.Handle, idx uint32) ptl4.Ret {
	return l.r0("PtlPTDisable", func(x *ptl4.Lib) ptl4.Ret { return x.PTDisable(ni, idx) })
}

// PTEnable is PtlPTEnable.
func (l *Lib) PTEnable(ni ptl4.Handle, idx uint32) ptl4.Ret {
	_, _, _, r := l.wait(Call{Op: CallPTEnable, H: ni, PT: idx})
	return r
}

// MDBind is PtlMDBind.
func (l *Lib) MDBind(ni ptl4.Handle, md ptl4.MD) (ptl4.Handle, ptl4.Ret) {
	type res struct {
		h    ptl4.Handle
		info ptl4.MDInfo
		r    ptl4.Ret
	}
	v := l.call("PtlMDBind", func(x *ptl4.Lib) any {
		h, r := x.MDBind(ni, md)
		info, _ := x.MD(h)
		return res{h, info, r}
	}).(res)
	if v.r == ptl4.OK {
		l.r.sh.mds[v.h], l.r.sh.desc[v.h] = v.info, md
	}
	return v.h, v.r
}

// MDRelease is PtlMDRelease.
func (l *Lib) MDRelease(md ptl4.Handle) ptl4.Ret {
	r := l.r0("PtlMDRelease", func(x *ptl4.Lib) ptl4.Ret { return x.MDRelease(md) })
	if r == ptl4.OK {
		delete(l.r.sh.mds, md)
		delete(l.r.sh.desc, md)
	}
	return r
}

// Append is PtlMEAppend and PtlLEAppend.
func (l *Lib) Append(ni ptl4.Handle, idx uint32, me ptl4.ME, list ptl4.List, userPtr uint64, le bool) (ptl4.Handle, ptl4.Ret) {
	_, h, _, r := l.wait(Call{Op: CallAppend, H: ni, PT: idx, ME: me, List: list, UserPtr: userPtr, LE: le})
	return h, r
}

// Unlink is PtlMEUnlink and PtlLEUnlink.
func (l *Lib) Unlink(h ptl4.Handle) ptl4.Ret {
	return l.r0("PtlMEUnlink", func(x *ptl4.Lib) ptl4.Ret { return x.Unlink(h) })
}

// Search is PtlMESearch and PtlLESearch.
func (l *Lib) Search(ni ptl4.Handle, idx uint32, me ptl4.ME, op ptl4.SearchOp, userPtr uint64, le bool) ptl4.Ret {
	return l.r0("PtlMESearch", func(x *ptl4.Lib) ptl4.Ret { return x.Search(ni, idx, me, op, userPtr, le) })
}

// EQAlloc is PtlEQAlloc: the queue is a ring in the process's memory that the
// firmware writes events into.
func (l *Lib) EQAlloc(ni ptl4.Handle, count int) (ptl4.Handle, ptl4.Ret) {
	h, r := l.h0("PtlEQAlloc", func(x *ptl4.Lib) (ptl4.Handle, ptl4.Ret) { return x.EQAlloc(ni, count) })
	if r == ptl4.OK {
		l.r.sh.eqs[h] = &eqState{}
	}
	return h, r
}

// EQFree is PtlEQFree.
func (l *Lib) EQFree(eq ptl4.Handle) ptl4.Ret {
	r := l.r0("PtlEQFree", func(x *ptl4.Lib) ptl4.Ret { return x.EQFree(eq) })
	if r == ptl4.OK {
		delete(l.r.sh.eqs, eq)
	}
	return r
}

// EQGet is PtlEQGet: the next event of the ring in host memory, read there (a cache
// miss when one has landed); the library then tells the firmware, with a posted
// write, that the slot is free again.
func (l *Lib) EQGet(eq ptl4.Handle) (ptl4.Event, ptl4.Ret) {
	l.p.Compute(l.r.p.LibCall)
	return l.eqTake(eq)
}

func (l *Lib) eqState(eq ptl4.Handle) (*eqState, ptl4.Ret) {
	if !l.r.sh.Inited() {
		return nil, ptl4.NoInit
	}
	st := l.r.sh.eqs[eq]
	if st == nil {
		return nil, ptl4.ArgInvalid
	}
	return st, ptl4.OK
}

// eqTake reads the next event of eq from host memory, skipping the records of
// events lost to overflow (PTL_EQ_DROPPED with the next one).
func (l *Lib) eqTake(eq ptl4.Handle) (ptl4.Event, ptl4.Ret) {
	st, r := l.eqState(eq)
	if r != ptl4.OK {
		return ptl4.Event{}, r
	}
	for {
		addr := eqAddr(l.r.pid, eq, st.next)
		m, ok := l.p.Peek(addr)
		if !ok {
			return ptl4.Event{}, ptl4.EQEmpty
		}
		rec := m.(*EventRecord)
		drop, seq, ev := rec.Drop, rec.Seq, rec.Ev
		l.p.Forget(addr) // host memory lets go of the record, which recycles it (Superseded)
		l.r.forgetBells(l.p)
		st.next++
		if drop {
			st.dropped = true
			continue
		}
		l.post(Call{Op: PostEQConsumed, H: eq, Seq: seq})
		if st.dropped {
			st.dropped = false
			return ev, ptl4.EQDropped
		}
		return ev, ptl4.OK
	}
}

// EQWait is PtlEQWait.
func (l *Lib) EQWait(eq ptl4.Handle) (ptl4.Event, ptl4.Ret) {
	v, _, r := l.EQPoll([]ptl4.Handle{eq}, -1)
	return v, r
}

// EQPoll is PtlEQPoll: it polls the rings in host memory; with one queue it waits on
// the queue's next slot, with several on the process's change notifications.
func (l *Lib) EQPoll(eqs []ptl4.Handle, timeoutMS int64) (ptl4.Event, int, ptl4.Ret) {
	l.p.Compute(l.r.p.LibCall)
	deadline := actors.Time(-1)
	if timeoutMS >= 0 {
		deadline = l.p.Now().Add(actors.Duration(timeoutMS) * actors.Millisecond)
	}
	for {
		for i, eq := range eqs {
			ev, r := l.eqTake(eq)
			if r != ptl4.EQEmpty {
				return ev, i, r
			}
		}
		if timeoutMS == 0 {
			return ptl4.Event{}, 0, ptl4.EQEmpty
		}
		if len(eqs) == 1 {
			st, _ := l.eqState(eqs[0])
			addr := eqAddr(l.r.pid, eqs[0], st.next)
			if deadline < 0 {
				l.p.WaitFor(addr)
			} else if _, ok := l.p.WaitUntil(addr, deadline); !ok {
				return ptl4.Event{}, 0, ptl4.EQEmpty
			}
			continue
		}
		if !l.waitChange(deadline) {
			return ptl4.Event{}, 0, ptl4.EQEmpty
		}
	}
}

// CTAlloc is PtlCTAlloc.
func (l *Lib) CTAlloc(ni ptl4.Handle) (ptl4.Handle, ptl4.Ret) {
	h, r := l.h0("PtlCTAlloc", func(x *ptl4.Lib) (ptl4.Handle, ptl4.Ret) { return x.CTAlloc(ni) })
	if r == ptl4.OK {
		l.r.sh.cts[h] = true
	}
	return h, r
}

// CTFree is PtlCTFree.
func (l *Lib) CTFree(ct ptl4.Handle) ptl4.Ret {
	r := l.r0("PtlCTFree", func(x *ptl4.Lib) ptl4.Ret { return x.CTFree(ct) })
	if r == ptl4.OK {
		delete(l.r.sh.cts, ct)
	}
	return r
}

type ctRes struct {
	v     ptl4.CTEvent
	which int
	r     ptl4.Ret
	done  bool
}

// CTGet is PtlCTGet.
func (l *Lib) CTGet(ct ptl4.Handle) (ptl4.CTEvent, ptl4.Ret) {
	_, _, v, r := l.wait(Call{Op: CallCTGet, Name: "PtlCTGet", H: ct})
	return v, r
}

// ctTest reads the counters cts in the firmware and says which first reached its
// test (or failed). One counter is a typed call; several, a call of a function.
func (l *Lib) ctTest(name string, cts []ptl4.Handle, tests []uint64) ctRes {
	if len(cts) == 1 && len(tests) == 1 {
		return l.ctTest1(name, cts[0], tests[0])
	}
	return l.call(name, func(x *ptl4.Lib) any {
		var first ptl4.CTEvent
		for i, h := range cts {
			v, r := x.CTGet(h)
			if r != ptl4.OK {
				return ctRes{which: i, r: r}
			}
			if i == 0 {
				first = v
			}
			if v.Success >= tests[i] || v.Failure > 0 {
				return ctRes{v, i, ptl4.OK, true}
			}
		}
		return ctRes{v: first}
	}).(ctRes)
}

// ctTest1 is ctTest of one counter.
func (l *Lib) ctTest1(name string, ct ptl4.Handle, test uint64) ctRes {
	_, _, v, r := l.wait(Call{Op: CallCTGet, Name: name, H: ct})
	switch {
	case r != ptl4.OK:
		return ctRes{r: r}
	case v.Success >= test || v.Failure > 0:
		return ctRes{v, 0, ptl4.OK, true}
	}
	return ctRes{v: v}
}

// CTWait is PtlCTWait.
func (l *Lib) CTWait(ct ptl4.Handle, test uint64) (ptl4.CTEvent, ptl4.Ret) {
	v, _, r := l.ctPoll(nil, nil, ct, test, -1)
	return v, r
}

// CTPoll is PtlCTPoll. A counter freed while the call waits ends it with PTL_OK.
func (l *Lib) CTPoll(cts []ptl4.Handle, tests []uint64, timeoutMS int64) (ptl4.CTEvent, int, ptl4.Ret) {
	if len(cts) == 1 && len(tests) == 1 {
		return l.ctPoll(nil, nil, cts[0], tests[0], timeoutMS)
	}
	return l.ctPoll(cts, tests, 0, 0, timeoutMS)
}

// ctPoll is CTPoll of cts, or of the one counter ct when cts is nil (without a slice
// for it: PtlCTWait allocates nothing).
func (l *Lib) ctPoll(cts []ptl4.Handle, tests []uint64, ct ptl4.Handle, test uint64, timeoutMS int64) (ptl4.CTEvent, int, ptl4.Ret) {
	deadline := actors.Time(-1)
	if timeoutMS >= 0 {
		deadline = l.p.Now().Add(actors.Duration(timeoutMS) * actors.Millisecond)
	}
	var last ptl4.CTEvent
	for waited := false; ; waited = true {
		var v ctRes
		if cts == nil {
			v = l.ctTest1("PtlCTPoll", ct, test)
		} else {
			v = l.ctTest("PtlCTPoll", cts, tests)
		}
		switch {
		case v.r != ptl4.OK && waited:
			return last, 0, ptl4.OK
		case v.r != ptl4.OK || v.done:
			return v.v, v.which, v.r
		}
		last = v.v
		if timeoutMS == 0 || !l.waitChange(deadline) {
			return v.v, 0, ptl4.CTNoneReached
		}
	}
}

// CTSet is PtlCTSet, posted (see post).
func (l *Lib) CTSet(ct ptl4.Handle, v ptl4.CTEvent) ptl4.Ret {
	l.p.Compute(l.r.p.LibCall)
	if r := l.r.sh.ctOK(ct); r != ptl4.OK {
		return r
	}
	l.post(Call{Op: PostCTSet, H: ct, CT: v})
	return ptl4.OK
}

// CTInc is PtlCTInc, posted (see post).
func (l *Lib) CTInc(ct ptl4.Handle, v ptl4.CTEvent) ptl4.Ret {
	l.p.Compute(l.r.p.LibCall)
	if r := l.r.sh.ctOK(ct); r != ptl4.OK {
		return r
	}
	if v.Success > 0 && v.Failure > 0 {
		return ptl4.ArgInvalid
	}
	l.post(Call{Op: PostCTInc, H: ct, CT: v})
	return ptl4.OK
}

// post writes posted operation c, whose result the library knows already (it checked
// the call against its shadow), into the mailbox and returns: no wait for the
// firmware. The mailbox is a FIFO, so later calls still see its effect.
func (l *Lib) post(c Call) {
	c.PID = l.r.pid
	l.mailbox(calls.New(c))
}

// CTCancelTriggered is PtlCTCancelTriggered.
func (l *Lib) CTCancelTriggered(ct ptl4.Handle) ptl4.Ret {
	return l.r0("PtlCTCancelTriggered", func(x *ptl4.Lib) ptl4.Ret { return x.CTCancelTriggered(ct) })
}

func copyArgs(a ptl4.Args) ptl4.Args {
	a.Operand = append([]byte(nil), a.Operand...)
	return a
}

// Start is PtlPut, PtlGet, PtlAtomic, PtlFetchAtomic and PtlSwap, posted: the
// library checks the call against its shadow of the MDs and interfaces and returns;
// the firmware builds and sends the request. A volatile MD's bytes are copied into
// the command at the call.
func (l *Lib) Start(a ptl4.Args) ptl4.Ret {
	l.p.Compute(l.r.p.LibCall)
	if r := ptl4.Validate(&l.r.sh, a); r != ptl4.OK {
		return r
	}
	a = copyArgs(a)
	if md, _ := l.r.sh.MD(a.PutMD); a.Kind != ptl4.MsgGet && a.Kind != ptl4.MsgPut && a.Kind != ptl4.MsgAtomic && md.Options&ptl4.MDVolatile != 0 {
		a.Data = l.snapshot(a.PutMD, a.PutOffset, a.Length)
	} else if md, _ := l.r.sh.MD(a.MD); (a.Kind == ptl4.MsgPut || a.Kind == ptl4.MsgAtomic) && md.Options&ptl4.MDVolatile != 0 {
		a.Data = l.snapshot(a.MD, a.LocalOffset, a.Length)
	}
	l.post(Call{Op: PostStart, Args: a})
	return ptl4.OK
}

// snapshot copies n bytes of a volatile MD at offset off (the library's memcpy into
// the command); nil if the MD's memory is not readable here (the firmware reads it).
func (l *Lib) snapshot(md ptl4.Handle, off, n uint64) []byte {
	b := l.r.mdBytes(md, off, n)
	if b != nil {
		l.p.Memcpy(actors.Bytes(n))
	}
	return b
}

// Triggered is PtlTriggeredPut and friends.
func (l *Lib) Triggered(a ptl4.Args, ct ptl4.Handle, threshold uint64) ptl4.Ret {
	_, _, _, r := l.wait(Call{Op: CallTriggered, Args: copyArgs(a), Trig: ct, Threshold: threshold})
	return r
}

// TriggeredCT is PtlTriggeredCTInc and PtlTriggeredCTSet.
func (l *Lib) TriggeredCT(target ptl4.Handle, v ptl4.CTEvent, set bool, ct ptl4.Handle, threshold uint64) ptl4.Ret {
	_, _, _, r := l.wait(Call{Op: CallTriggeredCT, H: target, CT: v, Set: set, Trig: ct, Threshold: threshold})
	return r
}

// StartBundle is PtlStartBundle.
func (l *Lib) StartBundle(ni ptl4.Handle) ptl4.Ret {
	return l.r0("PtlStartBundle", func(x *ptl4.Lib) ptl4.Ret { return x.StartBundle(ni) })
}

// EndBundle is PtlEndBundle.
func (l *Lib) EndBundle(ni ptl4.Handle) ptl4.Ret {
	return l.r0("PtlEndBundle", func(x *ptl4.Lib) ptl4.Ret { return x.EndBundle(ni) })
}

// AtomicSync is PtlAtomicSync.
func (l *Lib) AtomicSync() ptl4.Ret {
	return l.r0("PtlAtomicSync", func(x *ptl4.Lib) ptl4.Ret { return x.AtomicSync() })
}

func (r *Rank) String() string { return fmt.Sprintf("rank%d", r.rank) }

// TriggeredAppend is PtlTriggeredMEAppend (le false) and its LE form.
func (l *Lib) TriggeredAppend(ni ptl4.Handle, idx uint32, me ptl4.ME, list ptl4.List, userPtr uint64, le bool, ct ptl4.Handle, threshold uint64) ptl4.Ret {
	return l.r0("PtlTriggeredMEAppend", func(x *ptl4.Lib) ptl4.Ret {
		return x.TriggeredAppend(ni, idx, me, list, userPtr, le, ct, threshold)
	})
}

// TriggeredUnlink is PtlTriggeredMEUnlink.
func (l *Lib) TriggeredUnlink(h, ct ptl4.Handle, threshold uint64) ptl4.Ret {
	return l.r0("PtlTriggeredMEUnlink", func(x *ptl4.Lib) ptl4.Ret { return x.TriggeredUnlink(h, ct, threshold) })
}

// Abort is PtlAbort: the process's operations in flight fail (PTL_NI_UNDELIVERABLE).
func (l *Lib) Abort() ptl4.Ret {
	return l.r0("PtlAbort", func(x *ptl4.Lib) ptl4.Ret { return x.Abort() })
}

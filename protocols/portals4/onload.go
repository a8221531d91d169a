package portals4

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/host"
	"github.com/seastar-sim/seastar/ht"
	"github.com/seastar-sim/seastar/ppc"
	"github.com/seastar-sim/seastar/protocols/portals4/conform"
	"github.com/seastar-sim/seastar/protocols/portals4/ptl4"
)

// Onload (portals4.nic = onload): the NIC moves bytes only. The firmware sends the
// messages the host library builds and, for every message that arrives and every
// send that completes, writes a record into a ring in host memory and interrupts the
// host; the library's interrupt handler runs the Portals semantics on the host core
// (matching, lists, unexpected headers, events, counters, triggered operations),
// copies payloads out of the NIC's landing buffers, and hands the responses back to
// the NIC. Library calls run on the calling core. List walks cost what the host's
// cache makes them cost: a hit, or a miss when the lists outgrow the cache.

// onloadVector is the interrupt the onload firmware raises.
const onloadVector = 2

// SendCmd is a message the host library built, posted into the firmware's mailbox.
// The firmware releases it after its handler.
type SendCmd struct {
	PID uint32
	Msg *ptl4.Msg
	actors.PoolMark
}

func (c *SendCmd) String() string { return fmt.Sprintf("portals4.SendCmd(%s)", c.Msg) }

// RxRecord is what the onload firmware writes into the host ring: a message that
// arrived (its payload in a landing buffer), or a send that completed (Sent).
// The host releases it once it has run it.
type RxRecord struct {
	Addr uint64
	Msg  *ptl4.Msg
	Sent bool
	actors.PoolMark
}

// sendCmds and rxRecords recycle the onload firmware's commands and ring records.
var (
	sendCmds  actors.Pool[SendCmd, *SendCmd]
	rxRecords actors.Pool[RxRecord, *RxRecord]
)

func (r *RxRecord) String() string {
	if r.Sent {
		return fmt.Sprintf("portals4.RxRecord(sent %s)", r.Msg)
	}
	return fmt.Sprintf("portals4.RxRecord(%s)", r.Msg)
}

// Address implements host.Addressed.
func (r *RxRecord) Address() uint64 { return r.Addr }

// ringAddr is the host address of record seq of process pid's ring.
func ringAddr(pid uint32, seq uint64) uint64 {
	return 0x9000<<32 | uint64(pid&0xff)<<32 | seq&0xffffffff
}

// record writes a record for pid into its host ring and interrupts the host.
func (f *Firmware) record(x *ppc.Exec, pid uint32, m *ptl4.Msg, sent bool) {
	pr := f.procs[pid]
	if pr == nil {
		f.Stats.Dropped++
		return
	}
	pr.ring++
	x.HostWrite(f.p.ResultBytes, rxRecords.New(RxRecord{Addr: ringAddr(pid, pr.ring), Msg: m, Sent: sent}))
	if f.p.OnloadProgress == "interrupt" {
		x.Interrupt(onloadVector)
	}
}

// onloadProc is the host-resident Portals state of one process.
type onloadProc struct {
	lib  *ptl4.Lib
	pid  uint32
	next uint64 // next ring record to read
	bell uint64 // change notifications stored for waiting threads
	seen uint64 // lib.Changes at the last notification
	// cpu is the host whose memory holds the notifications, and forgot the last
	// notification forgotten (forgetLanded); a nil cpu keeps them all.
	cpu    *host.CPU
	forgot uint64
	// tx hands a message to the NIC; nil is the SeaStar onload firmware's mailbox.
	tx func(h hostSide, m *ptl4.Msg)
}

// OnloadLib is the library of one thread under onload.
type OnloadLib struct {
	env
	o    *onloadProc
	bell uint64 // notifications this thread has seen
}

// newLib returns the library of thread p of process r.
func (o *onloadProc) newLib(r *Rank, p *host.Proc) *OnloadLib {
	return &OnloadLib{env: env{r: r, p: p}, o: o}
}

var _ API = (*OnloadLib)(nil)

// host costs of the Portals semantics on a host core, from the library's work.
func (o *onloadProc) cost(p Params, w0 ptl4.Work) actors.Duration {
	w := o.lib.Work
	walked := w.Walked - w0.Walked
	entry := p.OnloadEntryHit
	if ws := actors.Bytes(o.lib.Footprint()) * p.OnloadEntryBytes; ws > p.OnloadCache && ws > 0 {
		miss := float64(ws-p.OnloadCache) / float64(ws)
		entry += actors.Duration(miss * float64(p.OnloadEntryMiss-p.OnloadEntryHit))
	}
	return actors.Duration(walked)*entry + actors.Duration(w.Events-w0.Events)*p.OnloadEvent +
		actors.Duration(w.Counts-w0.Counts)*p.OnloadCount + actors.Duration(w.Triggered-w0.Triggered)*p.OnloadCount +
		actors.Duration(w.Elements-w0.Elements)*p.OnloadAtom
}

// hostSide is where onload work runs: a process's core or the interrupt handler.
type hostSide interface {
	Compute(d actors.Duration)
	MMIOWrite(to ht.Unit, bytes actors.Bytes, payload actors.Msg)
	Store(addr uint64, m actors.Msg)
	Forget(addr uint64)
	Memcpy(n actors.Bytes)        // data the host wrote
	MemcpyFromNIC(n actors.Bytes) // data the NIC wrote by DMA (not in the cache)
}

// kernelSide adapts the interrupt handler.
type kernelSide struct{ k *host.Kernel }

func (s kernelSide) Compute(d actors.Duration)                          { s.k.Charge(d) }
func (s kernelSide) MMIOWrite(to ht.Unit, b actors.Bytes, m actors.Msg) { s.k.MMIOWrite(to, b, m) }
func (s kernelSide) Store(addr uint64, m actors.Msg)                    { s.k.Store(addr, m) }
func (s kernelSide) Forget(addr uint64)                                 { s.k.Forget(addr) }
func (s kernelSide) Memcpy(n actors.Bytes)                              { s.k.Memcpy(n) }
func (s kernelSide) MemcpyFromNIC(n actors.Bytes)                       { s.k.MemcpyFromNIC(n) }

// finish charges the work since w0, hands the messages built to the NIC and wakes
// waiting threads if queues or counters moved.
func (o *onloadProc) finish(h hostSide, p Params, w0 ptl4.Work) {
	h.Compute(o.cost(p, w0))
	out := o.lib.Outbox
	o.lib.Outbox = nil
	for _, m := range out {
		// Its holders: the host libraries that handle its completions (a request's
		// send completion here and its delivery at the target; a response's arrival
		// here), each dropping it after (run, ibProc).
		if m.Op.Response() {
			m.SetHolders(1)
		} else {
			m.SetHolders(2)
		}
		if o.tx != nil {
			o.tx(h, m)
			continue
		}
		if !m.Op.Response() || m.Data != nil {
			h.Memcpy(actors.Bytes(len(m.Data))) // the payload into a NIC send buffer
		}
		h.MMIOWrite(ht.PPC, p.CmdBytes, sendCmds.New(SendCmd{PID: o.pid, Msg: m}))
	}
	o.lib.KeepOutbox(out)
	if o.lib.Changes != o.seen {
		if o.cpu != nil {
			forgetLanded(o.cpu, h, o.pid, &o.forgot)
		}
		o.seen = o.lib.Changes
		o.bell++
		h.Store(bellAddr(o.pid, o.bell), bells.New(Bell{Addr: bellAddr(o.pid, o.bell)}))
	}
}

// onloadIRQ is the onload interrupt handler of a node (onload_progress = interrupt):
// it runs every record that has landed in the rings of the node's processes.
func onloadIRQ(p Params, procs []*onloadProc) host.IRQHandler {
	return func(k *host.Kernel, vector int) bool {
		if vector != onloadVector {
			k.Fatalf("portals4: onload handler got interrupt %d", vector)
			return false
		}
		for _, o := range procs { // one record per call: the host calls again while there are some
			addr := ringAddr(o.pid, o.next+1)
			if m, ok := k.Memory(addr); ok {
				k.Forget(addr)
				o.run(kernelSide{k}, p, m.(*RxRecord))
				return true
			}
		}
		return false
	}
}

// onloadProgress is the program of a progress thread (onload_progress = thread): it
// waits on the process's ring and runs each record as it lands.
func onloadProgress(p Params, o *onloadProc) host.Program {
	return func(hp *host.Proc) {
		for {
			addr := ringAddr(o.pid, o.next+1)
			m := hp.WaitFor(addr)
			hp.Forget(addr)
			o.run(hp, p, m.(*RxRecord))
		}
	}
}

// run handles one ring record on h: a send that completed, a response, or a request
// to match and answer.
func (o *onloadProc) run(h hostSide, p Params, rec *RxRecord) {
	o.next++
	h.Compute(p.OnloadRecord)
	w0 := o.lib.Work
	switch {
	case rec.Sent:
		o.lib.Sent(rec.Msg)
	case rec.Msg.Op.Response():
		o.lib.Complete(rec.Msg)
		h.MemcpyFromNIC(actors.Bytes(len(rec.Msg.Data))) // reply data out of the landing buffer
	default:
		h.Compute(p.OnloadMatch)
		if r := o.lib.Deliver(rec.Msg); r != nil {
			o.lib.Outbox = append(o.lib.Outbox, r)
		}
		h.MemcpyFromNIC(actors.Bytes(len(rec.Msg.Data))) // payload out of the landing buffer
	}
	o.finish(h, p, w0)
	ptl4.DropMsg(rec.Msg)
	rxRecords.Release(rec)
}

// do runs one library call on the calling core.
func (l *OnloadLib) do(fn func(x *ptl4.Lib)) {
	l.p.Compute(l.r.p.LibCall)
	w0 := l.o.lib.Work
	fn(l.o.lib)
	l.o.finish(l.p, l.r.p, w0)
}

// Init is PtlInit.
func (l *OnloadLib) Init() (r ptl4.Ret) { l.do(func(x *ptl4.Lib) { r = x.Init() }); return }

// Fini is PtlFini.
func (l *OnloadLib) Fini() { l.do(func(x *ptl4.Lib) { x.Fini() }) }

// NIInit is PtlNIInit.
func (l *OnloadLib) NIInit(iface, opt, pid uint32, desired *ptl4.Limits) (h ptl4.Handle, lim ptl4.Limits, r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { h, lim, r = x.NIInit(iface, opt, pid, desired) })
	return
}

// NIFini is PtlNIFini.
func (l *OnloadLib) NIFini(ni ptl4.Handle) (r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { r = x.NIFini(ni) })
	return
}

// NIStatus is PtlNIStatus.
func (l *OnloadLib) NIStatus(ni ptl4.Handle, reg int) (v uint64, r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { v, r = x.NIStatus(ni, reg) })
	return
}

// NIHandle is PtlNIHandle.
func (l *OnloadLib) NIHandle(h ptl4.Handle) (ni ptl4.Handle, r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { ni, r = x.NIHandle(h) })
	return
}

// SetMap is PtlSetMap.
func (l *OnloadLib) SetMap(ni ptl4.Handle, m []ptl4.ProcessID) (r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { r = x.SetMap(ni, m) })
	return
}

// GetMap is PtlGetMap.
func (l *OnloadLib) GetMap(ni ptl4.Handle, size int) (m []ptl4.ProcessID, n int, r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { m, n, r = x.GetMap(ni, size) })
	return
}

// GetUID is PtlGetUid.
func (l *OnloadLib) GetUID(ni ptl4.Handle) (u uint32, r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { u, r = x.GetUID(ni) })
	return
}

// GetID is PtlGetId.
func (l *OnloadLib) GetID(ni ptl4.Handle) (id ptl4.ProcessID, r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { id, r = x.GetID(ni) })
	return
}

// PTAlloc is PtlPTAlloc.
func (l *OnloadLib) PTAlloc(ni ptl4.Handle, opt uint32, eq ptl4.Handle, idx uint32) (pt uint32, r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { pt, r = x.PTAlloc(ni, opt, eq, idx) })
	return
}

// PTFree is PtlPTFree.
func (l *OnloadLib) PTFree(ni ptl4.Handle, idx uint32) (r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { r = x.PTFree(ni, idx) })
	return
}

// PTDisable is PtlPTDisable.
func (l *OnloadLib) PTDisable(ni ptl4.Handle, idx uint32) (r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { r = x.PTDisable(ni, idx) })
	return
}

// PTEnable is PtlPTEnable.
func (l *OnloadLib) PTEnable(ni ptl4.Handle, idx uint32) (r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { r = x.PTEnable(ni, idx) })
	return
}

// MDBind is PtlMDBind.
func (l *OnloadLib) MDBind(ni ptl4.Handle, md ptl4.MD) (h ptl4.Handle, r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { h, r = x.MDBind(ni, md) })
	return
}

// MDRelease is PtlMDRelease.
func (l *OnloadLib) MDRelease(md ptl4.Handle) (r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { r = x.MDRelease(md) })
	return
}

// Append is PtlMEAppend and PtlLEAppend.
func (l *OnloadLib) Append(ni ptl4.Handle, idx uint32, me ptl4.ME, list ptl4.List, userPtr uint64, le bool) (h ptl4.Handle, r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { h, r = x.Append(ni, idx, me, list, userPtr, le) })
	return
}

// Unlink is PtlMEUnlink and PtlLEUnlink.
func (l *OnloadLib) Unlink(h ptl4.Handle) (r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { r = x.Unlink(h) })
	return
}

// Search is PtlMESearch and PtlLESearch.
func (l *OnloadLib) Search(ni ptl4.Handle, idx uint32, me ptl4.ME, op ptl4.SearchOp, userPtr uint64, le bool) (r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { r = x.Search(ni, idx, me, op, userPtr, le) })
	return
}

// EQAlloc is PtlEQAlloc.
func (l *OnloadLib) EQAlloc(ni ptl4.Handle, count int) (h ptl4.Handle, r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { h, r = x.EQAlloc(ni, count) })
	return
}

// EQFree is PtlEQFree.
func (l *OnloadLib) EQFree(eq ptl4.Handle) (r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { r = x.EQFree(eq) })
	return
}

// EQGet is PtlEQGet.
func (l *OnloadLib) EQGet(eq ptl4.Handle) (ev ptl4.Event, r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { ev, r = x.EQGet(eq) })
	return
}

// EQWait is PtlEQWait.
func (l *OnloadLib) EQWait(eq ptl4.Handle) (ptl4.Event, ptl4.Ret) {
	ev, _, r := l.EQPoll([]ptl4.Handle{eq}, -1)
	return ev, r
}

// wait waits for the next change notification of the process, or deadline
// (negative: none); false at the deadline.
func (l *OnloadLib) wait(deadline actors.Time) bool {
	l.bell = max(l.bell, l.o.bell)
	if !waitBell(l.p, l.o.pid, l.bell+1, &l.o.forgot, deadline) {
		return false
	}
	l.bell++
	return true
}

func deadlineOf(p *host.Proc, timeoutMS int64) actors.Time {
	if timeoutMS < 0 {
		return -1
	}
	return p.Now().Add(actors.Duration(timeoutMS) * actors.Millisecond)
}

// EQPoll is PtlEQPoll.
func (l *OnloadLib) EQPoll(eqs []ptl4.Handle, timeoutMS int64) (ptl4.Event, int, ptl4.Ret) {
	deadline := deadlineOf(l.p, timeoutMS)
	for {
		var ev ptl4.Event
		which, r := 0, ptl4.EQEmpty
		l.do(func(x *ptl4.Lib) {
			for i, h := range eqs {
				if ok, rr := x.EQReady(h); rr != ptl4.OK {
					which, r = i, rr
					return
				} else if ok {
					ev, r = x.EQGet(h)
					which = i
					return
				}
			}
		})
		if r != ptl4.EQEmpty || timeoutMS == 0 || !l.wait(deadline) {
			return ev, which, r
		}
	}
}

// CTAlloc is PtlCTAlloc.
func (l *OnloadLib) CTAlloc(ni ptl4.Handle) (h ptl4.Handle, r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { h, r = x.CTAlloc(ni) })
	return
}

// CTFree is PtlCTFree.
func (l *OnloadLib) CTFree(ct ptl4.Handle) (r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { r = x.CTFree(ct) })
	return
}

// CTGet is PtlCTGet.
func (l *OnloadLib) CTGet(ct ptl4.Handle) (v ptl4.CTEvent, r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { v, r = x.CTGet(ct) })
	return
}

// CTWait is PtlCTWait.
func (l *OnloadLib) CTWait(ct ptl4.Handle, test uint64) (ptl4.CTEvent, ptl4.Ret) {
	v, _, r := l.CTPoll([]ptl4.Handle{ct}, []uint64{test}, -1)
	return v, r
}

// CTPoll is PtlCTPoll. A counter freed while the call waits ends it with PTL_OK.
func (l *OnloadLib) CTPoll(cts []ptl4.Handle, tests []uint64, timeoutMS int64) (ptl4.CTEvent, int, ptl4.Ret) {
	deadline := deadlineOf(l.p, timeoutMS)
	var last ptl4.CTEvent
	for waited := false; ; waited = true {
		var v ptl4.CTEvent
		which, r, done := 0, ptl4.OK, false
		l.do(func(x *ptl4.Lib) {
			for i, h := range cts {
				c, rr := x.CTGet(h)
				if rr != ptl4.OK {
					which, r = i, rr
					return
				}
				if i == 0 {
					v = c
				}
				if c.Success >= tests[i] || c.Failure > 0 {
					v, which, done = c, i, true
					return
				}
			}
		})
		switch {
		case r != ptl4.OK && waited:
			return last, 0, ptl4.OK
		case r != ptl4.OK || done:
			return v, which, r
		}
		last = v
		if timeoutMS == 0 || !l.wait(deadline) {
			return v, 0, ptl4.CTNoneReached
		}
	}
}

// CTSet is PtlCTSet.
func (l *OnloadLib) CTSet(ct ptl4.Handle, v ptl4.CTEvent) (r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { r = x.CTSet(ct, v) })
	return
}

// CTInc is PtlCTInc.
func (l *OnloadLib) CTInc(ct ptl4.Handle, v ptl4.CTEvent) (r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { r = x.CTInc(ct, v) })
	return
}

// CTCancelTriggered is PtlCTCancelTriggered.
func (l *OnloadLib) CTCancelTriggered(ct ptl4.Handle) (r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { r = x.CTCancelTriggered(ct) })
	return
}

// Start is PtlPut, PtlGet, PtlAtomic, PtlFetchAtomic and PtlSwap.
func (l *OnloadLib) Start(a ptl4.Args) (r ptl4.Ret) {
	a = copyArgs(a)
	l.do(func(x *ptl4.Lib) { r = x.Start(a) })
	return
}

// Triggered is PtlTriggeredPut and friends.
func (l *OnloadLib) Triggered(a ptl4.Args, ct ptl4.Handle, threshold uint64) (r ptl4.Ret) {
	a = copyArgs(a)
	l.do(func(x *ptl4.Lib) { r = x.Triggered(a, ct, threshold) })
	return
}

// TriggeredCT is PtlTriggeredCTInc and PtlTriggeredCTSet.
func (l *OnloadLib) TriggeredCT(target ptl4.Handle, v ptl4.CTEvent, set bool, ct ptl4.Handle, threshold uint64) (r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { r = x.TriggeredCT(target, v, set, ct, threshold) })
	return
}

// StartBundle is PtlStartBundle.
func (l *OnloadLib) StartBundle(ni ptl4.Handle) (r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { r = x.StartBundle(ni) })
	return
}

// EndBundle is PtlEndBundle.
func (l *OnloadLib) EndBundle(ni ptl4.Handle) (r ptl4.Ret) {
	l.do(func(x *ptl4.Lib) { r = x.EndBundle(ni) })
	return
}

// AtomicSync is PtlAtomicSync.
func (l *OnloadLib) AtomicSync() (r ptl4.Ret) { l.do(func(x *ptl4.Lib) { r = x.AtomicSync() }); return }

var _ conform.Env = (*OnloadLib)(nil)

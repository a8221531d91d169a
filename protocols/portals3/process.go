package portals3

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/host"
	"github.com/seastar-sim/seastar/protocols/portals3/ptl"
)

// Process is a client of generic-mode Portals: its network interface and the Portals
// 3.3 calls, each charged with the crossing of its bridge and the library's work.
// Methods must be called from the process's program (they block in simulated time).
type Process struct {
	s       *Stack
	ni      *ptl.NI
	bridge  Bridge
	p       *host.Proc
	bells   map[ptl.EQHandle]uint64 // events posted per event queue
	waiting ptl.EQHandle            // the queue EQWait blocks on, EQNone if none

	// accelerated mode (accel.go, accel_proc.go)
	accel   bool
	slot    int    // the firmware-level process
	txFree  []int  // the host-managed TX pool of the slot
	recNext uint64 // next record of the slot's event queue
	calls   uint64 // offloaded calls made
}

// bell is what the kernel writes to wake a process waiting on an event queue.
type bell struct{}

func (bell) String() string { return "portals.bell" }

// bellAddr is the host address the kernel writes to signal event n of queue eq of
// process pid (a stand-in for the event slot itself).
func bellAddr(pid ptl.PID, eq ptl.EQHandle, n uint64) uint64 {
	return 0x8000_0000_0000 | uint64(pid)<<32 | uint64(eq)<<20 | n&0xfffff
}

// ring notes an event posted to queue eq and wakes the process if it waits on it. One
// bell wakes it: the process takes every event on the queue before it waits again, so
// the events posted before it runs ring no bell of their own (each would stay in host
// memory, where nothing waits for or forgets it).
func (pr *Process) ring(c ctx, eq ptl.EQHandle) {
	pr.bells[eq]++
	if pr.waiting == eq {
		c.Store(bellAddr(pr.ni.ID().PID, eq, pr.bells[eq]), bell{})
		pr.waiting = ptl.EQNone
	}
}

// Spawn starts a process with Portals interface (pid, jid, uid) on core of the host,
// reaching the kernel through bridge, and runs prog in it. The process runs in the
// mode of the stack's parameters (portals.mode).
func (s *Stack) Spawn(name string, core int, pid ptl.PID, jid ptl.JID, uid ptl.UID, bridge Bridge, prog func(*Process)) error {
	return s.SpawnMode(s.p.Mode, name, core, pid, jid, uid, bridge, prog)
}

// SpawnMode is Spawn in an explicit mode, generic or accelerated: generic and
// accelerated processes coexist on a node. An accelerated process needs physically
// contiguous memory (a Catamount application, qkbridge), and a node has at most
// portals.accel_processes of them.
func (s *Stack) SpawnMode(mode, name string, core int, pid ptl.PID, jid ptl.JID, uid ptl.UID, bridge Bridge, prog func(*Process)) error {
	if _, dup := s.nis[pid]; dup {
		return fmt.Errorf("portals: node %d already has a process with pid %d", s.node, pid)
	}
	lim := ptl.DefaultLimits()
	lim.PtEntries = s.p.PortalTable
	accel := false
	switch mode {
	case "generic":
	case "accelerated":
		if bridge.paged() {
			return fmt.Errorf("portals: node %d pid %d: accelerated mode needs physically contiguous memory "+
				"(a Catamount process, qkbridge), not %s (Pedretti & Hudson 2005 s.4.1)", s.node, pid, bridge)
		}
		if s.accelUsed == s.p.AccelProcs {
			return fmt.Errorf("portals: node %d pid %d: the node has no accelerated slot left (portals.accel_processes = %d)",
				s.node, pid, s.p.AccelProcs)
		}
		accel = true
		lim.MaxMEs, lim.MaxMDs = s.p.AccelObjects, s.p.AccelObjects // they live in SRAM
	default:
		return fmt.Errorf("portals: unknown mode %q (want generic or accelerated)", mode)
	}
	ni, err := ptl.NewNI(ptl.Config{NID: ptl.NID(s.node), PID: pid, JID: jid, UID: uid, Limits: lim})
	if err != nil {
		return err
	}
	pr := &Process{s: s, ni: ni, bridge: bridge, bells: map[ptl.EQHandle]uint64{}, waiting: ptl.EQNone, accel: accel}
	if accel {
		pr.slot = s.accelUsed
		s.accelUsed++
		base := s.p.Pendings + pr.slot*s.p.AccelPendings
		for i := base + s.p.AccelTxPendings - 1; i >= base; i-- {
			pr.txFree = append(pr.txFree, i)
		}
	}
	s.nis[pid] = pr
	_, err = s.cpu.Spawn(name, core, func(hp *host.Proc) {
		pr.p = hp
		if accel {
			pr.register()
		}
		prog(pr)
	})
	return err
}

// Accelerated reports whether the process runs in accelerated mode.
func (pr *Process) Accelerated() bool { return pr.accel }

// procCtx is kernel work done in a process's system call: process time.
type procCtx struct{ *host.Proc }

func (c procCtx) Charge(d actors.Duration) { c.Compute(d) }

// enter crosses the bridge into the library and does work there.
func (pr *Process) enter(work actors.Duration) {
	switch pr.bridge {
	case QKBridge:
		pr.p.Trap(work)
	case UKBridge:
		pr.p.Compute(pr.s.p.LinuxSyscall + work)
	default:
		pr.p.Compute(work)
	}
	pr.p.Sync() // the library's state is up to date when the call reads it
}

// ID is the process's Portals id.
func (pr *Process) ID() ptl.ProcessID { return pr.ni.ID() }

// Proc is the host process.
func (pr *Process) Proc() *host.Proc { return pr.p }

// Now is the process's clock.
func (pr *Process) Now() actors.Time { return pr.p.Now() }

// EQAlloc is PtlEQAlloc. Event queues are in host memory; setting one up goes through
// the kernel in either mode.
func (pr *Process) EQAlloc(count int) (ptl.EQHandle, error) {
	pr.enter(pr.s.p.KernEQ)
	return pr.ni.EQAlloc(count)
}

// inKernel tells where a call that changes or reads the match lists runs: here, in the
// kernel's library (generic mode; the kernel's entry is charged), or offloaded to the
// firmware, where an accelerated process's lists live (offloaded). The callers build
// the firmware's closure only on the offloaded path: one built for both, which escapes
// into the firmware's command, cost a generic call two or three allocations.
func (pr *Process) inKernel() bool {
	if pr.accel {
		return false
	}
	pr.enter(pr.s.p.KernTable)
	return true
}

// offloaded runs call in the firmware (pr.offload) and returns its results.
func offloaded[T any](pr *Process, call func() (T, error)) (v T, err error) {
	pr.offload(func() { v, err = call() })
	return v, err
}

// offloadedErr is offloaded for a call with an error only.
func offloadedErr(pr *Process, call func() error) (err error) {
	pr.offload(func() { err = call() })
	return err
}

// MEAttach is PtlMEAttach.
func (pr *Process) MEAttach(pt ptl.PtIndex, id ptl.MatchID, bits, ignore ptl.MatchBits, unlink ptl.UnlinkOp, pos ptl.InsPos) (ptl.MEHandle, error) {
	if pr.inKernel() {
		return pr.ni.MEAttach(pt, id, bits, ignore, unlink, pos)
	}
	return offloaded(pr, func() (ptl.MEHandle, error) { return pr.ni.MEAttach(pt, id, bits, ignore, unlink, pos) })
}

// MDAttach is PtlMDAttach. An accelerated process's MDs must be contiguous: an iovec
// MD is PTL_MD_ILLEGAL.
func (pr *Process) MDAttach(me ptl.MEHandle, md ptl.MD, unlink ptl.UnlinkOp) (ptl.MDHandle, error) {
	if err := pr.contiguous(md); err != nil {
		return 0, err
	}
	if pr.inKernel() {
		return pr.ni.MDAttach(me, md, unlink)
	}
	return offloaded(pr, func() (ptl.MDHandle, error) { return pr.ni.MDAttach(me, md, unlink) })
}

// MDBind is PtlMDBind: a free-floating MD, for initiating puts and gets.
func (pr *Process) MDBind(md ptl.MD, unlink ptl.UnlinkOp) (ptl.MDHandle, error) {
	if err := pr.contiguous(md); err != nil {
		return 0, err
	}
	if pr.inKernel() {
		return pr.ni.MDBind(md, unlink)
	}
	return offloaded(pr, func() (ptl.MDHandle, error) { return pr.ni.MDBind(md, unlink) })
}

// MDUnlink is PtlMDUnlink.
func (pr *Process) MDUnlink(h ptl.MDHandle) error {
	if pr.inKernel() {
		return pr.ni.MDUnlink(h)
	}
	return offloadedErr(pr, func() error { return pr.ni.MDUnlink(h) })
}

// Put is PtlPut: the library builds the header and hands the message to the firmware.
func (pr *Process) Put(md ptl.MDHandle, ack ptl.AckReq, target ptl.ProcessID, pt ptl.PtIndex, bits ptl.MatchBits, remoteOffset uint64, hdr ptl.HdrData) error {
	if pr.accel {
		return pr.accelPut(md, ack, target, pt, bits, remoteOffset, hdr)
	}
	t0 := pr.p.Now()
	pr.enter(pr.s.p.KernPut)
	h, err := pr.ni.Put(md, ack, target, pt, bits, remoteOffset, hdr)
	if err != nil {
		return err
	}
	regions, _ := pr.ni.SendRegions(h)
	data, _ := pr.ni.SendData(h)
	c := procCtx{pr.p}
	posted, err := pr.ni.SendStarted(h)
	if err != nil {
		return err
	}
	pr.s.deliver(c, pr, posted)
	pr.s.send(c, pr.s.opRecs.tx.New(txOp{proc: pr, hdr: h, kind: Put}), h, regions, pr.bridge, data)
	if t := pr.p.Tracer(); t != nil {
		pr.traceCall(t, "host/ptl_put", t0, pr.s.lastID())
	}
	return nil
}

// Get is PtlGet: a header-only request; the reply's data lands in md.
func (pr *Process) Get(md ptl.MDHandle, target ptl.ProcessID, pt ptl.PtIndex, bits ptl.MatchBits, remoteOffset uint64) error {
	if pr.accel {
		return pr.accelGet(md, target, pt, bits, remoteOffset)
	}
	t0 := pr.p.Now()
	pr.enter(pr.s.p.KernPut)
	h, err := pr.ni.Get(md, target, pt, bits, remoteOffset)
	if err != nil {
		return err
	}
	pr.s.send(procCtx{pr.p}, pr.s.opRecs.tx.New(txOp{proc: pr, hdr: h, kind: Get}), h, nil, pr.bridge, nil)
	if t := pr.p.Tracer(); t != nil {
		pr.traceCall(t, "host/ptl_get", t0, pr.s.lastID())
	}
	return nil
}

// EQGet is PtlEQGet: the next event, or ptl.ErrEQEmpty.
func (pr *Process) EQGet(eq ptl.EQHandle) (ptl.Event, error) {
	pr.library()
	return pr.ni.EQGet(eq)
}

// library enters the Portals library for a call that reads its state: through the
// bridge into the kernel (generic), or in user space, first turning the firmware's
// records into events (accelerated).
func (pr *Process) library() {
	if !pr.accel {
		pr.enter(pr.s.p.KernEQ)
		return
	}
	pr.p.Compute(pr.s.p.AccelLibCall)
	pr.poll()
}

// EQCount is the number of events waiting in eq (a PtlEQGet loop without consuming).
func (pr *Process) EQCount(eq ptl.EQHandle) (int, error) {
	pr.library()
	return pr.ni.EQCount(eq)
}

// Status is PtlNIStatus: one of the interface's status registers.
func (pr *Process) Status(sr ptl.SRIndex) (uint64, error) {
	pr.library()
	return pr.ni.Status(sr)
}

// EQWait is PtlEQWait: generic mode enters the kernel and waits there until the
// interrupt handler posts an event to the queue.
func (pr *Process) EQWait(eq ptl.EQHandle) (ptl.Event, error) {
	if pr.accel {
		return pr.accelWait(eq)
	}
	pr.enter(pr.s.p.KernEQ)
	for {
		ev, err := pr.ni.EQGet(eq)
		if ptl.Code(err) != ptl.ErrEQEmpty {
			return ev, err
		}
		addr := bellAddr(pr.ni.ID().PID, eq, pr.bells[eq]+1)
		pr.waiting = eq
		pr.p.WaitFor(addr)
		pr.p.Forget(addr)
		pr.waiting = ptl.EQNone
	}
}

// WaitFor waits for the next event of type t on eq, consuming (and returning the count
// of) the events of other types before it.
func (pr *Process) WaitFor(eq ptl.EQHandle, t ptl.EventType) (ptl.Event, error) {
	for {
		ev, err := pr.EQWait(eq)
		if err != nil && ptl.Code(err) != ptl.ErrEQDropped {
			return ev, err
		}
		if ev.Type == t {
			return ev, err
		}
	}
}

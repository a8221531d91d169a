// Package conform runs the Portals 4 conformance tests (the XML "ptl_test" format of
// the Sandia reference implementation, ../shared/conformance/portals4) against a
// Portals 4 implementation. The interpreter follows the reference one (test.c, run.c,
// api.c, enum.c, mask.c, data.c there): every container element copies the state of
// its parent, creates its object on entry and releases it on exit; leaf elements call
// one API function and compare its return code with ret=; check compares the state.
//
// The implementation is reached through Env, one per rank and thread: the simulated
// machine's host library (protocols/portals4) implements it, so a test's calls cost
// simulated host time and its messages cross the simulated network.
package conform

import "github.com/seastar-sim/seastar/protocols/portals4/ptl4"

// Env is one thread of one rank running a test: the Portals 4 API with blocking
// calls, the process's memory, and the out-of-band runtime (rank, barrier, sleep,
// threads) the test harness provides.
type Env interface {
	Init() ptl4.Ret
	Fini()
	NIInit(iface, opt, pid uint32, desired *ptl4.Limits) (ptl4.Handle, ptl4.Limits, ptl4.Ret)
	NIFini(ni ptl4.Handle) ptl4.Ret
	NIStatus(ni ptl4.Handle, reg int) (uint64, ptl4.Ret)
	NIHandle(h ptl4.Handle) (ptl4.Handle, ptl4.Ret)
	SetMap(ni ptl4.Handle, m []ptl4.ProcessID) ptl4.Ret
	GetMap(ni ptl4.Handle, size int) ([]ptl4.ProcessID, int, ptl4.Ret)
	GetUID(ni ptl4.Handle) (uint32, ptl4.Ret)
	GetID(ni ptl4.Handle) (ptl4.ProcessID, ptl4.Ret)
	PTAlloc(ni ptl4.Handle, opt uint32, eq ptl4.Handle, idx uint32) (uint32, ptl4.Ret)
	PTFree(ni ptl4.Handle, idx uint32) ptl4.Ret
	PTDisable(ni ptl4.Handle, idx uint32) ptl4.Ret
	PTEnable(ni ptl4.Handle, idx uint32) ptl4.Ret
	MDBind(ni ptl4.Handle, md ptl4.MD) (ptl4.Handle, ptl4.Ret)
	MDRelease(md ptl4.Handle) ptl4.Ret
	Append(ni ptl4.Handle, idx uint32, me ptl4.ME, list ptl4.List, userPtr uint64, le bool) (ptl4.Handle, ptl4.Ret)
	Unlink(h ptl4.Handle) ptl4.Ret
	Search(ni ptl4.Handle, idx uint32, me ptl4.ME, op ptl4.SearchOp, userPtr uint64, le bool) ptl4.Ret
	EQAlloc(ni ptl4.Handle, count int) (ptl4.Handle, ptl4.Ret)
	EQFree(eq ptl4.Handle) ptl4.Ret
	EQGet(eq ptl4.Handle) (ptl4.Event, ptl4.Ret)
	EQWait(eq ptl4.Handle) (ptl4.Event, ptl4.Ret)
	// EQPoll waits up to timeoutMS milliseconds (negative: forever) for an event on
	// any of eqs; which is the index of the queue it came from.
	EQPoll(eqs []ptl4.Handle, timeoutMS int64) (ev ptl4.Event, which int, r ptl4.Ret)
	CTAlloc(ni ptl4.Handle) (ptl4.Handle, ptl4.Ret)
	CTFree(ct ptl4.Handle) ptl4.Ret
	CTGet(ct ptl4.Handle) (ptl4.CTEvent, ptl4.Ret)
	CTWait(ct ptl4.Handle, test uint64) (ptl4.CTEvent, ptl4.Ret)
	CTPoll(cts []ptl4.Handle, tests []uint64, timeoutMS int64) (ev ptl4.CTEvent, which int, r ptl4.Ret)
	CTSet(ct ptl4.Handle, v ptl4.CTEvent) ptl4.Ret
	CTInc(ct ptl4.Handle, v ptl4.CTEvent) ptl4.Ret
	CTCancelTriggered(ct ptl4.Handle) ptl4.Ret
	Start(a ptl4.Args) ptl4.Ret
	Triggered(a ptl4.Args, ct ptl4.Handle, threshold uint64) ptl4.Ret
	TriggeredCT(target ptl4.Handle, v ptl4.CTEvent, set bool, ct ptl4.Handle, threshold uint64) ptl4.Ret
	StartBundle(ni ptl4.Handle) ptl4.Ret
	EndBundle(ni ptl4.Handle) ptl4.Ret
	AtomicSync() ptl4.Ret

	// Memory is the process's address space, shared by its threads.
	Memory() *ptl4.Space
	// Rank and Size are the job's (libtest_get_rank, libtest_get_size).
	Rank() int
	Size() int
	// Mapping returns the physical ids of every rank, gathered out of band
	// (libtest_get_mapping); ni is this process's physical interface.
	Mapping(ni ptl4.Handle) []ptl4.ProcessID
	// Barrier waits for every rank (libtest_barrier).
	Barrier()
	// Sleep passes ms milliseconds of simulated time.
	Sleep(ms int64)
	// Threads runs body on n threads of this process and waits for all of them.
	Threads(n int, body func(tid int, e Env))
}

package portals3

import "github.com/seastar-sim/seastar/protocols/portals3/ptl"

// The Portals 3.3 calls that upper layers (the MPI-style layer of protocols/mpi) need
// besides those of process.go. They change match lists and memory descriptors, so they
// run where those live: in the kernel's library (generic mode) or offloaded to the
// firmware (accelerated mode), like MEAttach and MDAttach.

// MEInsert is PtlMEInsert: a match entry just before or after base, on base's portal.
// An MPI layer keeps its posted receives ahead of its unexpected-message entries this
// way.
func (pr *Process) MEInsert(base ptl.MEHandle, id ptl.MatchID, bits, ignore ptl.MatchBits, unlink ptl.UnlinkOp, pos ptl.InsPos) (ptl.MEHandle, error) {
	if pr.inKernel() {
		return pr.ni.MEInsert(base, id, bits, ignore, unlink, pos)
	}
	return offloaded(pr, func() (ptl.MEHandle, error) { return pr.ni.MEInsert(base, id, bits, ignore, unlink, pos) })
}

// MEUnlink is PtlMEUnlink: the entry and its memory descriptor, if any.
func (pr *Process) MEUnlink(h ptl.MEHandle) error {
	if pr.inKernel() {
		return pr.ni.MEUnlink(h)
	}
	return offloadedErr(pr, func() error { return pr.ni.MEUnlink(h) })
}

// MDUpdate is PtlMDUpdate: it replaces the memory descriptor h by newMD (nil: only
// read it) if testEQ (EQNone: no test) holds no event and is owed none. Done where the
// match lists live, atomically with respect to incoming messages, it is what lets an
// MPI layer post a receive and check its unexpected messages without a race; in
// accelerated mode it is a round trip to the firmware (Brightwell 2011: "atomic search
// and post for MPI receives required round-trip across PCI").
func (pr *Process) MDUpdate(h ptl.MDHandle, newMD *ptl.MD, testEQ ptl.EQHandle) (ptl.MD, error) {
	if newMD != nil {
		if err := pr.contiguous(*newMD); err != nil {
			return ptl.MD{}, err
		}
	}
	if pr.inKernel() {
		return pr.ni.MDUpdate(h, newMD, testEQ)
	}
	// The firmware's closure gets its own copy (the process waits for the call), so
	// that the caller's MD need not live on the heap.
	var md *ptl.MD
	if newMD != nil {
		c := *newMD
		md = &c
	}
	return offloaded(pr, func() (ptl.MD, error) { return pr.ni.MDUpdate(h, md, testEQ) })
}

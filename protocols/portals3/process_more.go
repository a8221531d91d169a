package portals3

import "github.com/seastar-sim/seastar/protocols/portals3/ptl"

// The Portals 3.3 calls that upper layers (the MPI-style layer of protocols/mpi) need
// besides those of process.go. Each is a library call through the process's bridge,
// charged like the other table operations (KernEQ).

// MEInsert is PtlMEInsert: a match entry just before or after base, on base's portal.
// An MPI layer keeps its posted receives ahead of its unexpected-message entries this
// way.
func (pr *Process) MEInsert(base ptl.MEHandle, id ptl.MatchID, bits, ignore ptl.MatchBits, unlink ptl.UnlinkOp, pos ptl.InsPos) (ptl.MEHandle, error) {
	var h ptl.MEHandle
	var err error
	pr.table(func() int { h, err = pr.ni.MEInsert(base, id, bits, ignore, unlink, pos); return 0 })
	return h, err
}

// MEUnlink is PtlMEUnlink: the entry and its memory descriptor, if any.
func (pr *Process) MEUnlink(h ptl.MEHandle) error {
	var err error
	pr.table(func() int { err = pr.ni.MEUnlink(h); return 0 })
	return err
}

// MDUpdate is PtlMDUpdate: it replaces the memory descriptor h by newMD (nil: only
// read it) if testEQ (EQNone: no test) holds no event and is owed none. Done in the
// library, atomically with respect to incoming messages, it is what lets an MPI layer
// post a receive and check its unexpected messages without a race (Brightwell et al.
// 2005 s.3.1: the library, not the application, sees messages arrive).
func (pr *Process) MDUpdate(h ptl.MDHandle, newMD *ptl.MD, testEQ ptl.EQHandle) (ptl.MD, error) {
	if newMD != nil {
		if err := pr.contiguous(*newMD); err != nil {
			return ptl.MD{}, err
		}
	}
	var md ptl.MD
	var err error
	pr.table(func() int { md, err = pr.ni.MDUpdate(h, newMD, testEQ); return 0 })
	return md, err
}

package conform

import (
	"fmt"

	"github.com/seastar-sim/seastar/protocols/portals4/ptl4"
)

// walk is run.c's walk_tree over the siblings nodes.
// stopEvery is how many iterations of a repeat run between two questions to run.stop.
const stopEvery = 1024

func (r *run) walk(in *info, nodes []*Node) int {
	total := 0
	for _, n := range nodes {
		total += r.node(in, n)
	}
	return total
}

// node runs one element with in as its parent's state.
func (r *run) node(in *info, n *Node) int {
	if r.track != nil {
		*r.track = n
	}
	switch n.Name {
	case "set":
		return r.attrs(in, n)
	case "check":
		return r.check(in, n, true)
	case "if":
		in.cond = r.check(in, n, false) == 0
		if in.cond {
			return r.walk(in, n.Children)
		}
		return 0
	case "else":
		if !in.cond {
			return r.walk(in, n.Children)
		}
		return 0
	case "arg_check":
		return r.walk(in, n.Children)
	case "ifdef":
		for _, a := range n.Attrs {
			if !isAttr(a.Name.Local) {
				return 0
			}
		}
		return r.walk(in, n.Children)
	case "desc", "comment":
		return 0
	case "barrier":
		r.e.Barrier()
		return 0
	}
	if !isElement(n.Name) {
		return r.failf(n, "invalid element")
	}
	cur := r.push(in, n.Name)
	defer func() { r.pop(cur) }()
	if errs := r.attrs(cur, n); errs != 0 {
		return errs
	}
	kids := func() int { return r.walk(cur, n.Children) }
	switch n.Name {
	case "test", "subtest", "get_time":
		return kids()
	case "repeat":
		errs := 0
		for i := int64(0); i < cur.count; i++ {
			if r.stop != nil && i%stopEvery == 0 {
				if err := r.stop(); err != nil {
					return errs + r.failf(n, "stopped after %d of %d iterations: %v", i, cur.count, err)
				}
			}
			errs += kids()
		}
		return errs
	case "threads":
		errs := make([]int, max(cur.count, 0))
		r.e.Threads(len(errs), func(tid int, e Env) {
			t := *cur
			t.threadID = int64(tid)
			tr := &run{e: e, first: r.first}
			errs[tid] = tr.walk(&t, n.Children)
		})
		sum := 0
		for _, v := range errs {
			sum += v
		}
		return sum
	case "msleep":
		r.e.Sleep(cur.count)
		return kids()
	case "ompi_rt":
		cur.rank = int64(r.e.Rank())
		cur.mapSize = int64(r.e.Size())
		if cur.niHandle != ptl4.InvalidHandle && cur.desiredMap == nil {
			cur.desiredMap = r.e.Mapping(cur.niHandle)
		}
		errs := kids()
		cur.desiredMap = nil
		return errs
	case "ptl":
		errs := r.call(cur, n, int64(r.e.Init()))
		errs += kids()
		r.e.Fini()
		return errs
	case "ptl_init":
		return r.call(cur, n, int64(r.e.Init())) + kids()
	case "ptl_fini":
		r.e.Fini()
		return kids()
	case "ptl_pt":
		return r.container(cur, n, r.ptAlloc, r.ptFree)
	case "ptl_md":
		return r.container(cur, n, r.mdBind, r.mdRelease)
	case "ptl_le":
		return r.container(cur, n, func(in *info, n *Node) int { return r.append(in, n, true) },
			func(in *info, n *Node) int { return r.unlink(in, n, true) })
	case "ptl_me":
		return r.container(cur, n, func(in *info, n *Node) int { return r.append(in, n, false) },
			func(in *info, n *Node) int { return r.unlink(in, n, false) })
	case "ptl_eq":
		return r.container(cur, n, r.eqAlloc, r.eqFree)
	case "ptl_ct":
		return r.container(cur, n, r.ctAlloc, r.ctFree)
	case "ptl_ni":
		errs := r.niInit(cur, n)
		errs += kids()
		r.track0(n)
		return errs + r.niFini(cur, n)
	}
	return r.leaf(cur, n) + kids()
}

// track0 notes that the rank is back at element n (releasing its object).
func (r *run) track0(n *Node) {
	if r.track != nil {
		*r.track = n
	}
}

// container creates count objects (each level pushed on the last), walks the children
// with the innermost, and releases them innermost first (run.c, NODE_PTL_MD etc.).
func (r *run) container(cur *info, n *Node, create, destroy func(*info, *Node) int) int {
	errs := 0
	levels := []*info{cur}
	for i := int64(0); i < cur.count-1; i++ {
		errs += create(cur, n)
		next := r.push(cur, n.Name)
		errs += r.attrs(next, n)
		levels = append(levels, next)
		cur = next
	}
	errs += create(cur, n)
	errs += r.walk(cur, n.Children)
	r.track0(n)
	errs += destroy(cur, n)
	for i := len(levels) - 1; i > 0; i-- {
		r.pop(levels[i])
		errs += destroy(levels[i-1], n)
	}
	return errs
}

// call records the return code of an API call and compares it with ret=.
func (r *run) call(in *info, n *Node, got int64) int {
	in.err = got
	if got != in.ret {
		return r.failf(n, "returned %s, want %s", retName(got), retName(in.ret))
	}
	return 0
}

func retName(v int64) string {
	if v >= 0 && v <= 15 {
		return ptl4.Ret(v).String()
	}
	return fmt.Sprintf("%#x", v)
}

func (r *run) pushStack(in *info, s int, h ptl4.Handle) {
	if in.next[s] < stackSize {
		in.stack[s][in.next[s]] = h
		in.next[s]++
	}
}

func (r *run) popStack(in *info, s int) {
	if in.next[s] > 0 {
		in.next[s]--
	}
}

func (r *run) niInit(in *info, n *Node) int {
	var h ptl4.Handle
	var lim ptl4.Limits
	var ret ptl4.Ret
	if in.ptrSet {
		ret = ptl4.ArgInvalid
	} else {
		h, lim, ret = r.e.NIInit(in.iface, in.niOpt, in.pid, &in.desired)
	}
	if ret == ptl4.OK {
		in.niHandle, in.actual = h, lim
		r.pushStack(in, sNI, h)
	}
	if in.niOpt&ptl4.NILogical != 0 && in.desiredMap != nil {
		r.e.SetMap(in.niHandle, in.desiredMap[:min(int(in.mapSize), len(in.desiredMap))])
	}
	return r.call(in, n, int64(ret))
}

func (r *run) niFini(in *info, n *Node) int {
	ret := r.e.NIFini(in.niHandle)
	if ret == ptl4.OK {
		r.popStack(in, sNI)
	}
	return r.call(in, n, int64(ret))
}

func (r *run) ptAlloc(in *info, n *Node) int {
	idx, ret := r.e.PTAlloc(in.niHandle, in.ptOpt, in.eqHandle, in.ptIndex)
	if ret == ptl4.OK && !in.ptrSet {
		in.ptIndex = idx
		r.pushStack(in, sPT, ptl4.Handle(idx))
	}
	return r.call(in, n, int64(ret))
}

// backoff lets other threads and ranks run while a call answers "in use" (run.c
// loops on sched_yield): a microsecond of simulated time for the first hundred tries,
// then 10 ms, so that a call that stays busy costs few iterations before the test's
// time limit ends it.
type backoff struct{ n int }

func (b *backoff) wait(e Env) {
	if b.n++; b.n <= 100 {
		e.Sleep(0)
		return
	}
	e.Sleep(10)
}

func (r *run) ptFree(in *info, n *Node) int {
	ret := r.e.PTFree(in.niHandle, in.ptIndex)
	for b := (backoff{}); ret == ptl4.PTInUse; {
		b.wait(r.e)
		ret = r.e.PTFree(in.niHandle, in.ptIndex)
	}
	if ret == ptl4.OK {
		r.popStack(in, sPT)
	}
	return r.call(in, n, int64(ret))
}

func (r *run) mdBind(in *info, n *Node) int {
	in.md.CT, in.md.EQ = in.ctHandle, in.eqHandle
	h, ret := r.e.MDBind(in.niHandle, in.md)
	if ret == ptl4.OK && !in.ptrSet {
		in.mdHandle = h
		r.pushStack(in, sMD, h)
	}
	return r.call(in, n, int64(ret))
}

// mdRelease retries while the MD is busy, 100 times 10 ms (api.c); it does not set err.
func (r *run) mdRelease(in *info, n *Node) int {
	var ret ptl4.Ret
	for i := 0; i < 100; i++ {
		if ret = r.e.MDRelease(in.mdHandle); ret != ptl4.ArgInvalid {
			break
		}
		r.e.Sleep(10)
	}
	if ret == ptl4.OK {
		r.popStack(in, sMD)
	}
	if int64(ret) != in.ret {
		return r.failf(n, "PtlMDRelease returned %s, want %s", retName(int64(ret)), retName(in.ret))
	}
	return 0
}

func (r *run) append(in *info, n *Node, le bool) int {
	d, s, hp := &in.me, sME, &in.meHandle
	if le {
		d, s, hp = &in.le, sLE, &in.leHandle
	}
	d.CT, d.UID = in.ctHandle, in.uid
	h, ret := r.e.Append(in.niHandle, in.ptIndex, *d, in.list, in.userPtr, le)
	if ret == ptl4.OK && !in.ptrSet {
		*hp = h
		r.pushStack(in, s, h)
	}
	return r.call(in, n, int64(ret))
}

func (r *run) unlink(in *info, n *Node, le bool) int {
	h, s := in.meHandle, sME
	if le {
		h, s = in.leHandle, sLE
	}
	ret := r.e.Unlink(h)
	for b := (backoff{}); ret == ptl4.InUse; {
		b.wait(r.e)
		ret = r.e.Unlink(h)
	}
	if ret == ptl4.OK {
		r.popStack(in, s)
	}
	return r.call(in, n, int64(ret))
}

func (r *run) eqAlloc(in *info, n *Node) int {
	h, ret := r.e.EQAlloc(in.niHandle, int(in.eqCount))
	if ret == ptl4.OK && !in.ptrSet {
		in.eqHandle = h
		r.pushStack(in, sEQ, h)
	}
	return r.call(in, n, int64(ret))
}

func (r *run) eqFree(in *info, n *Node) int {
	ret := r.e.EQFree(in.eqHandle)
	if ret == ptl4.OK {
		r.popStack(in, sEQ)
	}
	return r.call(in, n, int64(ret))
}

func (r *run) ctAlloc(in *info, n *Node) int {
	h, ret := r.e.CTAlloc(in.niHandle)
	if ret == ptl4.OK && !in.ptrSet {
		in.ctHandle = h
		r.pushStack(in, sCT, h)
	}
	return r.call(in, n, int64(ret))
}

func (r *run) ctFree(in *info, n *Node) int {
	ret := r.e.CTFree(in.ctHandle)
	if ret == ptl4.OK {
		r.popStack(in, sCT)
	}
	return r.call(in, n, int64(ret))
}

func (in *info) args(kind ptl4.MsgOp) ptl4.Args {
	return ptl4.Args{Kind: kind, MD: in.mdHandle, GetMD: in.getMD, PutMD: in.putMD, LocalOffset: in.locOffset,
		GetOffset: in.locGetOff, PutOffset: in.locPutOff, Length: in.length, Ack: in.ackReq, Target: in.targetID,
		PT: in.ptIndex, Match: in.match, RemoteOffset: in.remOffset, UserPtr: in.userPtr, HdrData: in.hdrData,
		AtomOp: in.atomOp, Type: in.typ, Operand: in.operand[:max(in.typ.Size(), 0)]}
}

// leaf runs an element that calls one API function.
func (r *run) leaf(in *info, n *Node) int {
	e := r.e
	var ret ptl4.Ret
	switch n.Name {
	case "ptl_ni_init":
		return r.niInit(in, n)
	case "ptl_ni_fini":
		return r.niFini(in, n)
	case "ptl_ni_status":
		var v uint64
		v, ret = e.NIStatus(in.niHandle, int(in.reg))
		if ret == ptl4.OK {
			in.status = v
		}
	case "ptl_ni_handle":
		var h ptl4.Handle
		h, ret = e.NIHandle(in.handle)
		if ret == ptl4.OK {
			in.niHandle = h
		}
	case "ptl_handle_is_equal":
		ret = ptl4.Fail
		if ptl4.HandleIsEqual(in.handle1, in.handle2) {
			ret = ptl4.OK
		}
	case "ptl_get_uid":
		var u uint32
		u, ret = e.GetUID(in.niHandle)
		if ret == ptl4.OK {
			in.uid = u
		}
	case "ptl_get_id":
		var id ptl4.ProcessID
		id, ret = e.GetID(in.niHandle)
		if ret == ptl4.OK {
			in.id = id
		}
	case "ptl_get_map":
		_, _, ret = e.GetMap(in.niHandle, int(in.getMapSize))
	case "ptl_pt_alloc":
		return r.ptAlloc(in, n)
	case "ptl_pt_free":
		return r.ptFree(in, n)
	case "ptl_pt_disable":
		ret = e.PTDisable(in.niHandle, in.ptIndex)
	case "ptl_pt_enable":
		ret = e.PTEnable(in.niHandle, in.ptIndex)
	case "ptl_md_bind":
		return r.mdBind(in, n)
	case "ptl_md_release":
		return r.mdRelease(in, n)
	case "ptl_le_append":
		return r.append(in, n, true)
	case "ptl_le_unlink":
		return r.unlink(in, n, true)
	case "ptl_me_append":
		return r.append(in, n, false)
	case "ptl_me_unlink":
		return r.unlink(in, n, false)
	case "ptl_le_search":
		in.le.CT = in.ctHandle
		ret = e.Search(in.niHandle, in.ptIndex, in.le, in.searchOp, in.userPtr, true)
	case "ptl_me_search":
		in.me.CT = in.ctHandle
		ret = e.Search(in.niHandle, in.ptIndex, in.me, in.searchOp, in.userPtr, false)
	case "ptl_eq_alloc":
		return r.eqAlloc(in, n)
	case "ptl_eq_free":
		return r.eqFree(in, n)
	case "ptl_eq_get", "ptl_eq_wait":
		var ev ptl4.Event
		if n.Name == "ptl_eq_get" {
			ev, ret = e.EQGet(in.eqHandle)
		} else {
			ev, ret = e.EQWait(in.eqHandle)
		}
		if ret == ptl4.OK || ret == ptl4.EQDropped {
			in.event = ev
		}
	case "ptl_eq_poll":
		var ev ptl4.Event
		var which int
		ev, which, ret = e.EQPoll([]ptl4.Handle{in.eqHandle}, in.timeout)
		if ret == ptl4.OK || ret == ptl4.EQDropped {
			in.event, in.which = ev, int64(which)
		}
	case "ptl_ct_alloc":
		return r.ctAlloc(in, n)
	case "ptl_ct_free":
		return r.ctFree(in, n)
	case "ptl_ct_get", "ptl_ct_wait", "ptl_ct_poll":
		var v ptl4.CTEvent
		var which int
		switch n.Name {
		case "ptl_ct_get":
			v, ret = e.CTGet(in.ctHandle)
		case "ptl_ct_wait":
			v, ret = e.CTWait(in.ctHandle, in.ctTest)
		default:
			v, which, ret = e.CTPoll([]ptl4.Handle{in.ctHandle}, []uint64{in.ctTest}, in.timeout)
			if ret == ptl4.OK {
				in.which = int64(which)
			}
		}
		if ret == ptl4.OK {
			in.ctEvent = v
		}
	case "ptl_ct_set":
		ret = e.CTSet(in.ctHandle, in.ctEvent)
	case "ptl_ct_inc":
		ret = e.CTInc(in.ctHandle, in.ctEvent)
	case "ptl_ct_cancel_trig":
		ret = e.CTCancelTriggered(in.ctHandle)
	case "ptl_put":
		ret = e.Start(in.args(ptl4.MsgPut))
	case "ptl_get":
		ret = e.Start(in.args(ptl4.MsgGet))
	case "ptl_atomic":
		ret = e.Start(in.args(ptl4.MsgAtomic))
	case "ptl_fetch":
		ret = e.Start(in.args(ptl4.MsgFetch))
	case "ptl_swap":
		ret = e.Start(in.args(ptl4.MsgSwap))
	case "ptl_atomic_sync":
		ret = e.AtomicSync()
	case "ptl_trig_put":
		ret = e.Triggered(in.args(ptl4.MsgPut), in.ctHandle, in.threshold)
	case "ptl_trig_get":
		ret = e.Triggered(in.args(ptl4.MsgGet), in.ctHandle, in.threshold)
	case "ptl_trig_atomic":
		ret = e.Triggered(in.args(ptl4.MsgAtomic), in.ctHandle, in.threshold)
	case "ptl_trig_fetch":
		ret = e.Triggered(in.args(ptl4.MsgFetch), in.ctHandle, in.threshold)
	case "ptl_trig_swap":
		ret = e.Triggered(in.args(ptl4.MsgSwap), in.ctHandle, in.threshold)
	case "ptl_trig_ct_inc":
		ret = e.TriggeredCT(in.ctHandle, in.ctEvent, false, in.trigCT, in.threshold)
	case "ptl_trig_ct_set":
		ret = e.TriggeredCT(in.ctHandle, in.ctEvent, true, in.trigCT, in.threshold)
	case "ptl_start_bundle":
		ret = e.StartBundle(in.niHandle)
	case "ptl_end_bundle":
		ret = e.EndBundle(in.niHandle)
	default:
		return r.failf(n, "element not supported by the interpreter")
	}
	return r.call(in, n, int64(ret))
}

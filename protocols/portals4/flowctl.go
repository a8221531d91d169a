package portals4

import (
	"context"
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/machine"
	"github.com/seastar-sim/seastar/protocols/portals4/ptl4"
)

// FlowCtlConfig is a p4-flowctl point: Messages puts from node 0 to node 1, at most
// Window unacknowledged, into a portal with flow control where every message arrives
// unexpected (on the overflow list) and the NI holds at most Unexpected unexpected
// headers; node 1's host takes each message (a use-once receive that consumes its
// header) after spending Work on the one before.
type FlowCtlConfig struct {
	Messages, Window, Unexpected int
	Size                         int64
	Work                         actors.Duration
}

// FlowCtlResult is what a p4-flowctl run measured.
type FlowCtlResult struct {
	Time       actors.Duration // until node 0 had every message acknowledged
	Disables   int64           // PT_DISABLED events at the target (each: drain, PtlPTEnable, resume)
	Refused    int64           // acks with PTL_NI_PT_DISABLED at the initiator
	Resent     int64           // puts sent again
	Received   int64           // distinct messages the target took
	Duplicates int64           // messages taken twice (must be 0)
}

// FlowControl runs Portals 4 flow control driven by resource exhaustion (the Portals 4
// specification's flow control, and the recovery MPI libraries over Portals 4 build on
// it): the target's unexpected headers run out, its NIC disables the portal table
// entry (PTL_EVENT_PT_DISABLED) and answers the puts it cannot take with
// PTL_NI_PT_DISABLED; the target's host drains its event queue and takes what arrived,
// re-enables the entry (PtlPTEnable) and tells the initiator (a "resume" put); the
// initiator resends every refused put, after that resume if the refusal may have come
// from the current disable.
func FlowControl(ctx context.Context, mp machine.Params, p Params, c FlowCtlConfig, opts actors.Options) (FlowCtlResult, *actors.Report, error) {
	var res FlowCtlResult
	if c.Messages < 1 || c.Window < 1 || c.Unexpected < 1 || c.Size < 0 || c.Work < 0 {
		return res, nil, fmt.Errorf("p4-flowctl: messages, window and unexpected must be >= 1, size and work >= 0")
	}
	mp.Torus, mp.Wrap = "2x1x1", "mesh"
	j, err := NewJob(mp, p)
	if err != nil {
		return res, nil, err
	}
	size := uint64(c.Size)
	lim := ptl4.Limits{MaxMsgSize: max(size, 8), MaxEntries: c.Window + 16, MaxListSize: c.Window + 16,
		MaxUnexpectedHeaders: c.Unexpected, MaxMDs: 8}
	var start actors.Time
	j.Export(0, &res.Time, &res.Refused, &res.Resent)
	j.Export(1, &res.Disables, &res.Received, &res.Duplicates)
	for rank := range 2 {
		peer := j.PhysID(1 - rank)
		err := j.Spawn(rank, "p4-flowctl", func(l API) {
			ni := open(l, ptl4.NIPhysical|ptl4.NIMatching, lim)
			space := l.Memory()
			buf := space.Alloc(max(size, 8))
			if rank == 1 {
				flowTarget(l, ni, buf, size, peer, c, &res)
				return
			}
			eq, r := l.EQAlloc(ni, 2*c.Window+16)
			must(l, "PtlEQAlloc", r)
			pt, r := l.PTAlloc(ni, 0, eq, 0)
			must(l, "PtlPTAlloc", r)
			_, r = l.Append(ni, pt, ptl4.ME{Start: buf, Length: 8, Options: ptl4.MEOpPut, MatchID: anyID, MatchBits: flowResume,
				CT: ptl4.CTNone, UID: ptl4.UIDAny}, ptl4.Priority, 0, false)
			must(l, "PtlMEAppend", r)
			md, r := l.MDBind(ni, ptl4.MD{Start: buf, Length: size, EQ: eq, CT: ptl4.CTNone})
			must(l, "PtlMDBind", r)
			l.Barrier()
			start = l.Proc().Now()
			resumes := uint64(0)
			sentIn := make([]uint64, c.Messages)    // the resumes seen when each message was last sent
			var resend, waiting actors.FIFO[uint64] // to send now; to send after the next resume
			next, inflight, done := 0, 0, 0
			for done < c.Messages {
				for inflight < c.Window && (resend.Len() > 0 || next < c.Messages) {
					var idx uint64
					if resend.Len() > 0 {
						idx = resend.Pop()
						res.Resent++
					} else {
						idx = uint64(next)
						next++
					}
					sentIn[idx] = resumes
					must(l, "PtlPut", l.Start(ptl4.Args{Kind: ptl4.MsgPut, MD: md, Length: size, Ack: ptl4.Ack, Target: peer, PT: pt,
						Match: flowData + idx, UserPtr: idx, HdrData: idx}))
					inflight++
				}
				ev, r := l.EQWait(eq)
				must(l, "PtlEQWait", r)
				switch ev.Type {
				case ptl4.EvAck:
					inflight--
					if ev.NIFail != ptl4.NIPTDisabled {
						done++
						continue
					}
					res.Refused++
					if sentIn[ev.UserPtr] < resumes {
						resend.Push(ev.UserPtr) // that disable is over: at once
					} else {
						waiting.Push(ev.UserPtr) // after the target's next resume
					}
				case ptl4.EvPut: // the target re-enabled its entry
					resumes++
					for waiting.Len() > 0 {
						resend.Push(waiting.Pop())
					}
				}
			}
			res.Time = l.Proc().Now().Sub(start)
		})
		if err != nil {
			return res, nil, err
		}
	}
	rep, err := j.Run(ctx, opts)
	return res, rep, err
}

// Match bits of p4-flowctl: the resume, and message i's flowData+i.
const flowResume, flowData = 1, 1 << 32

// flowTarget is node 1: a portal with flow control whose overflow list takes every
// message as an unexpected header (the NI holds c.Unexpected); the host takes each
// message with a use-once receive matching it, which consumes its header, after c.Work
// on the one before; on PTL_EVENT_PT_DISABLED it drains its queue, re-enables the entry
// and sends the initiator a resume put.
func flowTarget(l API, ni ptl4.Handle, buf, size uint64, peer ptl4.ProcessID, c FlowCtlConfig, res *FlowCtlResult) {
	eq, r := l.EQAlloc(ni, 4*c.Messages+64)
	must(l, "PtlEQAlloc", r)
	pt, r := l.PTAlloc(ni, ptl4.PTFlowCtrl, eq, 0)
	must(l, "PtlPTAlloc", r)
	quiet := uint32(ptl4.MELinkDisable | ptl4.MEUnlinkDisable)
	_, r = l.Append(ni, pt, ptl4.ME{Start: buf, Length: size, Options: ptl4.MEOpPut | quiet, MatchID: anyID,
		MatchBits: flowData, IgnoreBits: flowData - 1, CT: ptl4.CTNone, UID: ptl4.UIDAny}, ptl4.Overflow, 0, false)
	must(l, "PtlMEAppend", r)
	md, r := l.MDBind(ni, ptl4.MD{Start: buf, Length: 8, EQ: ptl4.EQNone, CT: ptl4.CTNone})
	must(l, "PtlMDBind", r)
	l.Barrier()
	seen := make([]bool, c.Messages)
	var arrived actors.FIFO[uint64] // unexpected messages not taken yet
	handle := func(ev ptl4.Event) {
		switch ev.Type {
		case ptl4.EvPut: // landed on the overflow list: its header waits
			arrived.Push(ev.HdrData)
		case ptl4.EvPutOverflow: // taken by its receive: its header is free
			if seen[ev.HdrData] {
				res.Duplicates++
			} else {
				seen[ev.HdrData] = true
				res.Received++
			}
		}
	}
	takeOne := func() {
		idx := arrived.Pop()
		l.Proc().Compute(c.Work)
		_, r := l.Append(ni, pt, ptl4.ME{Start: buf, Length: size, Options: ptl4.MEOpPut | ptl4.MEUseOnce | quiet, MatchID: anyID,
			MatchBits: flowData + idx, CT: ptl4.CTNone, UID: ptl4.UIDAny}, ptl4.Priority, 0, false)
		must(l, "PtlMEAppend", r)
	}
	for res.Received < int64(c.Messages) {
		if arrived.Len() > 0 {
			takeOne()
		}
		ev, r := l.EQWait(eq)
		must(l, "PtlEQWait", r)
		if ev.Type != ptl4.EvPTDisabled {
			handle(ev)
			continue
		}
		res.Disables++
		for { // drain the queue, then take every message that arrived
			ev, r := l.EQGet(eq)
			if r == ptl4.EQEmpty {
				if arrived.Len() == 0 {
					break
				}
				takeOne()
				continue
			}
			must(l, "PtlEQGet", r)
			handle(ev)
		}
		must(l, "PtlPTEnable", l.PTEnable(ni, pt))
		must(l, "PtlPut", l.Start(ptl4.Args{Kind: ptl4.MsgPut, MD: md, Length: 8, Target: peer, PT: pt, Match: flowResume}))
	}
}

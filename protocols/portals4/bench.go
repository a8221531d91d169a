package portals4

import (
	"context"
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/machine"
	"github.com/seastar-sim/seastar/protocols/portals4/ptl4"
)

// The benchmarks run user programs over the host library (Lib) on a Job. A program
// that gets an unexpected return code ends the run (Fatalf), naming the call.

func must(l API, what string, r ptl4.Ret) {
	if r != ptl4.OK {
		l.Proc().Fatalf("portals4: %s: %s", what, r)
	}
}

// open initializes the library and an interface with desired limits.
func open(l API, opt uint32, lim ptl4.Limits) ptl4.Handle {
	must(l, "PtlInit", l.Init())
	ni, _, r := l.NIInit(ptl4.IfaceDef, opt, ptl4.PIDAny, &lim)
	must(l, "PtlNIInit", r)
	return ni
}

var anyID = ptl4.ProcessID{NID: ptl4.NIDAny, PID: ptl4.PIDAny}

// LatencyConfig is a p4-latency point.
type LatencyConfig struct {
	Op       string // put (ping-pong) or get
	Matching bool   // matching or non-matching interface
	Size     int64
	Iters    int
	Warmup   int
}

// Latency runs a put ping-pong (one-way latency: round trip / 2) or a get loop
// (latency: call to REPLY event) between nodes 0 and 1 of a 2-node line.
func Latency(ctx context.Context, mp machine.Params, p Params, c LatencyConfig, opts actors.Options) (actors.Duration, *actors.Report, error) {
	if c.Op != "put" && c.Op != "get" {
		return 0, nil, fmt.Errorf("p4-latency: unknown op %q (want put or get)", c.Op)
	}
	if c.Iters < 1 || c.Warmup < 0 || c.Size < 0 {
		return 0, nil, fmt.Errorf("p4-latency: iters must be >= 1, warmup and size >= 0")
	}
	mp.Torus, mp.Wrap = "2x1x1", "mesh"
	j, err := NewJob(mp, p)
	if err != nil {
		return 0, nil, err
	}
	opt := uint32(ptl4.NIPhysical | ptl4.NIMatching)
	if !c.Matching {
		opt = ptl4.NIPhysical | ptl4.NINoMatching
	}
	size := uint64(c.Size)
	var lat actors.Duration
	for rank := range 2 {
		peer := j.PhysID(1 - rank)
		err := j.Spawn(rank, "p4-latency", func(l API) {
			ni := open(l, opt, ptl4.Limits{MaxMsgSize: max(size, 1)})
			eq, r := l.EQAlloc(ni, 64)
			must(l, "PtlEQAlloc", r)
			pt, r := l.PTAlloc(ni, 0, eq, 0)
			must(l, "PtlPTAlloc", r)
			space := l.Memory()
			recv, send := space.Alloc(max(size, 1)), space.Alloc(max(size, 1))
			_, r = l.Append(ni, pt, ptl4.ME{Start: recv, Length: size, Options: ptl4.MEOpPut | ptl4.MEOpGet | ptl4.MELinkDisable,
				MatchID: anyID, CT: ptl4.CTNone, UID: ptl4.UIDAny}, ptl4.Priority, 0, !c.Matching)
			must(l, "PtlMEAppend", r)
			mdEQ := ptl4.EQNone
			if c.Op == "get" {
				mdEQ = eq
			}
			md, r := l.MDBind(ni, ptl4.MD{Start: send, Length: size, EQ: mdEQ, CT: ptl4.CTNone})
			must(l, "PtlMDBind", r)
			l.Barrier()
			var start actors.Time
			for it := range c.Warmup + c.Iters {
				if it == c.Warmup {
					start = l.Proc().Now()
				}
				switch {
				case c.Op == "get" && rank == 0:
					must(l, "PtlGet", l.Start(ptl4.Args{Kind: ptl4.MsgGet, MD: md, Length: size, Target: peer, PT: pt}))
					_, r = l.EQWait(eq)
					must(l, "PtlEQWait", r)
				case c.Op == "put":
					if rank == 1 {
						_, r = l.EQWait(eq)
						must(l, "PtlEQWait", r)
					}
					must(l, "PtlPut", l.Start(ptl4.Args{Kind: ptl4.MsgPut, MD: md, Length: size, Target: peer, PT: pt}))
					if rank == 0 {
						_, r = l.EQWait(eq)
						must(l, "PtlEQWait", r)
					}
				}
			}
			if rank == 0 {
				lat = l.Proc().Now().Sub(start) / actors.Duration(c.Iters)
				if c.Op == "put" {
					lat /= 2
				}
			}
			l.Barrier()
		})
		if err != nil {
			return 0, nil, err
		}
	}
	rep, err := j.Run(ctx, opts)
	return lat, rep, err
}

// MsgRateConfig is a p4-msgrate point.
type MsgRateConfig struct {
	Size       int64
	Messages   int  // timed messages
	Window     int  // messages in flight: receives the target keeps posted
	Priority   int  // length of the priority list each message walks (>= 1: the receive is last)
	Unexpected int  // unexpected headers each receive the target posts searches
	Persistent bool // one persistent receive instead of use-once receives reposted per window
}

// MsgRate measures messages per second from node 0 to node 1 on a matching
// interface, MPI style: the target keeps Window use-once receives posted behind
// Priority-1 entries that never match, and reposts them after each window, each
// append searching Unexpected unexpected headers that never match; the initiator
// sends a window of puts and waits for the target's go-ahead. Persistent keeps one
// persistent receive instead (no reposting): the rate the NIC sustains on its own.
func MsgRate(ctx context.Context, mp machine.Params, p Params, c MsgRateConfig, opts actors.Options) (float64, *actors.Report, error) {
	if c.Messages < 1 || c.Window < 1 || c.Priority < 1 || c.Unexpected < 0 || c.Size < 0 {
		return 0, nil, fmt.Errorf("p4-msgrate: messages, window and priority must be >= 1, unexpected and size >= 0")
	}
	mp.Torus, mp.Wrap = "2x1x1", "mesh"
	j, err := NewJob(mp, p)
	if err != nil {
		return 0, nil, err
	}
	const dataBits, junkBits, goBits = 1, 2, 3
	size := uint64(c.Size)
	lim := ptl4.Limits{MaxMsgSize: max(size, 1), MaxEntries: c.Priority + c.Window + 8, MaxListSize: c.Priority + c.Window + 8,
		MaxUnexpectedHeaders: c.Unexpected + 8, MaxMDs: 8}
	var rate float64
	windows := (c.Messages + c.Window - 1) / c.Window
	for rank := range 2 {
		peer := j.PhysID(1 - rank)
		err := j.Spawn(rank, "p4-msgrate", func(l API) {
			ni := open(l, ptl4.NIPhysical|ptl4.NIMatching, lim)
			eq, r := l.EQAlloc(ni, 2*c.Window+16)
			must(l, "PtlEQAlloc", r)
			pt, r := l.PTAlloc(ni, 0, eq, 0)
			must(l, "PtlPTAlloc", r)
			space := l.Memory()
			buf := space.Alloc(max(size, 1))
			quiet := uint32(ptl4.MELinkDisable | ptl4.MEUnlinkDisable)
			me := func(bits uint64, opts uint32, list ptl4.List) {
				_, r := l.Append(ni, pt, ptl4.ME{Start: buf, Length: size, Options: ptl4.MEOpPut | quiet | opts, MatchID: anyID,
					MatchBits: bits, CT: ptl4.CTNone, UID: ptl4.UIDAny}, list, 0, false)
				must(l, "PtlMEAppend", r)
			}
			md, r := l.MDBind(ni, ptl4.MD{Start: buf, Length: size, EQ: ptl4.EQNone, CT: ptl4.CTNone})
			must(l, "PtlMDBind", r)
			put := func(bits uint64, n uint64) {
				must(l, "PtlPut", l.Start(ptl4.Args{Kind: ptl4.MsgPut, MD: md, Length: n, Target: peer, PT: pt, Match: bits}))
			}
			if rank == 1 {
				for i := range c.Priority - 1 {
					me(uint64(1000+i), ptl4.MECommDisable, ptl4.Priority)
				}
				me(junkBits, ptl4.MECommDisable, ptl4.Overflow)
				if c.Persistent {
					me(dataBits, 0, ptl4.Priority)
				} else {
					for range c.Window {
						me(dataBits, ptl4.MEUseOnce, ptl4.Priority)
					}
				}
			} else {
				me(goBits, 0, ptl4.Priority)
			}
			l.Barrier()
			if rank == 0 {
				for range c.Unexpected {
					put(junkBits, 0)
				}
			}
			l.Barrier()
			start := l.Proc().Now()
			for w := range windows {
				n := min(c.Window, c.Messages-w*c.Window)
				if rank == 0 {
					for range n {
						put(dataBits, size)
					}
					_, r := l.EQWait(eq)
					must(l, "PtlEQWait", r)
					continue
				}
				for range n {
					_, r := l.EQWait(eq)
					must(l, "PtlEQWait", r)
				}
				if !c.Persistent {
					for range n {
						me(dataBits, ptl4.MEUseOnce, ptl4.Priority)
					}
				}
				put(goBits, 0)
			}
			if rank == 0 {
				rate = float64(c.Messages) / l.Proc().Now().Sub(start).Seconds()
			}
			l.Barrier()
		})
		if err != nil {
			return 0, nil, err
		}
	}
	rep, err := j.Run(ctx, opts)
	return rate, rep, err
}

// TrigConfig is a p4-trig point.
type TrigConfig struct {
	Nodes     int
	Iters     int
	Triggered bool // the barrier runs on triggered operations; else the host drives it
}

// TrigBarrier runs Iters binary-tree barriers over Nodes nodes (a line): arrivals
// flow up the tree as zero-byte puts counted by each node's arrival counter,
// releases flow down, counted by its release counter. Triggered: every put is a
// triggered operation registered before the timed loop, and the host only increments
// its arrival counter and waits on its release counter; host-driven: the host waits
// for its children and sends each put itself. It returns the mean barrier time seen
// by rank 0.
func TrigBarrier(ctx context.Context, mp machine.Params, p Params, c TrigConfig, opts actors.Options) (actors.Duration, *actors.Report, error) {
	if c.Nodes < 2 || c.Iters < 1 {
		return 0, nil, fmt.Errorf("p4-trig: nodes must be >= 2 and iters >= 1")
	}
	mp.Torus, mp.Wrap = fmt.Sprintf("%dx1x1", c.Nodes), "mesh"
	j, err := NewJob(mp, p)
	if err != nil {
		return 0, nil, err
	}
	const arrivePT, releasePT = 0, 1
	var lat actors.Duration
	for rank := range c.Nodes {
		var kids []int
		for _, k := range []int{2*rank + 1, 2*rank + 2} {
			if k < c.Nodes {
				kids = append(kids, k)
			}
		}
		parent := (rank - 1) / 2
		err := j.Spawn(rank, "p4-trig", func(l API) {
			trig := 0
			if c.Triggered {
				trig = c.Iters * (len(kids) + 2)
			}
			ni := open(l, ptl4.NIPhysical|ptl4.NINoMatching, ptl4.Limits{MaxTriggeredOps: trig + 8, MaxMsgSize: 8})
			arrive, r := l.CTAlloc(ni)
			must(l, "PtlCTAlloc", r)
			release, r := l.CTAlloc(ni)
			must(l, "PtlCTAlloc", r)
			buf := l.Memory().Alloc(8)
			for _, x := range []struct {
				pt uint32
				ct ptl4.Handle
			}{{arrivePT, arrive}, {releasePT, release}} {
				_, r := l.PTAlloc(ni, 0, ptl4.EQNone, x.pt)
				must(l, "PtlPTAlloc", r)
				_, r = l.Append(ni, x.pt, ptl4.ME{Start: buf, Length: 0, Options: ptl4.MEOpPut | ptl4.MECTComm,
					CT: x.ct, UID: ptl4.UIDAny}, ptl4.Priority, 0, true)
				must(l, "PtlLEAppend", r)
			}
			md, r := l.MDBind(ni, ptl4.MD{Start: buf, Length: 0, EQ: ptl4.EQNone, CT: ptl4.CTNone})
			must(l, "PtlMDBind", r)
			to := func(rank int, pt uint32) ptl4.Args {
				return ptl4.Args{Kind: ptl4.MsgPut, MD: md, Target: j.PhysID(rank), PT: pt}
			}
			up := uint64(len(kids) + 1) // arrivals per barrier: the children and the host itself
			if c.Triggered {
				for k := uint64(1); k <= uint64(c.Iters); k++ {
					if rank == 0 {
						must(l, "PtlTriggeredCTInc", l.TriggeredCT(release, ptl4.CTEvent{Success: 1}, false, arrive, k*up))
					} else {
						must(l, "PtlTriggeredPut", l.Triggered(to(parent, arrivePT), arrive, k*up))
					}
					for _, kid := range kids {
						if rank == 0 {
							must(l, "PtlTriggeredPut", l.Triggered(to(kid, releasePT), arrive, k*up))
						} else {
							must(l, "PtlTriggeredPut", l.Triggered(to(kid, releasePT), release, k))
						}
					}
				}
			}
			l.Barrier()
			start := l.Proc().Now()
			for k := uint64(1); k <= uint64(c.Iters); k++ {
				if c.Triggered {
					must(l, "PtlCTInc", l.CTInc(arrive, ptl4.CTEvent{Success: 1}))
					_, r := l.CTWait(release, k)
					must(l, "PtlCTWait", r)
					continue
				}
				if len(kids) > 0 {
					_, r := l.CTWait(arrive, k*uint64(len(kids)))
					must(l, "PtlCTWait", r)
				}
				if rank != 0 {
					must(l, "PtlPut", l.Start(to(parent, arrivePT)))
					_, r := l.CTWait(release, k)
					must(l, "PtlCTWait", r)
				}
				for _, kid := range kids {
					must(l, "PtlPut", l.Start(to(kid, releasePT)))
				}
			}
			if rank == 0 {
				lat = l.Proc().Now().Sub(start) / actors.Duration(c.Iters)
			}
			l.Barrier()
		})
		if err != nil {
			return 0, nil, err
		}
	}
	rep, err := j.Run(ctx, opts)
	return lat, rep, err
}

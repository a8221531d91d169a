package portals3

import (
	"context"
	"errors"
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/machine"
	"github.com/seastar-sim/seastar/ppc"
	"github.com/seastar-sim/seastar/protocols/portals3/ptl"
	"github.com/seastar-sim/seastar/router"
)

// Build adds a machine running generic-mode Portals on every node to g: the generic
// firmware on each PPC and the kernel stack on each host.
func Build(g *actors.Graph, mp machine.Params, p Params) (*machine.Machine, []*Stack, error) {
	if err := p.Validate(); err != nil {
		return nil, nil, err
	}
	if p.HeaderBytes+p.InlineMax+mp.TXDMA.CRCBytes > mp.TXDMA.PacketPayload {
		return nil, nil, fmt.Errorf("portals: header_bytes (%s) + inline_max (%s) + the CRC (%s) exceed a packet (%s): "+
			"the very small message path needs them in one packet", p.HeaderBytes, p.InlineMax, mp.TXDMA.CRCBytes, mp.TXDMA.PacketPayload)
	}
	m, err := machine.Build(g, mp, func(id router.NodeID) ppc.Firmware { return NewFirmware(id, p, mp.CAM, mp.TXDMA) })
	if err != nil {
		return nil, nil, err
	}
	stacks := make([]*Stack, len(m.Nodes))
	for i, n := range m.Nodes {
		stacks[i] = NewStack(p, n.ID, n.Host)
		if !mp.PPC.WriteThrough {
			stacks[i].mailboxRead = 2*mp.HT.Latency + mp.HT.SRAMLatency
		}
	}
	return m, stacks, nil
}

// PerfOp is a PortalPerf test (Brightwell et al. 2005 s.5.1).
type PerfOp string

// PortalPerf tests.
const (
	PerfPut   PerfOp = "put"   // ping-pong of puts; one-way latency = round trip / 2
	PerfGet   PerfOp = "get"   // gets; latency = time until REPLY_END
	PerfBidir PerfOp = "bidir" // both ranks put at once and wait for their SEND and PUT event pairs
)

// ParsePerfOp parses put, get or bidir.
func ParsePerfOp(s string) (PerfOp, error) {
	switch PerfOp(s) {
	case PerfPut, PerfGet, PerfBidir:
		return PerfOp(s), nil
	}
	return "", fmt.Errorf("unknown PortalPerf op %q (want put, get or bidir)", s)
}

// PerfConfig is a PortalPerf run.
type PerfConfig struct {
	Machine machine.Params
	Portals Params
	Op      PerfOp
	Sizes   []int64
	Iters   int          // timed iterations per size (the paper: 1000)
	Warmup  int          // untimed iterations per size
	Budget  actors.Bytes // per size, iterations are capped to max(MinIters, Budget/size); 0: no cap
	Min     int          // the least timed iterations per size under the budget
	Bridge  Bridge
	// MatchList is the number of match entries that do not match ahead of the
	// benchmark's entry on the target portal: every message walks them (the match
	// list length sweep of Dillow & Atchley 2011 s.III.B).
	MatchList int
}

// DefaultPerfConfig returns PortalPerf as the paper ran it: put, 0 B to 2 MB, 1000
// iterations, on two Catamount nodes one hop apart. A deterministic simulation repeats
// every iteration after the first few exactly, so the byte budget (1 MiB per size)
// caps large sizes without changing the result (tested).
func DefaultPerfConfig() PerfConfig {
	sizes := []int64{0}
	for s := int64(1); s <= 2<<20; s *= 2 {
		sizes = append(sizes, s)
	}
	return PerfConfig{Machine: machine.Default(), Portals: DefaultParams(), Op: PerfPut, Sizes: sizes, Iters: 1000,
		Warmup: 2, Budget: actors.MiB, Min: 2, Bridge: QKBridge}
}

// Validate checks the settings.
func (c PerfConfig) Validate() error {
	if err := validateSizes("portalperf", c.Sizes); err != nil {
		return err
	}
	switch {
	case c.Iters < 1:
		return fmt.Errorf("portalperf: iters must be >= 1 (got %d)", c.Iters)
	case c.Warmup < 0:
		return fmt.Errorf("portalperf: warmup must be >= 0 (got %d)", c.Warmup)
	case c.Min < 1:
		return fmt.Errorf("portalperf: min iterations must be >= 1 (got %d)", c.Min)
	case c.Budget < 0:
		return fmt.Errorf("portalperf: budget must be >= 0 (got %s)", c.Budget)
	case c.MatchList < 0:
		return fmt.Errorf("portalperf: match list length must be >= 0 (got %d)", c.MatchList)
	}
	if _, err := ParsePerfOp(string(c.Op)); err != nil {
		return err
	}
	_, err := ParseBridge(string(c.Bridge))
	return err
}

// iters is the timed iterations for a size.
func (c PerfConfig) iters(size int64) int { return budgetIters(c.Iters, c.Min, c.Budget, size) }

// budgetIters caps iters to budget/size, but not below least; a zero budget or size
// leaves iters as they are. A deterministic simulation repeats every iteration after
// the first few exactly, so the cap saves time without changing the result.
func budgetIters(iters, least int, budget actors.Bytes, size int64) int {
	if budget == 0 || size == 0 {
		return iters
	}
	return min(iters, max(least, int(int64(budget)/size)))
}

// validateSizes reports an empty size list or its first negative size, naming the
// benchmark.
func validateSizes(name string, sizes []int64) error {
	if len(sizes) == 0 {
		return fmt.Errorf("%s: no sizes", name)
	}
	for _, s := range sizes {
		if s < 0 {
			return fmt.Errorf("%s: negative size %d", name, s)
		}
	}
	return nil
}

// PerfRow is the result for one size.
type PerfRow struct {
	Op        PerfOp
	Size      int64
	Iters     int
	Latency   actors.Duration // put: round trip / 2; get: until REPLY_END; bidir: one exchange
	Bandwidth float64         // bytes per second: size / latency (bidir: both directions)
}

// PerfResult is a PortalPerf run.
type PerfResult struct {
	Rows   []PerfRow
	Report *actors.Report
	Stacks []*Stack
	Nodes  *machine.Machine
}

// Host memory of the benchmark buffers (page aligned; names, not real memory).
const (
	sendBuf = 0x1000_0000
	recvBuf = 0x4000_0000
	perfPt  = 0
	perfJID = 1
	perfUID = 1000
)

// PortalPerf runs the benchmark between nodes 0 and 1 of a two-node line.
func PortalPerf(ctx context.Context, cfg PerfConfig, opts actors.Options) (*PerfResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rows := make([]PerfRow, len(cfg.Sizes))
	rep, m, stacks, err := runPair(ctx, cfg.Machine, cfg.Portals, cfg.Bridge, "portalperf", opts, actors.Vars{&rows},
		func(pr *Process, rank int, peer ptl.ProcessID) error {
			return perfRank(pr, cfg, rank, peer, rows, opts.Work)
		})
	if errors.Is(err, actors.ErrInterrupted) && rep != nil {
		return &PerfResult{Rows: rows, Report: rep, Stacks: stacks, Nodes: m}, err // the sizes finished before
	}
	if err != nil {
		return nil, err
	}
	var perr error
	for i, r := range rows {
		if r.Iters == 0 {
			perr = errors.Join(perr, fmt.Errorf("portalperf: size %d did not complete", cfg.Sizes[i]))
		}
	}
	return &PerfResult{Rows: rows, Report: rep, Stacks: stacks, Nodes: m}, perr
}

// runPair runs prog as pid 0 on both nodes of a two-node line, one router hop apart:
// rank 0 on node 0, rank 1 on node 1, each with the other as peer. An error of prog
// ends the run, naming the program. results are what rank 0 fills in: across
// processes the other process gets them at the end, so that both read the same rows.
func runPair(ctx context.Context, mp machine.Params, p Params, bridge Bridge, name string, opts actors.Options,
	results actors.Vars, prog func(pr *Process, rank int, peer ptl.ProcessID) error) (*actors.Report, *machine.Machine, []*Stack, error) {
	mp.Torus, mp.Wrap = "2x1x1", "mesh"
	g := actors.NewGraph()
	m, stacks, err := Build(g, mp, p)
	if err != nil {
		return nil, nil, nil, err
	}
	m.ExportHost(g, 0, results...)
	for rank := range 2 {
		peer := ptl.ProcessID{NID: ptl.NID(1 - rank), PID: 0}
		err := stacks[rank].Spawn(fmt.Sprintf("%s[%d]", name, rank), 0, 0, perfJID, perfUID, bridge, func(pr *Process) {
			if err := prog(pr, rank, peer); err != nil {
				pr.p.Fatalf("%s: %v", name, err)
			}
		})
		if err != nil {
			return nil, nil, nil, err
		}
	}
	model, err := g.Build()
	if err != nil {
		return nil, nil, nil, err
	}
	rep, err := actors.Run(ctx, model, opts)
	return rep, m, stacks, err
}

// perfRank is the program of one rank. Memory descriptors are persistent and created
// before the timed iterations of each size (Brightwell et al. 2005 s.5.1).
// Rank 0 counts its iterations into work (progress reports only).
func perfRank(pr *Process, cfg PerfConfig, rank int, peer ptl.ProcessID, rows []PerfRow, work *actors.Work) error {
	maxSize := uint64(0)
	for _, s := range cfg.Sizes {
		maxSize = max(maxSize, uint64(s))
		if rank == 0 {
			work.Expect(int64(cfg.Warmup+cfg.iters(s)) * progressWeight(s))
		}
	}
	eq, err := pr.EQAlloc(4096)
	if err != nil {
		return err
	}
	for i := range cfg.MatchList { // entries that never match, walked by every message
		if _, err := pr.MEAttach(perfPt, ptl.MatchAny(), ptl.MatchBits(2+i), 0, ptl.Retain, ptl.InsAfter); err != nil {
			return fmt.Errorf("match list entry %d: %w", i, err)
		}
	}
	me, err := pr.MEAttach(perfPt, ptl.MatchAny(), 1, 0, ptl.Retain, ptl.InsAfter)
	if err != nil {
		return err
	}
	if _, err := pr.MDAttach(me, ptl.MD{Start: recvBuf, Length: max(maxSize, 1), Threshold: ptl.ThreshInf,
		Options: ptl.MDOpPut | ptl.MDOpGet | ptl.MDManageRemote | ptl.MDTruncate, EQ: eq}, ptl.Retain); err != nil {
		return err
	}
	for i, size := range cfg.Sizes {
		md, err := pr.MDBind(ptl.MD{Start: sendBuf, Length: uint64(size), Threshold: ptl.ThreshInf, EQ: eq}, ptl.Retain)
		if err != nil {
			return err
		}
		n := cfg.iters(size)
		var start actors.Time
		var early int // bidir: peer puts that arrived before this rank's own put ended
		for it := range cfg.Warmup + n {
			if it == cfg.Warmup {
				start = pr.Now()
			}
			if err := perfIteration(pr, cfg.Op, rank, md, eq, peer, &early); err != nil {
				return fmt.Errorf("size %d iteration %d: %w", size, it, err)
			}
			if rank == 0 {
				work.Done(progressWeight(size))
			}
		}
		elapsed := pr.Now().Sub(start)
		if err := drain(pr, eq, md); err != nil { // the last send may still be in flight
			return err
		}
		if rank == 0 { // the initiator's time; a get's target (rank 1) only serves
			rows[i] = perfRow(cfg.Op, size, n, elapsed)
		}
	}
	return nil
}

// progressWeight is what an iteration of size bytes counts for in progress reports:
// its bytes plus 4 KiB for the per-message work, so that the percentage follows wall
// time across small and large sizes. Display only: results do not depend on it.
func progressWeight(size int64) int64 { return size + 4096 }

// SizeProgress declares to work (Options.Work, progress reports only) the work of a
// benchmark rank that runs reps(size) iterations of each size, and returns what to
// call when a size is done. Only rank 0 counts; other ranks get a no-op.
func SizeProgress(work *actors.Work, rank int, sizes []int64, reps func(size int64) int) (sizeDone func(size int64)) {
	if rank != 0 || work == nil {
		return func(int64) {}
	}
	for _, s := range sizes {
		work.Expect(int64(reps(s)) * progressWeight(s))
	}
	return func(s int64) { work.Done(int64(reps(s)) * progressWeight(s)) }
}

// perfIteration is one timed step of a rank.
func perfIteration(pr *Process, op PerfOp, rank int, md ptl.MDHandle, eq ptl.EQHandle, peer ptl.ProcessID, early *int) error {
	put := func() error { return pr.Put(md, ptl.NoAckReq, peer, perfPt, 1, 0, 0) }
	switch op {
	case PerfPut:
		return pingPong(pr, eq, rank, put)
	case PerfGet:
		if rank == 1 {
			if pr.accel {
				// An accelerated target's library must be entered to turn the firmware's
				// records into GET events and release the pendings (the generic target
				// takes no part: the kernel's interrupt handler does that).
				_, err := pr.WaitFor(eq, ptl.EventGetEnd)
				return err
			}
			return nil // the NIC and the kernel serve the get
		}
		if err := pr.Get(md, peer, perfPt, 1, 0); err != nil {
			return err
		}
		_, err := pr.WaitFor(eq, ptl.EventReplyEnd)
		return err
	default: // bidir: send at once, wait for both event pairs
		return exchange(pr, eq, put, false, early)
	}
}

// pingPong is one round trip of puts: rank 0 puts and waits for the answer's PUT_END;
// rank 1 waits for PUT_END and puts back.
func pingPong(pr *Process, eq ptl.EQHandle, rank int, put func() error) error {
	if rank == 1 {
		if _, err := pr.WaitFor(eq, ptl.EventPutEnd); err != nil {
			return err
		}
		return put()
	}
	if err := put(); err != nil {
		return err
	}
	_, err := pr.WaitFor(eq, ptl.EventPutEnd)
	return err
}

func perfRow(op PerfOp, size int64, n int, elapsed actors.Duration) PerfRow {
	lat := elapsed / actors.Duration(n)
	bytes := float64(size)
	switch op {
	case PerfPut:
		lat /= 2
	case PerfBidir:
		bytes *= 2
	}
	return PerfRow{Op: op, Size: size, Iters: n, Latency: lat, Bandwidth: bytes / lat.Seconds()}
}

package portals3

import (
	"context"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/protocols/portals3/ptl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func accelerated(c *PerfConfig) { c.Portals.Mode = "accelerated" }

// Accelerated mode takes the interrupts and the kernel out of the data path
// (Brightwell et al. 2005 s.4.1): no interrupt on either host, and small-message
// latency well below generic mode's, by at least one interrupt's cost.
func TestAcceleratedPutHasNoInterrupts(t *testing.T) {
	cfg := DefaultPerfConfig()
	cfg.Sizes, cfg.Iters, cfg.Warmup = []int64{0, 1024}, 5, 1
	accelerated(&cfg)
	r, err := PortalPerf(context.Background(), cfg, serial)
	require.NoError(t, err)
	for _, n := range r.Nodes.Nodes {
		assert.Zero(t, n.Host.Stats.Interrupts, "%s", n.Name)
	}
	gen := perf(t, PerfPut, []int64{0, 1024}, 5, nil)
	irq := cfg.Machine.Host.InterruptCost
	for i, row := range r.Rows {
		assert.Less(t, row.Latency+irq, gen[i].Latency, "size %d: accelerated %s, generic %s", row.Size, row.Latency, gen[i].Latency)
	}
}

// Get and bidirectional put work in accelerated mode; the firmware serves gets
// itself.
func TestAcceleratedGetAndBidir(t *testing.T) {
	for _, op := range []PerfOp{PerfGet, PerfBidir} {
		acc := perf(t, op, []int64{0, 100 << 10}, 3, accelerated)
		gen := perf(t, op, []int64{0, 100 << 10}, 3, nil)
		assert.Less(t, acc[0].Latency, gen[0].Latency, "%s 0 B", op)
		assert.InDelta(t, gen[1].Bandwidth, acc[1].Bandwidth, gen[1].Bandwidth*0.1, "%s 100 KB: the DMA engines bound both", op)
	}
}

// Matching in firmware costs the PPC per entry walked; the host is faster per entry.
// With short lists accelerated mode wins, with long lists the generic host matching
// does (Dillow & Atchley 2011 s.III.B).
func TestMatchListCrossover(t *testing.T) {
	lat := func(mode string, n int) actors.Duration {
		cfg := DefaultPerfConfig()
		cfg.Sizes, cfg.Iters, cfg.Warmup, cfg.MatchList = []int64{0}, 3, 1, n
		cfg.Portals.Mode = mode
		r, err := PortalPerf(context.Background(), cfg, serial)
		require.NoError(t, err)
		return r.Rows[0].Latency
	}
	assert.Less(t, lat("accelerated", 0), lat("generic", 0))
	assert.Less(t, lat("accelerated", 16), lat("generic", 16))
	assert.Greater(t, lat("accelerated", 400), lat("generic", 400))
	// Each extra entry costs more in firmware than on the host.
	accSlope := lat("accelerated", 64) - lat("accelerated", 0)
	genSlope := lat("generic", 64) - lat("generic", 0)
	assert.Greater(t, accSlope, genSlope)
}

// Only contiguous memory in accelerated mode: an iovec MD is PTL_MD_ILLEGAL, in
// attach, bind and update.
func TestAcceleratedRejectsIovecMDs(t *testing.T) {
	iov := ptl.MD{Options: ptl.MDIovec | ptl.MDOpPut, Iov: []ptl.Region{{Addr: 0x1000, Len: 10}, {Addr: 0x3000, Len: 10}},
		Threshold: ptl.ThreshInf, EQ: ptl.EQNone}
	var attach, bind, update error
	err := scenarioMode(t, "accelerated", func(pr *Process) error {
		me, err := pr.MEAttach(1, ptl.MatchAny(), 1, 0, ptl.Retain, ptl.InsAfter)
		if err != nil {
			return err
		}
		_, attach = pr.MDAttach(me, iov, ptl.Retain)
		_, bind = pr.MDBind(iov, ptl.Retain)
		md, err := pr.MDBind(ptl.MD{Start: 0x1000, Length: 8, Threshold: ptl.ThreshInf, EQ: ptl.EQNone}, ptl.Retain)
		if err != nil {
			return err
		}
		_, update = pr.MDUpdate(md, &iov, ptl.EQNone)
		return nil
	}, func(*Process) error { return nil })
	require.NoError(t, err)
	for name, e := range map[string]error{"attach": attach, "bind": bind, "update": update} {
		assert.Equal(t, ptl.ErrMDIllegal, ptl.Code(e), name)
	}
}

// The match entries and MDs of an accelerated process live in SRAM: past
// portals.accel_objects, PTL_NO_SPACE.
func TestAcceleratedObjectsAreLimited(t *testing.T) {
	var errs []error
	err := scenarioMode(t, "accelerated", func(pr *Process) error {
		for i := range DefaultParams().AccelObjects + 1 {
			_, err := pr.MEAttach(1, ptl.MatchAny(), ptl.MatchBits(i), 0, ptl.Retain, ptl.InsAfter)
			errs = append(errs, err)
		}
		return nil
	}, func(*Process) error { return nil })
	require.NoError(t, err)
	for _, e := range errs[:len(errs)-1] {
		require.NoError(t, e)
	}
	assert.Equal(t, ptl.ErrNoSpace, ptl.Code(errs[len(errs)-1]))
}

// Generic and accelerated processes share a node: the firmware routes each message by
// its destination pid, to the kernel or to the accelerated process's own pendings.
// A node has a limited number of accelerated slots, and accelerated mode needs
// Catamount's contiguous memory.
func TestGenericAndAcceleratedCoexist(t *testing.T) {
	g := actors.NewGraph()
	mp := DefaultPerfConfig().Machine
	mp.Torus, mp.Wrap = "2x1x1", "mesh"
	_, stacks, err := Build(g, mp, DefaultParams())
	require.NoError(t, err)
	payload := func(b byte) []byte {
		p := make([]byte, 100)
		for i := range p {
			p[i] = b + byte(i)
		}
		return p
	}
	got := map[ptl.PID][]byte{1: make([]byte, 100), 2: make([]byte, 100), 3: make([]byte, 100)}
	done := map[ptl.PID]bool{}
	target := func(pid ptl.PID) func(*Process) {
		return func(pr *Process) {
			eq, _ := pr.EQAlloc(16)
			me, err := pr.MEAttach(0, ptl.MatchAny(), 9, 0, ptl.Retain, ptl.InsAfter)
			require.NoError(t, err)
			_, err = pr.MDAttach(me, ptl.MD{Start: 0x5000, Length: 100, Buf: got[pid], Threshold: ptl.ThreshInf,
				Options: ptl.MDOpPut, EQ: eq}, ptl.Retain)
			require.NoError(t, err)
			_, err = pr.WaitFor(eq, ptl.EventPutEnd)
			done[pid] = err == nil
		}
	}
	require.NoError(t, stacks[1].SpawnMode("generic", "g1", 0, 1, 1, 1000, QKBridge, target(1)))
	require.NoError(t, stacks[1].SpawnMode("accelerated", "a2", 0, 2, 1, 1000, QKBridge, target(2)))
	require.NoError(t, stacks[1].SpawnMode("accelerated", "a3", 0, 3, 1, 1000, QKBridge, target(3)))
	err = stacks[1].SpawnMode("accelerated", "a4", 0, 4, 1, 1000, QKBridge, target(4))
	assert.ErrorContains(t, err, "no accelerated slot left (portals.accel_processes = 2)")
	err = stacks[0].SpawnMode("accelerated", "linux", 0, 5, 1, 1000, UKBridge, target(5))
	assert.ErrorContains(t, err, "accelerated mode needs physically contiguous memory")
	require.NoError(t, stacks[0].SpawnMode("generic", "sender", 0, 0, 1, 1000, QKBridge, func(pr *Process) {
		pr.Proc().Compute(20 * actors.Microsecond) // the targets are set up
		eq, _ := pr.EQAlloc(64)
		for pid := ptl.PID(1); pid <= 3; pid++ {
			md, err := pr.MDBind(ptl.MD{Start: 0x1000, Length: 100, Buf: payload(byte(pid)), Threshold: ptl.ThreshInf, EQ: eq}, ptl.Retain)
			require.NoError(t, err)
			require.NoError(t, pr.Put(md, ptl.NoAckReq, ptl.ProcessID{NID: 1, PID: pid}, 0, 9, 0, 0))
		}
	}))
	m, err := g.Build()
	require.NoError(t, err)
	_, err = actors.Run(context.Background(), m, serial)
	require.NoError(t, err)
	for pid := ptl.PID(1); pid <= 3; pid++ {
		assert.True(t, done[pid], "pid %d", pid)
		assert.Equal(t, payload(byte(pid)), got[pid], "pid %d", pid)
	}
}

// A message that matches nothing at an accelerated process is dropped by the firmware:
// its payload is discarded, the drop counter counts it, no event is posted.
func TestAcceleratedDropsUnmatched(t *testing.T) {
	var drops uint64
	var events int
	err := scenarioMode(t, "accelerated", func(pr *Process) error {
		eq, _ := pr.EQAlloc(64)
		md, _ := pr.MDBind(ptl.MD{Start: 0x1000, Length: 4096, Threshold: ptl.ThreshInf, EQ: eq}, ptl.Retain)
		if err := pr.Put(md, ptl.NoAckReq, node1, 4, 8, 0, 0); err != nil { // bits 8: nothing matches
			return err
		}
		_, err := pr.WaitFor(eq, ptl.EventSendEnd)
		return err
	}, func(pr *Process) error {
		eq, _ := pr.EQAlloc(64)
		me, _ := pr.MEAttach(4, ptl.MatchAny(), 7, 0, ptl.Retain, ptl.InsAfter)
		if _, err := pr.MDAttach(me, ptl.MD{Start: 0x5000, Length: 4096, Threshold: ptl.ThreshInf, Options: ptl.MDOpPut, EQ: eq}, ptl.Retain); err != nil {
			return err
		}
		pr.Proc().Compute(40 * actors.Microsecond)
		drops, _ = pr.Status(ptl.SRDropCount)
		events, _ = pr.EQCount(eq)
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, uint64(1), drops)
	assert.Zero(t, events)
}

// Accelerated mode is as deterministic as the rest: same digest for every engine.
func TestAcceleratedDeterministicAcrossEngines(t *testing.T) {
	cfg := DefaultPerfConfig()
	cfg.Sizes, cfg.Iters, cfg.Warmup, cfg.Op = []int64{0, 13, 5000}, 2, 1, PerfGet
	accelerated(&cfg)
	sameDigest(t, func(o actors.Options) *actors.Report {
		r, err := PortalPerf(context.Background(), cfg, o)
		require.NoError(t, err)
		return r.Report
	}, serial, actors.Options{Workers: 1}, actors.Options{Workers: 2})
}

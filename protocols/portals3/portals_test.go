package portals3

import (
	"context"
	"fmt"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/protocols/portals3/ptl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var serial = actors.Options{Engine: actors.Serial}

func perf(t *testing.T, op PerfOp, sizes []int64, iters int, tweak func(*PerfConfig)) []PerfRow {
	t.Helper()
	cfg := DefaultPerfConfig()
	cfg.Op, cfg.Sizes, cfg.Iters, cfg.Warmup = op, sizes, iters, 1
	if tweak != nil {
		tweak(&cfg)
	}
	r, err := PortalPerf(context.Background(), cfg, serial)
	require.NoError(t, err)
	return r.Rows
}

func within(t *testing.T, got, want, tol float64, what string) {
	t.Helper()
	assert.InDelta(t, want, got, want*tol, "%s: got %.4g, want %.4g +-%.0f%%", what, got, want, 100*tol)
}

// Calibration (docs/design.md s.6; Brightwell et al. 2005 s.6): PortalPerf put, zero bytes, one way:
// 4.89 us; bandwidth 1051 MB/s at 100 KB and about 1108 MB/s at 2 MB.
func TestCalibrationPortalPerfPut(t *testing.T) {
	rows := perf(t, PerfPut, []int64{0, 100 << 10, 2 << 20}, 2, nil)
	within(t, rows[0].Latency.Microseconds(), 4.89, 0.05, "0 B one-way latency (us)")
	within(t, rows[1].Bandwidth/1e6, 1051.43, 0.05, "100 KB bandwidth (MB/s)")
	within(t, rows[2].Bandwidth/1e6, 1108, 0.05, "2 MB bandwidth (MB/s)")
}

// The very small message path (Pedretti & Hudson 2005 s.5.2): up to 12 bytes ride in
// the header packet and save the second interrupt, so latency steps up at 13 bytes by
// at least an interrupt's cost.
func TestInlineLimitStep(t *testing.T) {
	rows := perf(t, PerfPut, []int64{12, 13}, 3, nil)
	step := rows[1].Latency - rows[0].Latency
	assert.Greater(t, step, DefaultPerfConfig().Machine.Host.InterruptCost, "12 B %s, 13 B %s", rows[0].Latency, rows[1].Latency)
}

// Linux user processes (ukbridge) push one DMA command per 4 KB page and pin each
// page; Catamount (qkbridge) sends one command for a contiguous buffer: the extra cost
// shows in large-message bandwidth.
func TestLinuxPagesCostBandwidth(t *testing.T) {
	qk := perf(t, PerfPut, []int64{1 << 20}, 2, nil)
	uk := perf(t, PerfPut, []int64{1 << 20}, 2, func(c *PerfConfig) { c.Bridge = UKBridge })
	assert.Less(t, uk[0].Bandwidth, qk[0].Bandwidth*0.98, "ukbridge %.1f MB/s vs qkbridge %.1f MB/s", uk[0].Bandwidth/1e6, qk[0].Bandwidth/1e6)
}

// Turning off the PPC's caches makes every firmware handler slower: small-message
// latency grows (Pedretti & Hudson 2005 s.5.1).
func TestCachesOffSlowSmallMessages(t *testing.T) {
	on := perf(t, PerfPut, []int64{0}, 3, nil)
	off := perf(t, PerfPut, []int64{0}, 3, func(c *PerfConfig) { c.Machine.PPC.ICache, c.Machine.PPC.DCache = false, false })
	assert.Greater(t, off[0].Latency, on[0].Latency+200*actors.Nanosecond, "on %s off %s", on[0].Latency, off[0].Latency)
}

// Get and bidirectional put run, and cost more than a put (Brightwell et al. 2005 s.6).
// Without the write-through technique (Pedretti & Hudson 2005 s.5.3) every FIFO,
// control-block and mailbox pointer read is uncached and the host reads a mailbox's
// head across HyperTransport before each command: small messages get slower in both
// modes, and by the same amount at every size (the cost is per command, not per byte).
func TestWriteThroughSaving(t *testing.T) {
	for _, mode := range []string{"generic", "accelerated"} {
		off := func(c *PerfConfig) { c.Machine.PPC.WriteThrough, c.Portals.Mode = false, mode }
		on := func(c *PerfConfig) { c.Portals.Mode = mode }
		a := perf(t, PerfPut, []int64{0, 8}, 10, on)
		b := perf(t, PerfPut, []int64{0, 8}, 10, off)
		for i := range a {
			saving := b[i].Latency - a[i].Latency
			assert.Greater(t, saving, 200*actors.Nanosecond, "%s, %d B: saving %s", mode, a[i].Size, saving)
			assert.Less(t, saving, 2*actors.Microsecond, "%s, %d B: saving %s", mode, a[i].Size, saving)
		}
		assert.Equal(t, b[0].Latency-a[0].Latency, b[1].Latency-a[1].Latency, mode)
	}
}

func TestGetAndBidir(t *testing.T) {
	put := perf(t, PerfPut, []int64{0, 64 << 10}, 2, nil)
	get := perf(t, PerfGet, []int64{0, 64 << 10}, 2, nil)
	bid := perf(t, PerfBidir, []int64{0, 64 << 10}, 2, nil)
	assert.Greater(t, get[0].Latency, put[0].Latency)
	assert.Greater(t, bid[0].Latency, put[0].Latency)
	assert.Greater(t, bid[1].Bandwidth, put[1].Bandwidth, "both directions count")
}

// The same benchmark gives the same digest under every engine.
func TestDeterministicAcrossEngines(t *testing.T) {
	cfg := DefaultPerfConfig()
	cfg.Sizes, cfg.Iters, cfg.Warmup = []int64{0, 13, 5000}, 2, 1
	sameDigest(t, func(o actors.Options) *actors.Report {
		r, err := PortalPerf(context.Background(), cfg, o)
		require.NoError(t, err)
		return r.Report
	}, serial, actors.Options{Workers: 1}, actors.Options{Workers: 2}, actors.Options{Workers: 2, Partitioner: actors.Block{}})
}

// sameDigest runs a simulation under each of the engine options and asserts that all
// give the digest of the first.
func sameDigest(t *testing.T, run func(actors.Options) *actors.Report, opts ...actors.Options) {
	t.Helper()
	var digests []string
	for _, o := range opts {
		digests = append(digests, run(o).Digest)
	}
	for _, d := range digests[1:] {
		assert.Equal(t, digests[0], d)
	}
}

// scenario runs two generic processes (node 0 and node 1) with the given programs.
func scenario(t *testing.T, p0, p1 func(*Process) error) error {
	t.Helper()
	return scenarioMode(t, "generic", p0, p1)
}

// scenarioMode is scenario with processes in mode.
func scenarioMode(t *testing.T, mode string, p0, p1 func(*Process) error) error {
	t.Helper()
	_, err := scenarioStacks(t, mode, p0, p1)
	return err
}

// scenarioStacks is scenarioMode that also returns the two nodes' stacks.
func scenarioStacks(t *testing.T, mode string, p0, p1 func(*Process) error) ([]*Stack, error) {
	t.Helper()
	g := actors.NewGraph()
	mp := DefaultPerfConfig().Machine
	mp.Torus, mp.Wrap = "2x1x1", "mesh"
	_, stacks, err := Build(g, mp, DefaultParams())
	require.NoError(t, err)
	for i, prog := range []func(*Process) error{p0, p1} {
		require.NoError(t, stacks[i].SpawnMode(mode, fmt.Sprintf("p%d", i), 0, 0, 1, 1000, QKBridge, func(pr *Process) {
			if err := prog(pr); err != nil {
				pr.Proc().Fatalf("%v", err)
			}
		}))
	}
	m, err := g.Build()
	require.NoError(t, err)
	_, err = actors.Run(context.Background(), m, serial)
	return stacks, err
}

// A process woken by its event queue's bell takes every event on the queue before it
// waits again, so the events posted meanwhile ring no bell of their own: once the
// processes are done, no bell (and no event) is left in host memory, however closely
// the events came (here twenty puts sent back to back).
func TestNoBellOutlivesItsWait(t *testing.T) {
	const puts = 20
	var got int
	stacks, err := scenarioStacks(t, "generic", func(pr *Process) error {
		eq, _ := pr.EQAlloc(64)
		me, err := pr.MEAttach(4, ptl.MatchAny(), 7, 0, ptl.Retain, ptl.InsAfter)
		if err != nil {
			return err
		}
		if _, err := pr.MDAttach(me, ptl.MD{Start: 0x5000, Length: 64, Threshold: ptl.ThreshInf, Options: ptl.MDOpPut | ptl.MDManageRemote, EQ: eq}, ptl.Retain); err != nil {
			return err
		}
		for got < puts {
			if _, err := pr.WaitFor(eq, ptl.EventPutEnd); err != nil {
				return err
			}
			got++
		}
		return nil
	}, func(pr *Process) error {
		eq, _ := pr.EQAlloc(64)
		md, _ := pr.MDBind(ptl.MD{Start: 0x1000, Length: 64, Threshold: ptl.ThreshInf, EQ: eq}, ptl.Retain)
		pr.Proc().Compute(10 * actors.Microsecond) // the target's entries are attached
		for range puts {
			if err := pr.Put(md, ptl.NoAckReq, ptl.ProcessID{NID: 0, PID: 0}, 4, 7, 0, 0); err != nil {
				return err
			}
		}
		for range puts {
			if _, err := pr.WaitFor(eq, ptl.EventSendEnd); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, puts, got)
	for i, s := range stacks {
		assert.Zero(t, s.cpu.Entries(), "node %d: entries left in host memory", i)
	}
}

var node1 = ptl.ProcessID{NID: 1, PID: 0}

// Data correctness through the whole machine: the bytes a put carries land at the
// remote offset of the target buffer, with an ack when asked, and a get brings the
// target's bytes back.
func TestPutAndGetDataLandAtTheRightOffset(t *testing.T) {
	for _, mode := range []string{"generic", "accelerated"} {
		t.Run(mode, func(t *testing.T) { dataLands(t, mode) })
	}
}

func dataLands(t *testing.T, mode string) {
	src := make([]byte, 300)
	for i := range src {
		src[i] = byte(i)
	}
	dst := make([]byte, 1000)
	back := make([]byte, 300)
	var acked, replied bool
	err := scenarioMode(t, mode, func(pr *Process) error {
		eq, _ := pr.EQAlloc(64)
		md, err := pr.MDBind(ptl.MD{Start: 0x1000, Length: 300, Buf: src, Threshold: ptl.ThreshInf, EQ: eq}, ptl.Retain)
		if err != nil {
			return err
		}
		if err := pr.Put(md, ptl.AckReqd, node1, 4, 7, 100, 0); err != nil {
			return err
		}
		ev, err := pr.WaitFor(eq, ptl.EventAck)
		acked = err == nil && ev.MLength == 300
		gmd, _ := pr.MDBind(ptl.MD{Start: 0x9000, Length: 300, Buf: back, Threshold: ptl.ThreshInf, EQ: eq}, ptl.Retain)
		if err := pr.Get(gmd, node1, 4, 7, 100); err != nil {
			return err
		}
		_, err = pr.WaitFor(eq, ptl.EventReplyEnd)
		replied = err == nil
		return err
	}, func(pr *Process) error {
		eq, _ := pr.EQAlloc(64)
		me, err := pr.MEAttach(4, ptl.MatchAny(), 7, 0, ptl.Retain, ptl.InsAfter)
		if err != nil {
			return err
		}
		_, err = pr.MDAttach(me, ptl.MD{Start: 0x5000, Length: 1000, Buf: dst, Threshold: ptl.ThreshInf,
			Options: ptl.MDOpPut | ptl.MDOpGet | ptl.MDManageRemote, EQ: eq}, ptl.Retain)
		return err
	})
	require.NoError(t, err)
	assert.True(t, acked)
	assert.True(t, replied)
	assert.Equal(t, src, dst[100:400])
	assert.Equal(t, make([]byte, 100), dst[:100])
	assert.Equal(t, src, back)
}

// A message from a job the match entry does not accept is dropped: no event at the
// target, the drop counter counts it, and the sender's put completes normally.
func TestMismatchedJobIsDropped(t *testing.T) {
	var drops uint64
	var events int
	err := scenario(t, func(pr *Process) error {
		eq, _ := pr.EQAlloc(64)
		md, _ := pr.MDBind(ptl.MD{Start: 0x1000, Length: 64, Threshold: ptl.ThreshInf, EQ: eq}, ptl.Retain)
		if err := pr.Put(md, ptl.NoAckReq, node1, 4, 7, 0, 0); err != nil {
			return err
		}
		_, err := pr.WaitFor(eq, ptl.EventSendEnd)
		pr.Proc().Compute(20 * actors.Microsecond)
		return err
	}, func(pr *Process) error {
		eq, _ := pr.EQAlloc(64)
		id := ptl.MatchAny()
		id.JID = 99 // the sender runs in job 1
		me, _ := pr.MEAttach(4, id, 7, 0, ptl.Retain, ptl.InsAfter)
		_, err := pr.MDAttach(me, ptl.MD{Start: 0x5000, Length: 64, Threshold: ptl.ThreshInf, Options: ptl.MDOpPut, EQ: eq}, ptl.Retain)
		pr.Proc().Compute(15 * actors.Microsecond)
		drops, _ = pr.Status(ptl.SRDropCount)
		events, _ = pr.EQCount(eq)
		return err
	})
	require.NoError(t, err)
	assert.Equal(t, uint64(1), drops)
	assert.Zero(t, events)
}

// Resource exhaustion panics the node with a clear error, as the C firmware does: here
// more puts in flight than the host's TX pendings.
func TestTxPendingExhaustionPanics(t *testing.T) {
	cfg := DefaultPerfConfig()
	cfg.Portals.TxPendings = 2
	cfg.Portals.Pendings = 10
	g := actors.NewGraph()
	mp := cfg.Machine
	mp.Torus, mp.Wrap = "2x1x1", "mesh"
	_, stacks, err := Build(g, mp, cfg.Portals)
	require.NoError(t, err)
	require.NoError(t, stacks[0].Spawn("burst", 0, 0, 1, 1000, QKBridge, func(pr *Process) {
		eq, _ := pr.EQAlloc(64)
		md, _ := pr.MDBind(ptl.MD{Start: 0x1000, Length: 8, Threshold: ptl.ThreshInf, EQ: eq}, ptl.Retain)
		for range 3 {
			_ = pr.Put(md, ptl.NoAckReq, node1, 0, 0, 0, 0)
		}
	}))
	m, err := g.Build()
	require.NoError(t, err)
	_, err = actors.Run(context.Background(), m, serial)
	var se *actors.SimError
	require.ErrorAs(t, err, &se)
	assert.Contains(t, se.Msg, "out of TX pendings (2 in flight): resource exhaustion")
	assert.Equal(t, "node[0,0,0].host", se.Actor)
}

// The byte budget of PortalPerf relies on a deterministic ping-pong repeating every
// iteration after the warm-up exactly: one timed iteration gives the same latency as
// twenty, to the picosecond.
func TestIterationsRepeatExactly(t *testing.T) {
	sizes := []int64{0, 8, 64 << 10}
	one := perf(t, PerfPut, sizes, 1, nil)
	many := perf(t, PerfPut, sizes, 20, nil)
	for i := range sizes {
		assert.Equal(t, one[i].Latency, many[i].Latency, "size %d", sizes[i])
	}
}

// recovery=gbn: with 5% of arriving messages lost (data, acknowledgements and
// refusals alike), put, get and bidirectional PortalPerf complete; the C firmware's
// behaviour loses a message and the benchmark never finishes. Without loss, go-back-n
// costs its acknowledgements: latency rises a little.
func TestGoBackNRecoversLostMessages(t *testing.T) {
	lossy := func(recovery string) func(*PerfConfig) {
		return func(c *PerfConfig) {
			c.Machine.RXDMA.DropRate = actors.MustParseProb("0.05")
			c.Portals.Recovery = recovery
		}
	}
	for _, mode := range []string{"generic", "accelerated"} {
		for _, op := range []PerfOp{PerfPut, PerfGet, PerfBidir} {
			rows := perf(t, op, []int64{0, 8, 64 << 10}, 20, func(c *PerfConfig) {
				lossy("gbn")(c)
				c.Portals.Mode = mode
			})
			for _, r := range rows {
				assert.Positive(t, r.Iters, "%s %s %d", mode, op, r.Size)
			}
		}
	}
	cfg := DefaultPerfConfig()
	cfg.Op, cfg.Sizes, cfg.Iters, cfg.Warmup = PerfPut, []int64{0}, 100, 1
	lossy("panic")(&cfg)
	_, err := PortalPerf(context.Background(), cfg, serial)
	require.ErrorContains(t, err, "did not complete", "a lost message stays lost")

	plain := perf(t, PerfPut, []int64{0}, 2, nil)
	gbn := perf(t, PerfPut, []int64{0}, 2, func(c *PerfConfig) { c.Portals.Recovery = "gbn" })
	assert.Greater(t, gbn[0].Latency, plain[0].Latency)
	assert.Less(t, gbn[0].Latency, plain[0].Latency*3/2)
}

// recovery=gbn: a target with one RX pending refuses what it cannot take and the
// sender resends; the C firmware panics the node. In accelerated mode the pool is
// the process's own, and the acks the firmware owes wait for a pending too.
func TestGoBackNRefusesOnExhaustion(t *testing.T) {
	burst := func(mode, recovery string) (*Firmware, int, error) {
		cfg := DefaultPerfConfig()
		cfg.Portals.Mode, cfg.Portals.Recovery = mode, recovery
		cfg.Portals.Pendings = cfg.Portals.TxPendings + 1           // one RX pending
		cfg.Portals.AccelPendings = cfg.Portals.AccelTxPendings + 1 // one for an accelerated process
		g := actors.NewGraph()
		mp := cfg.Machine
		mp.Torus, mp.Wrap = "2x1x1", "mesh"
		m, stacks, err := Build(g, mp, cfg.Portals)
		require.NoError(t, err)
		require.NoError(t, stacks[1].Spawn("sink", 0, 0, 1, 1000, QKBridge, func(pr *Process) {
			eq, _ := pr.EQAlloc(4096)
			me, _ := pr.MEAttach(0, ptl.MatchAny(), 0, 0, ptl.Retain, ptl.InsAfter)
			_, _ = pr.MDAttach(me, ptl.MD{Start: 0x2000, Length: 64 << 10, Threshold: ptl.ThreshInf,
				Options: ptl.MDOpPut | ptl.MDManageRemote | ptl.MDTruncate, EQ: eq}, ptl.Retain)
			for range 40 {
				_, _ = pr.WaitFor(eq, ptl.EventPutEnd)
			}
		}))
		acks := 0
		require.NoError(t, stacks[0].Spawn("burst", 0, 0, 1, 1000, QKBridge, func(pr *Process) {
			eq, _ := pr.EQAlloc(4096)
			md, _ := pr.MDBind(ptl.MD{Start: 0x1000, Length: 8, Threshold: ptl.ThreshInf, EQ: eq}, ptl.Retain)
			for i := range 40 {
				ack := ptl.NoAckReq
				if i%2 == 0 {
					ack = ptl.AckReqd
				}
				_ = pr.Put(md, ack, node1, 0, 0, 0, 0)
			}
			for sent := 0; sent < 40 || acks < 20; {
				ev, err := pr.EQWait(eq)
				if err != nil {
					return
				}
				switch ev.Type {
				case ptl.EventSendEnd:
					sent++
				case ptl.EventAck:
					acks++
				}
			}
		}))
		model, err := g.Build()
		require.NoError(t, err)
		_, err = actors.Run(context.Background(), model, serial)
		return m.Nodes[1].PPC.Firmware().(*Firmware), acks, err
	}
	for _, mode := range []string{"generic", "accelerated"} {
		_, _, err := burst(mode, "panic")
		require.ErrorContains(t, err, "resource exhaustion panics the node", mode)
		fw, acks, err := burst(mode, "gbn")
		require.NoError(t, err, mode)
		assert.EqualValues(t, 40, fw.Stats.Received, mode)
		assert.Equal(t, 20, acks, mode)
		assert.Positive(t, fw.GBN.Refused, "%s: refused for want of an RX pending", mode)
	}
}

// recovery=gbn: when every message is lost, the sender resends portals.retries times,
// then gives up: the put's SEND_END carries PTL_NI_FAIL.
func TestGoBackNGivesUpWithNIFail(t *testing.T) {
	for _, mode := range []string{"generic", "accelerated"} {
		t.Run(mode, func(t *testing.T) { givesUp(t, mode) })
	}
}

func givesUp(t *testing.T, mode string) {
	cfg := DefaultPerfConfig()
	cfg.Portals.Recovery, cfg.Portals.Retries, cfg.Portals.Mode = "gbn", 3, mode
	cfg.Machine.RXDMA.DropRate = actors.MustParseProb("1")
	g := actors.NewGraph()
	mp := cfg.Machine
	mp.Torus, mp.Wrap = "2x1x1", "mesh"
	m, stacks, err := Build(g, mp, cfg.Portals)
	require.NoError(t, err)
	var ev ptl.Event
	require.NoError(t, stacks[0].Spawn("lost", 0, 0, 1, 1000, QKBridge, func(pr *Process) {
		eq, _ := pr.EQAlloc(64)
		md, _ := pr.MDBind(ptl.MD{Start: 0x1000, Length: 8, Threshold: ptl.ThreshInf, EQ: eq}, ptl.Retain)
		_ = pr.Put(md, ptl.NoAckReq, node1, 0, 0, 0, 0)
		ev, _ = pr.WaitFor(eq, ptl.EventSendEnd)
	}))
	model, err := g.Build()
	require.NoError(t, err)
	_, err = actors.Run(context.Background(), model, serial)
	require.NoError(t, err)
	assert.Equal(t, ptl.NIFail, ev.NIFailType)
	fw := m.Nodes[0].PPC.Firmware().(*Firmware)
	assert.EqualValues(t, 1, fw.GBN.Failed)
	assert.EqualValues(t, 3, fw.GBN.Retransmits)
}

// recovery=gbn: a get whose request never arrives ends, once the sender gives up, with
// REPLY_END and PTL_NI_FAIL.
func TestGoBackNFailedGetEndsWithNIFail(t *testing.T) {
	for _, mode := range []string{"generic", "accelerated"} {
		t.Run(mode, func(t *testing.T) { failedGet(t, mode) })
	}
}

func failedGet(t *testing.T, mode string) {
	cfg := DefaultPerfConfig()
	cfg.Portals.Recovery, cfg.Portals.Retries, cfg.Portals.Mode = "gbn", 2, mode
	cfg.Machine.RXDMA.DropRate = actors.MustParseProb("1")
	g := actors.NewGraph()
	mp := cfg.Machine
	mp.Torus, mp.Wrap = "2x1x1", "mesh"
	_, stacks, err := Build(g, mp, cfg.Portals)
	require.NoError(t, err)
	var ev ptl.Event
	require.NoError(t, stacks[0].Spawn("lost-get", 0, 0, 1, 1000, QKBridge, func(pr *Process) {
		eq, _ := pr.EQAlloc(64)
		md, _ := pr.MDBind(ptl.MD{Start: 0x1000, Length: 8, Threshold: ptl.ThreshInf, Options: ptl.MDOpGet, EQ: eq}, ptl.Retain)
		_ = pr.Get(md, node1, 0, 0, 0)
		ev, _ = pr.WaitFor(eq, ptl.EventReplyEnd)
	}))
	model, err := g.Build()
	require.NoError(t, err)
	_, err = actors.Run(context.Background(), model, serial)
	require.NoError(t, err)
	assert.Equal(t, ptl.NIFail, ev.NIFailType)
}

// Two puts in flight at once into one MD, each at an offset inside its region: the
// second's header is delivered while the first's payload is still coming, and each
// payload lands at its own offset (a delivery's regions outlive the next delivery
// where the payload is written later: ptl.Delivery.KeepRegions).
func TestPutsInFlightLandAtTheirOffsets(t *testing.T) {
	for _, mode := range []string{"generic", "accelerated"} {
		t.Run(mode, func(t *testing.T) {
			a, b := make([]byte, 300), make([]byte, 300)
			for i := range a {
				a[i], b[i] = byte(i), byte(255-i)
			}
			dst := make([]byte, 1000)
			acks := 0
			err := scenarioMode(t, mode, func(pr *Process) error {
				eq, _ := pr.EQAlloc(64)
				ma, err := pr.MDBind(ptl.MD{Start: 0x1000, Length: 300, Buf: a, Threshold: ptl.ThreshInf, EQ: eq}, ptl.Retain)
				if err != nil {
					return err
				}
				mb, err := pr.MDBind(ptl.MD{Start: 0x2000, Length: 300, Buf: b, Threshold: ptl.ThreshInf, EQ: eq}, ptl.Retain)
				if err != nil {
					return err
				}
				if err := pr.Put(ma, ptl.AckReqd, node1, 4, 7, 100, 0); err != nil {
					return err
				}
				if err := pr.Put(mb, ptl.AckReqd, node1, 4, 7, 500, 0); err != nil {
					return err
				}
				for range 2 {
					if _, err := pr.WaitFor(eq, ptl.EventAck); err != nil {
						return err
					}
					acks++
				}
				return nil
			}, func(pr *Process) error {
				eq, _ := pr.EQAlloc(64)
				me, err := pr.MEAttach(4, ptl.MatchAny(), 7, 0, ptl.Retain, ptl.InsAfter)
				if err != nil {
					return err
				}
				_, err = pr.MDAttach(me, ptl.MD{Start: 0x5000, Length: 1000, Buf: dst, Threshold: ptl.ThreshInf,
					Options: ptl.MDOpPut | ptl.MDManageRemote, EQ: eq}, ptl.Retain)
				return err
			})
			require.NoError(t, err)
			require.Equal(t, 2, acks)
			assert.Equal(t, a, dst[100:400])
			assert.Equal(t, b, dst[500:800])
			assert.Equal(t, make([]byte, 100), dst[400:500])
		})
	}
}

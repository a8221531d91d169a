package rxdma

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/seastar-sim/seastar/cam"
	"github.com/seastar-sim/seastar/ht"
	"github.com/seastar-sim/seastar/router"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Random messages from several sources, interleaved in the FIFO, each covered by 1-3
// RX commands of arbitrary lengths (some discarding): the engine's writes are the
// packets cut at command boundaries, in FIFO order (the dumb model below), Done
// follows every notifying command in the order commands retire, every packet returns
// its credit on its own VC, and the writes in flight never exceed the limit.
func TestDispositionMatchesCommandModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p := unitParams()
	p.OutstandingWrites = 3
	b := &bench{e: New(&p, 4), ackLatency: 150 * actors.Nanosecond, cam: map[router.NodeID][]cam.Command{}}
	h, _ := actorstest.NewHarness("rx", b, 1)
	peak := 0
	b.after = func() {
		peak = max(peak, b.e.writes)
		require.LessOrEqual(t, b.e.writes, p.OutstandingWrites)
	}

	// Build the traffic: per source, messages and their commands.
	type piece struct {
		src   router.NodeID
		bytes int64
	}
	var (
		stream    [][]*router.Packet // per source, in order
		wantWrite []int64            // write sizes, FIFO order
		wantDone  []uint64
		discarded int64
		tag       uint64
	)
	for src := range router.NodeID(5) {
		var pkts []*router.Packet
		for range 12 {
			n := 1 + rng.Int64N(300)
			for off, seq := int64(0), int32(0); off < n; off, seq = off+64, seq+1 {
				pkts = append(pkts, &router.Packet{Src: src, Payload: int32(min(64, n-off)), SOM: off == 0,
					EOM: off+64 >= n, Seq: seq, VC: uint8(rng.IntN(4))})
			}
			for left := n; left > 0; {
				c := cam.Command{Bytes: min(left, 1+rng.Int64N(200)), Discard: rng.IntN(5) == 0, Notify: true, Tag: tag}
				tag++
				left -= c.Bytes
				b.cam[src] = append(b.cam[src], c)
			}
		}
		stream = append(stream, pkts)
	}
	// Interleave the sources at random and work out the expected disposition.
	cmdIdx, cmdLeft := make([]int, 5), make([]int64, 5)
	var order []*router.Packet
	for {
		var live []int
		for s := range stream {
			if len(stream[s]) > 0 {
				live = append(live, s)
			}
		}
		if len(live) == 0 {
			break
		}
		s := live[rng.IntN(len(live))]
		pk := stream[s][0]
		stream[s] = stream[s][1:]
		order = append(order, pk)
		for rest := int64(pk.Payload); rest > 0; {
			if cmdLeft[s] == 0 {
				cmdLeft[s] = b.cam[router.NodeID(s)][cmdIdx[s]].Bytes
			}
			c := b.cam[router.NodeID(s)][cmdIdx[s]]
			n := min(rest, cmdLeft[s])
			rest -= n
			cmdLeft[s] -= n
			if c.Discard {
				discarded += n
			} else {
				wantWrite = append(wantWrite, n)
			}
			if cmdLeft[s] == 0 {
				wantDone = append(wantDone, c.Tag)
				cmdIdx[s]++
			}
		}
	}
	for i, pk := range order {
		h.Inject(actors.Time(actors.Duration(i)*100*actors.Nanosecond), PortRouter, pk)
	}
	out := h.Run(actors.MaxTime)

	var gotWrite []int64
	for _, w := range actorstest.MsgsOf[*ht.Write](out) {
		assert.Equal(t, ht.Host, w.To)
		assert.True(t, w.Ack)
		gotWrite = append(gotWrite, int64(w.Bytes))
	}
	assert.Equal(t, wantWrite, gotWrite)
	var gotDone []uint64
	for _, d := range actorstest.MsgsOf[*Done](out) {
		gotDone = append(gotDone, d.Tag)
		assert.True(t, d.CRCOK)
	}
	assert.Equal(t, wantDone, gotDone)
	credits := actorstest.MsgsOf[router.Credit](out)
	require.Len(t, credits, len(order))
	for i, c := range credits {
		assert.Equal(t, router.Credit(order[i].VC), c, "credit %d", i)
	}
	assert.Equal(t, discarded, b.e.Stats.Discarded)
	assert.Equal(t, p.OutstandingWrites, peak, "the write limit was reached")
	assert.Zero(t, b.e.n)
	assert.Empty(t, b.e.cmds)
	som := 0
	for _, pk := range order {
		if pk.SOM {
			som++
		}
	}
	assert.Len(t, actorstest.MsgsOf[SOM](out), som)
}

// A full packet goes through the data path at the DMA rate plus the per-packet
// overhead: 64 B at 1.1 GB/s is 58.182ns, + 4ns.
func TestPacketsDrainAtTheDMARate(t *testing.T) {
	b := &bench{e: New(new(unitParams()), 4), ackLatency: 50 * actors.Nanosecond,
		cam: map[router.NodeID][]cam.Command{1: {{Bytes: 64 * 10}}}}
	h, _ := actorstest.NewHarness("rx", b, 1)
	for i := range 10 {
		h.Inject(0, PortRouter, &router.Packet{Src: 1, Payload: 64, SOM: i == 0, EOM: i == 9, Seq: int32(i)})
	}
	var at []actors.Time
	for _, s := range h.Run(actors.MaxTime) {
		if _, ok := s.Msg.(*ht.Write); ok {
			at = append(at, s.At)
		}
	}
	require.Len(t, at, 10)
	assert.Equal(t, actors.Time(2000+62182), at[0], "the grant comes 2ns after the lookup")
	for i := 1; i < 10; i++ {
		assert.Equal(t, actors.Duration(62182), at[i].Sub(at[i-1]))
	}
}

func TestModelBugsAreFatal(t *testing.T) {
	p := unitParams()
	p.FIFOPackets = 2
	e := New(&p, 2)
	ctx := actorstest.New("rx", 1)
	pk := func() *router.Packet { return &router.Packet{Src: 1, Payload: 64} }
	got := actorstest.Catch(func() {
		for range 3 {
			ctx.Deliver(e, 0, PortRouter, pk())
		}
	})
	assert.Contains(t, got, "rxdma: RX FIFO overflow (2 packets): the router sent without a credit")
	got = actorstest.Catch(func() { ctx.Deliver(e, 0, PortPPC, cam.Stalled{}) })
	assert.Contains(t, got, "rxdma: unexpected cam.Stalled")
}

func TestParams(t *testing.T) {
	p := DefaultParams()
	require.NoError(t, p.Validate())
	assert.Equal(t, 64, p.Credits(4), "128 packets over 2 traffic classes")
	assert.Equal(t, 1, Params{FIFOPackets: 1}.Credits(4), "at least one credit per VC")
	for key, mut := range map[string]func(*Params){
		"fifo_packets":       func(p *Params) { p.FIFOPackets = 0 },
		"dma_bandwidth":      func(p *Params) { p.DMABandwidth = 0 },
		"packet_overhead":    func(p *Params) { p.PacketOverhead = -1 },
		"outstanding_writes": func(p *Params) { p.OutstandingWrites = 0 },
	} {
		q := DefaultParams()
		mut(&q)
		assert.ErrorContains(t, q.Validate(), key)
	}
}

// source plays the router's NIC port: it sends its packets as credits allow.
type source struct {
	pkts    []*router.Packet
	credits int
	got     []string
}

func (s *source) Ports() []string          { return []string{"eject"} }
func (s *source) Start(ctx actors.Context) { s.send(ctx) }
func (s *source) Receive(ctx actors.Context, m actors.Msg) {
	s.got = append(s.got, fmt.Sprintf("%s %s", ctx.Now(), m))
	s.credits++
	s.send(ctx)
}
func (s *source) send(ctx actors.Context) {
	for s.credits > 0 && len(s.pkts) > 0 {
		ctx.Send(0, s.pkts[0], 30*actors.Nanosecond)
		s.pkts = s.pkts[1:]
		s.credits--
	}
}

// firmware plays the PPC: on each SOM it binds the source to a CAM entry (once) and
// pushes one command for the message, told the length by the packet's Data.
type firmware struct {
	entries map[router.NodeID]int
	got     []string
}

func (f *firmware) Ports() []string { return []string{"cam", "rxdma"} }
func (f *firmware) Receive(ctx actors.Context, m actors.Msg) {
	f.got = append(f.got, fmt.Sprintf("%s %s", ctx.Now(), m))
	som, ok := m.(SOM)
	if !ok {
		return
	}
	src := som.Packet.Src
	e, bound := f.entries[src]
	if !bound {
		e = len(f.entries)
		f.entries[src] = e
		ctx.Send(0, cam.SetEntry{Entry: e, Src: src}, 0)
	}
	n := som.Packet.Data.(int64)
	if n == 0 {
		ctx.Send(1, Discard{Packet: som.Packet}, 10*actors.Nanosecond)
		return
	}
	ctx.Send(0, cam.PushCommand{Entry: e, Cmd: cam.Command{Bytes: n, Notify: true, Tag: uint64(som.Packet.Seq)}}, 10*actors.Nanosecond)
}

// The engine with the real CAM and HT link, a scripted PPC and a router port gives
// the same history under the serial engine and the parallel engine with one partition
// per actor.
func TestEngineRunSerialAndParallelAgree(t *testing.T) {
	run := func(opts actors.Options) (*actors.Report, *source, *firmware) {
		g := actors.NewGraph()
		var pkts []*router.Packet
		for i, n := range []int64{100, 0, 64, 300, 0, 10, 200} {
			src := router.NodeID(1 + i%3)
			for off, seq := int64(0), int32(0); off < n || (n == 0 && seq == 0); off, seq = off+64, seq+1 {
				pkts = append(pkts, &router.Packet{Src: src, Payload: int32(min(64, n-off)), SOM: off == 0,
					EOM: off+64 >= n, Seq: seq, VC: uint8(2 * (i % 2)), Data: n}) // ejection VCs: 2*class
			}
		}
		p := unitParams()
		p.FIFOPackets = 8
		s := &source{pkts: pkts, credits: p.Credits(4) * 2}
		f := &firmware{entries: map[router.NodeID]int{}}
		rx, link, cb := New(&p, 4), ht.New(new(ht.DefaultParams())), cam.NewBlock(cam.DefaultParams())
		rs, rf, rr, rl, rc := g.Add("n.router", s), g.Add("n.ppc", f), g.Add("n.rxdma", rx), g.Add("n.ht", link), g.Add("n.cam", cb)
		g.Connect(rs.Port("eject"), rr.Port("router"), 2*actors.Nanosecond)
		g.Connect(rf.Port("cam"), rc.Port("ppc"), actors.Nanosecond)
		g.Connect(rf.Port("rxdma"), rr.Port("ppc"), actors.Nanosecond)
		g.Connect(rc.Port("rxdma"), rr.Port("cam"), actors.Nanosecond)
		g.Connect(rr.Port("ht"), rl.Port("rxdma"), actors.Nanosecond)
		for _, u := range []string{"host", "ppc", "txdma"} {
			g.Unconnected(rl.Port(u))
		}
		m, err := g.Build()
		require.NoError(t, err)
		rep, err := actors.Run(context.Background(), m, opts)
		require.NoError(t, err)
		assert.Equal(t, int64(100+64+300+10+200), rx.Stats.Bytes)
		assert.Equal(t, int64(len(pkts)), rx.Stats.Packets)
		return rep, s, f
	}
	r1, s1, f1 := run(actors.Options{Engine: actors.Serial})
	r2, s2, f2 := run(actors.Options{Engine: actors.Parallel, Workers: 2, Partitioner: actors.Block{}})
	assert.Equal(t, r1.Digest, r2.Digest)
	assert.Equal(t, r1.Events, r2.Events)
	assert.Equal(t, s1.got, s2.got)
	assert.Equal(t, f1.got, f2.got)
}

// unitParams is the engine the hand-worked timings in these tests (and testdata) assume:
// 1.1 GB/s plus 4ns per packet, so that a full packet takes 62.182ns. The defaults are
// calibrated separately (params.go); the tests pin the rates they reason about.
func unitParams() Params {
	p := DefaultParams()
	p.DMABandwidth, p.PacketOverhead = 1100*actors.MBPerSecond, 4*actors.Nanosecond
	return p
}

// Packets from router.NewPacket are recycled once they leave the FIFO (Release zeroes
// them), except the first packet of a message, which the PPC was told of and may
// still name; packets built otherwise are never touched.
func TestPooledPacketsReleasedAfterTheFIFO(t *testing.T) {
	b := &bench{e: New(new(unitParams()), 4), ackLatency: 50 * actors.Nanosecond,
		cam: map[router.NodeID][]cam.Command{1: {{Bytes: 64 * 3}}, 2: {{Bytes: 64 * 2}}}}
	h, _ := actorstest.NewHarness("rx", b, 1)
	var pooled []*router.Packet
	for i := range 3 {
		p := router.NewPacket(router.Packet{Src: 1, Payload: 64, SOM: i == 0, EOM: i == 2, Seq: int32(i)})
		pooled = append(pooled, p)
		h.Inject(0, PortRouter, p)
	}
	plain := []*router.Packet{{Src: 2, Payload: 64, SOM: true, Seq: 0}, {Src: 2, Payload: 64, EOM: true, Seq: 1}}
	for _, p := range plain {
		h.Inject(0, PortRouter, p)
	}
	h.Run(actors.MaxTime)
	require.Equal(t, int64(5), b.e.Stats.Packets)
	assert.True(t, pooled[0].SOM && pooled[0].Src == 1 && pooled[0].Payload == 64, "a first packet is kept: %v", pooled[0])
	assert.Equal(t, router.Packet{}, *pooled[1], "released")
	assert.Equal(t, router.Packet{}, *pooled[2], "released")
	assert.Equal(t, router.NodeID(2), plain[1].Src, "a packet not from NewPacket is left alone")
	assert.Equal(t, int32(64), plain[1].Payload)
}

package txdma

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/seastar-sim/seastar/ht"
	"github.com/seastar-sim/seastar/router"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newTestBench returns a harness on an engine of node 0 whose memory answers reads in
// 300ns and whose router returns credits 100ns after each packet.
func newTestBench(t *testing.T, p Params) (*actorstest.Harness, *bench) {
	t.Helper()
	require.NoError(t, p.Validate())
	b := &bench{e: New(&p, 0, router.NewInjector(router.DefaultParams())),
		memLatency: 300 * actors.Nanosecond, memGap: 22500, creditLatency: 100 * actors.Nanosecond}
	h, _ := actorstest.NewHarness("node[0,0,0].txdma", b, 1)
	return h, b
}

// writeMessage writes the commands of one message at time at.
func writeMessage(h *actorstest.Harness, at actors.Time, dst router.NodeID, class uint8, data any, crc, notify bool, tag uint64, chunks ...int64) int {
	h.Inject(at, PortPPC, &Command{Kind: LoadDest, Dst: dst, Class: class, Data: data})
	for _, n := range chunks {
		h.Inject(at, PortPPC, &Command{Kind: Transmit, Bytes: n, Addr: 0x1000})
	}
	h.Inject(at, PortPPC, &Command{Kind: EndMessage, CRC: crc, Notify: notify, Tag: tag})
	return 2 + len(chunks)
}

// Dillow & Atchley 2011, s.II: the TX engine breaks a message into 64-byte packets,
// marks the first with Start-Of-Message, and end message may append a 32-bit CRC.
func TestTransmitTwoHundredBytesMakesFourPackets(t *testing.T) {
	for _, crc := range []bool{false, true} {
		t.Run(fmt.Sprintf("crc=%v", crc), func(t *testing.T) {
			h, _ := newTestBench(t, unitParams())
			writeMessage(h, 0, 5, 1, label("m"), crc, true, 7, 200)
			out := h.Run(actors.MaxTime)
			ps := actorstest.MsgsOf[*router.Packet](out)
			require.Len(t, ps, 4)
			last := int32(8)
			if crc {
				last = 12
			}
			for i, p := range ps {
				assert.Equal(t, router.NodeID(0), p.Src)
				assert.Equal(t, router.NodeID(5), p.Dst)
				assert.Equal(t, uint8(1), p.Class)
				assert.Equal(t, uint8(2), p.VC, "class 1 enters on VC 2")
				assert.Equal(t, label("m"), p.Data)
				assert.Equal(t, int32(i), p.Seq)
				assert.Equal(t, i == 0, p.SOM, "SOM on #%d", i)
				assert.Equal(t, i == 3, p.EOM, "EOM on #%d", i)
				assert.Equal(t, []int32{64, 64, 64, last}[i], p.Payload)
			}
			assert.Equal(t, []Done{{Tag: 7}}, doneValues(out))
			assert.Equal(t, []uint64{1, 3}, retiredTotals(out))
		})
	}
}

// expectedPayloads is the dumb model of packetization: the message is a byte stream
// of its data and CRC cut into packets of pp bytes; an empty message is one empty
// packet.
func expectedPayloads(total, pp int64) []int32 {
	if total == 0 {
		return []int32{0}
	}
	var r []int32
	for ; total > 0; total -= pp {
		r = append(r, int32(min(total, pp)))
	}
	return r
}

// Random messages (data split over 1-3 transmit commands, with or without CRC) give
// the packets of the byte-stream model, numbered from 0 with SOM on the first and EOM
// on the last; reads never exceed outstanding_reads nor the staging buffer.
func TestPacketizationMatchesByteStreamModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	p := unitParams()
	p.OutstandingReads, p.BufferBytes = 3, 256
	h, b := newTestBench(t, p)
	type want struct {
		dst      router.NodeID
		payloads []int32
	}
	var wants []want
	commands := 0
	at := actors.Time(0)
	for i := range 200 {
		n := rng.Int64N(400)
		if i%10 == 0 {
			n = 64 * rng.Int64N(4) // exact multiples, including the empty message
		}
		var chunks []int64
		for left := n; left > 0; {
			c := min(left, 1+rng.Int64N(200))
			chunks = append(chunks, c)
			left -= c
		}
		crc := rng.IntN(2) == 0
		total := n
		if crc {
			total += int64(p.CRCBytes)
		}
		dst := router.NodeID(1 + i%7)
		wants = append(wants, want{dst, expectedPayloads(total, int64(p.PacketPayload))})
		commands += writeMessage(h, at, dst, 0, i, crc, true, uint64(i), chunks...)
		// Keep within the FIFO: one message every 2us is much slower than the engine.
		at = at.Add(2 * actors.Microsecond)
	}
	peak := 0
	b.after = func() {
		peak = max(peak, b.e.readsOut)
		require.LessOrEqual(t, b.e.readsOut, p.OutstandingReads)
		require.LessOrEqual(t, b.e.staged, int64(p.BufferBytes))
	}
	out := h.Run(actors.MaxTime)
	assert.Equal(t, p.OutstandingReads, peak, "reads run ahead up to the limit")
	ps := actorstest.MsgsOf[*router.Packet](out)
	i := 0
	for m, w := range wants {
		for k, pl := range w.payloads {
			require.Less(t, i, len(ps))
			pk := ps[i]
			i++
			assert.Equal(t, m, pk.Data, "packet %d", i)
			assert.Equal(t, w.dst, pk.Dst)
			assert.Equal(t, pl, pk.Payload, "message %d packet %d", m, k)
			assert.Equal(t, int32(k), pk.Seq)
			assert.Equal(t, k == 0, pk.SOM)
			assert.Equal(t, k == len(w.payloads)-1, pk.EOM)
		}
	}
	assert.Len(t, ps, i)
	done := doneValues(out)
	require.Len(t, done, len(wants))
	for i, d := range done {
		assert.Equal(t, uint64(i), d.Tag)
	}
	retired := retiredTotals(out)
	assert.Equal(t, uint64(commands), retired[len(retired)-1])
	assert.Equal(t, int64(len(wants)), b.e.Stats.Messages)
}

// Rate of a long message: the slower of the data path (64 B / DMA bandwidth + packet
// overhead) and the injection link (64 B at the link rate).
func TestStreamRateIsTheSlowerStage(t *testing.T) {
	for _, tc := range []struct {
		dma  actors.Bandwidth
		want actors.Duration
	}{
		{1100 * actors.MBPerSecond, 62182}, // 58.182ns + 4ns: data path bound, 1.029 GB/s
		{2000 * actors.MBPerSecond, 36000}, // 32ns + 4ns: still the data path
		{10 * actors.GBPerSecond, 25600},   // 10.4ns < 25.6ns: link bound, 2.5 GB/s
	} {
		t.Run(tc.dma.String(), func(t *testing.T) {
			p := unitParams()
			p.DMABandwidth, p.OutstandingReads = tc.dma, 32
			h, b := newTestBench(t, p)
			b.memGap = 10 * actors.Nanosecond
			writeMessage(h, 0, 1, 0, nil, false, false, 0, 64*64)
			var times []actors.Time
			for _, s := range h.Run(actors.MaxTime) {
				if _, ok := s.Msg.(*router.Packet); ok {
					times = append(times, s.At)
				}
			}
			require.Len(t, times, 64)
			for i := 2; i < 63; i++ { // the first owes decode, the last waits for end-message
				assert.Equal(t, tc.want, times[i].Sub(times[i-1]), "gap before packet %d", i)
			}
		})
	}
}

// Without credits the engine holds its processed packet and counts the stall; a
// credit resumes it at once.
func TestCreditStallResumesOnCredit(t *testing.T) {
	rp := router.DefaultParams()
	rp.InputBufferPackets = 1
	b := &bench{e: New(new(unitParams()), 0, router.NewInjector(rp)), memLatency: 300 * actors.Nanosecond}
	h, _ := actorstest.NewHarness("tx", b, 1)
	writeMessage(h, 0, 1, 0, nil, false, false, 0, 128)
	ps := actorstest.MsgsOf[*router.Packet](h.Run(actors.MaxTime))
	require.Len(t, ps, 1)
	// #1 was ready at 300 + 70.182 + 66.182 = 436.364ns.
	h.Inject(actors.Time(actors.Microsecond), PortRouter, router.Credit(0))
	out := h.Run(actors.MaxTime)
	require.Len(t, actorstest.MsgsOf[*router.Packet](out), 1)
	assert.Equal(t, actors.Time(actors.Microsecond+25600), out[0].At)
	assert.Equal(t, actors.Duration(actors.Microsecond-436364), b.e.Stats.CreditStall)
}

func TestWriterBugsAreFatal(t *testing.T) {
	for name, tc := range map[string]struct {
		msgs []actors.Msg
		want string
	}{
		"fifo overflow": {[]actors.Msg{&Command{Kind: LoadDest}, &Command{Kind: Transmit, Bytes: 8}, &Command{Kind: Transmit, Bytes: 8}},
			"command FIFO overflow (1 entries)"},
		"transmit first":   {[]actors.Msg{&Command{Kind: Transmit, Bytes: 8}}, "without a message (load destination first)"},
		"end packet first": {[]actors.Msg{&Command{Kind: EndPacket}}, "without a message"},
		"end message first": {[]actors.Msg{&Command{Kind: LoadDest}, &Command{Kind: EndMessage},
			&Command{Kind: EndMessage}}, "txdma.Command(end-message) without a message"},
		"bad kind":       {[]actors.Msg{&Command{Kind: 9}}, "malformed command txdma.Command(kind9)"},
		"pio fifo":       {[]actors.Msg{&PIO{}, &PIO{}}, "PIO command FIFO overflow (1 entries)"},
		"pio too big":    {[]actors.Msg{&PIO{Bytes: 300}}, "PIO message of 300B does not fit the 256B PIO buffer"},
		"unexpected msg": {[]actors.Msg{label("x")}, "txdma: unexpected txdma.label"},
		"early read":     {[]actors.Msg{&ht.ReadDone{Tag: 0}}, "read #0 completed out of order (expected #0)"},
	} {
		t.Run(name, func(t *testing.T) {
			p := unitParams()
			p.CommandsMax, p.PIOCommandsMax = 1, 1
			e := New(&p, 0, router.NewInjector(router.DefaultParams()))
			ctx := actorstest.New("tx", 1)
			got := actorstest.Catch(func() {
				for _, m := range tc.msgs {
					ctx.Deliver(e, 0, PortPPC, m)
				}
			})
			assert.Contains(t, got, tc.want)
		})
	}
}

// Done carries the PIO flag for PIO messages; Retired counts DMA commands only.
func TestDoneAndRetired(t *testing.T) {
	h, _ := newTestBench(t, unitParams())
	writeMessage(h, 0, 1, 0, nil, true, true, 1, 10)
	writeMessage(h, 0, 2, 0, nil, false, false, 2) // no notify
	h.Inject(0, PortPPC, &PIO{Dst: 3, Bytes: 16, Notify: true, Tag: 3})
	out := h.Run(actors.MaxTime)
	assert.Equal(t, []Done{{Tag: 3, PIO: true}, {Tag: 1}}, doneValues(out))
	r := retiredTotals(out)
	assert.Equal(t, uint64(5), r[len(r)-1])
}

func TestParamsValidate(t *testing.T) {
	require.NoError(t, DefaultParams().Validate())
	for key, mut := range map[string]func(*Params){
		"commands_max":      func(p *Params) { p.CommandsMax = 0 },
		"dma_bandwidth":     func(p *Params) { p.DMABandwidth = 0 },
		"buffer_bytes":      func(p *Params) { p.BufferBytes = 32 },
		"outstanding_reads": func(p *Params) { p.OutstandingReads = 0 },
		"pio_commands_max":  func(p *Params) { p.PIOCommandsMax = 0 },
	} {
		p := unitParams()
		mut(&p)
		assert.ErrorContains(t, p.Validate(), key)
	}
}

// feeder plays the PPC in an engine run: it writes its commands at time zero and
// records what the engine reports.
type feeder struct {
	cmds []actors.Msg
	got  []string
}

func (f *feeder) Ports() []string { return []string{"txdma"} }
func (f *feeder) Start(ctx actors.Context) {
	for i, c := range f.cmds {
		ctx.Send(0, c, actors.Duration(i)*actors.Nanosecond)
	}
}
func (f *feeder) Receive(ctx actors.Context, m actors.Msg) {
	f.got = append(f.got, fmt.Sprintf("%s %s", ctx.Now(), m))
}

// sink plays the router's NIC port: it records packets and returns each credit after
// its input buffer drains the packet.
type sink struct{ got []string }

func (s *sink) Ports() []string { return []string{"inject"} }
func (s *sink) Receive(ctx actors.Context, m actors.Msg) {
	p := m.(*router.Packet)
	s.got = append(s.got, fmt.Sprintf("%s %s", ctx.Now(), p))
	ctx.Send(0, router.Credit(p.VC), 40*actors.Nanosecond)
}

// The engine with the real HT link, a scripted PPC and a router sink gives the same
// history under the serial engine and the parallel engine with one partition per
// actor.
func TestEngineRunSerialAndParallelAgree(t *testing.T) {
	run := func(opts actors.Options) (*actors.Report, *feeder, *sink) {
		g := actors.NewGraph()
		var cmds []actors.Msg
		for i := range 6 {
			cmds = append(cmds, &Command{Kind: LoadDest, Dst: router.NodeID(i % 3)},
				&Command{Kind: Transmit, Bytes: int64(100 * i)},
				&Command{Kind: EndMessage, CRC: i%2 == 0, Notify: true, Tag: uint64(i)})
		}
		cmds = append(cmds, &PIO{Dst: 1, Bytes: 100, Notify: true, Tag: 99})
		f, s := &feeder{cmds: cmds}, &sink{}
		link := ht.New(new(ht.DefaultParams()))
		tx := New(new(unitParams()), 7, router.NewInjector(router.DefaultParams()))
		rf, rs, rl, rt := g.Add("node.ppc", f), g.Add("node.router", s), g.Add("node.ht", link), g.Add("node.txdma", tx)
		g.Connect(rf.Port("txdma"), rt.Port("ppc"), actors.Nanosecond)
		g.Connect(rt.Port("router"), rs.Port("inject"), 2*actors.Nanosecond)
		g.Connect(rt.Port("ht"), rl.Port("txdma"), actors.Nanosecond)
		for _, u := range []string{"host", "ppc", "rxdma"} {
			g.Unconnected(rl.Port(u))
		}
		m, err := g.Build()
		require.NoError(t, err)
		rep, err := actors.Run(context.Background(), m, opts)
		require.NoError(t, err)
		return rep, f, s
	}
	r1, f1, s1 := run(actors.Options{Engine: actors.Serial})
	r2, f2, s2 := run(actors.Options{Engine: actors.Parallel, Workers: 2, Partitioner: actors.Block{}})
	assert.Equal(t, r1.Digest, r2.Digest)
	assert.Equal(t, r1.Events, r2.Events)
	assert.Equal(t, f1.got, f2.got)
	assert.Equal(t, s1.got, s2.got)
	assert.Len(t, s1.got, 1+2+4+5+7+8+2) // messages of 0..500 B (+CRC on even ones), PIO of 2
	dones := 0
	for _, s := range f1.got {
		if strings.Contains(s, "txdma.Done") {
			dones++
		}
	}
	assert.Equal(t, 7, dones)
}

// unitParams is the engine the hand-worked timings in these tests (and testdata) assume:
// 1.1 GB/s plus 4ns per packet, so that a full packet takes 62.182ns. The defaults are
// calibrated separately (params.go); the tests pin the rates they reason about.
func unitParams() Params {
	p := DefaultParams()
	p.DMABandwidth, p.PacketOverhead = 1100*actors.MBPerSecond, 4*actors.Nanosecond
	return p
}

// doneValues returns the Dones the engine sent, as values without their pool mark.
// retiredTotals returns the totals of the Retired messages in out, in order.
func retiredTotals(out []actorstest.Sent) []uint64 {
	var ts []uint64
	for _, r := range actorstest.MsgsOf[*Retired](out) {
		ts = append(ts, r.Total)
	}
	return ts
}

func doneValues(out []actorstest.Sent) []Done {
	var ds []Done
	for _, d := range actorstest.MsgsOf[*Done](out) {
		v := *d
		v.PoolMark = actors.PoolMark{}
		ds = append(ds, v)
	}
	return ds
}

// The FIFO takes a command in by value, as the hardware latches a written entry: a
// writer that reuses its record once the engine has it (a pooled command is recycled at
// intake) does not change the message, even while the command waits behind others.
func TestCommandsAreTakenInByValue(t *testing.T) {
	h, _ := newTestBench(t, unitParams())
	send := NewCommand(Command{Kind: Transmit, Bytes: 200, Addr: 0x1000})
	end := &Command{Kind: EndMessage, Notify: true, Tag: 7}
	next := &Command{Kind: Transmit, Bytes: 64, Addr: 0x2000}
	h.Inject(0, PortPPC, &Command{Kind: LoadDest, Dst: 5, Class: 1, Data: label("m")})
	h.Inject(0, PortPPC, send)
	h.Inject(0, PortPPC, end)
	h.Inject(1, PortPPC, &Command{Kind: LoadDest, Dst: 6, Data: label("n")})
	h.Inject(1, PortPPC, next)
	h.Inject(1, PortPPC, &Command{Kind: EndMessage, Notify: true, Tag: 8})
	h.Run(2) // every command is in the FIFO; the data of the first transmit is being read
	assert.Equal(t, Command{}, *send, "a pooled command is recycled once the engine has taken it in")
	*end = Command{Kind: EndMessage, Tag: 99}
	*next = Command{Kind: Transmit, Bytes: 1}
	out := h.Run(actors.MaxTime)
	payloads := map[router.NodeID][]int32{}
	for _, p := range actorstest.MsgsOf[*router.Packet](out) {
		payloads[p.Dst] = append(payloads[p.Dst], p.Payload)
	}
	assert.Equal(t, map[router.NodeID][]int32{5: {64, 64, 64, 8}, 6: {64}}, payloads)
	assert.Equal(t, []Done{{Tag: 7}, {Tag: 8}}, doneValues(out))
}

// A command in the FIFO lies within one cache line, so that reading the head's kind
// and length, or its descriptor, reads one line.
func TestFIFOCommandIsALine(t *testing.T) {
	assert.LessOrEqual(t, unsafe.Sizeof(fifoCommand{}), uintptr(64))
	e := New(new(unitParams()), 0, router.NewInjector(router.DefaultParams()))
	for i := range e.q {
		off := uintptr(unsafe.Pointer(&e.q[i].Command)) % 64
		assert.LessOrEqual(t, off+unsafe.Sizeof(Command{}), uintptr(64), "slot %d crosses a line", i)
	}
}

package txdma

import (
	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/ht"
	"github.com/seastar-sim/seastar/router"
)

// Ports of an Engine.
const (
	PortPPC    actors.Port = iota // commands and PIO in; Done and Retired out
	PortHT                        // reads out, data in; raw-DMA commands from the host in
	PortRouter                    // packets out to the router's NIC "inject" port, credits in
)

// Engine is the TX DMA engine actor of one node.
type Engine struct {
	p    *Params // shared by the engines of a machine: read-only
	node router.NodeID
	inj  router.Injector // credits and serialization of the link into the router

	// command FIFO, addressed by absolute sequence numbers. It holds the commands
	// themselves, each within a line: the packetizer and the read issuer look at the
	// head and issue commands on most of the engine's events, and a FIFO of pointers
	// cost a miss on the FIFO and another on the command (the PPC's pooled record, long
	// evicted on a large machine) each time.
	q        []fifoCommand
	headSeq  uint64 // sequence number of the FIFO head
	tailSeq  uint64 // next sequence number to push
	issueSeq uint64 // command whose data is being requested
	issueOff int64  // bytes of it already requested

	readsOut int
	readTag  uint64    // next read tag
	reads    []ht.Read // the reads in flight, by tag modulo outstanding_reads (reused: no allocation per read)
	doneTag  uint64    // tag of the next read to complete
	staged   int64     // staging buffer bytes: requested, or arrived and not injected
	arrived  int64     // bytes arrived and not yet packetized
	consumed int64     // bytes of the head Transmit already packetized
	decoded  bool      // the head Transmit's decode time has been charged
	msg      message
	cost     actors.Duration // command decode time owed by the next packet emitted

	out       actors.FIFO[outPacket] // DMA packets ready to inject
	pioQ      actors.FIFO[outPacket] // PIO packets ready to inject
	pioMsgs   int
	pioBytes  int64         // PIO buffer bytes not yet injected
	midDMA    router.NodeID // destination of a DMA message half injected, if midDMAok
	midPIO    router.NodeID
	inDMA     bool
	inPIO     bool
	proc      outPacket // packet in the data path, processed at freeAt (proc.p nil if none)
	gaugeFIFO int64     // command FIFO depth last reported to a timeline
	procPIO   bool
	freeAt    actors.Time
	ticking   actors.Time // time of the pending tick, 0 if none
	stallAt   actors.Time // start of a credit stall, if stalled
	stalled   bool
	retired   uint64
	told      uint64 // retired count last reported to the PPC

	Stats Stats
}

// fifoCommand is a command in the FIFO, padded to a cache line: the FIFO's array
// starts on a line, or 8 bytes into one (the allocator's header of a large object with
// pointers), and a Command of at most 56 bytes then lies within one line in every slot
// (TestFIFOCommandIsALine).
type fifoCommand struct {
	Command
	_ [8]byte
}

type message struct {
	open  bool
	dst   router.NodeID
	class uint8
	data  any
	seq   int32
	fill  int64       // payload bytes of the packet being filled
	dfill int64       // of which host data (the rest is CRC)
	sent  bool        // a packet of this message has been emitted
	start actors.Time // when the engine took the message's first command
}

type outPacket struct {
	p      *router.Packet
	staged int64           // staging bytes released when it leaves
	cost   actors.Duration // decode time of the commands that produced it
	tag    uint64
	start  actors.Time // when the engine started on the packet's message
	notify bool
	// The packet's fields the data path reads when it takes the packet and times it,
	// copied as it is made: the packet itself is read again only as it enters the
	// router (on a large machine its line has long left the cache by then, and the
	// data path took it in another event).
	dst     router.NodeID
	payload int32
	class   uint8
	eom     bool
}

// queued returns p ready for injection.
func queued(p *router.Packet, staged int64, cost actors.Duration, notify bool, tag uint64, start actors.Time) outPacket {
	return outPacket{p: p, staged: staged, cost: cost, tag: tag, start: start, notify: notify,
		dst: p.Dst, payload: p.Payload, class: p.Class, eom: p.EOM}
}

// Stats counts the engine's work.
type Stats struct {
	Packets     int64
	Bytes       int64 // payload bytes injected, CRC included
	Messages    int64 // DMA messages ended
	PIOMessages int64
	Reads       int64
	Commands    int64
	Busy        actors.Duration // data path busy time
	CreditStall actors.Duration // time a ready packet waited for a router credit
}

// New returns an engine for node that injects through inj (router.NewInjector of the
// network's router parameters) and reads its parameters from *p, which must be valid
// and must not change while the engine lives: the engines of a machine share one copy.
func New(p *Params, node router.NodeID, inj router.Injector) *Engine {
	return &Engine{p: p, node: node, inj: inj, q: make([]fifoCommand, p.CommandsMax), reads: make([]ht.Read, p.OutstandingReads)}
}

// Ports implements actors.Ported.
func (e *Engine) Ports() []string { return []string{"ppc", "ht", "router"} }

// PacketsInjected implements actors.PacketCounter: the packets the engine sent into the
// network (DMA and PIO).
func (e *Engine) PacketsInjected() uint64 { return uint64(e.Stats.Packets) }

// Receive implements actors.Actor.
func (e *Engine) Receive(ctx actors.Context, m actors.Msg) {
	switch m := m.(type) {
	case *Command:
		e.onCommand(ctx, m)
	case *PIO:
		e.onPIO(ctx, m)
		pioPool.Release(m)
	case *ht.ReadDone:
		e.onReadDone(ctx, *m)
	case router.Credit:
		e.inj.Return(ctx, m)
	case tick:
		if ctx.Now() == e.ticking {
			e.ticking = 0
		}
	default:
		ctx.Fatalf("txdma: unexpected %T", m)
	}
	e.step(ctx)
}

// step advances every stage as far as it can.
func (e *Engine) step(ctx actors.Context) {
	e.packetize(ctx)
	e.issueReads(ctx)
	e.inject(ctx)
	e.issueReads(ctx) // injection may have freed staging space

	// The next packetize reads the head command, the next inject the packet at the
	// head of the DMA packets (the slot the next one goes to, if none).
	actors.Prefetch(ctx, e.head(), e.out.Next())
	if g := actors.GaugeOf(ctx); g != nil {
		if d := int64(e.tailSeq - e.headSeq); d != e.gaugeFIFO {
			e.gaugeFIFO = d
			g.Gauge(actors.Gauge{Actor: ctx.Self(), Name: "tx_fifo_commands", At: ctx.Now(), Value: d})
		}
	}
	if e.retired != e.told {
		e.told = e.retired
		ctx.Send(PortPPC, newRetired(e.retired), 0)
	}
}

func (e *Engine) onCommand(ctx actors.Context, c *Command) {
	if e.tailSeq-e.headSeq == uint64(len(e.q)) {
		ctx.Fatalf("txdma: command FIFO overflow (%d entries): the writer must track free slots (%s)", len(e.q), c)
	}
	if c.Kind > EndMessage || (c.Kind == Transmit && c.Bytes < 0) {
		ctx.Fatalf("txdma: malformed command %s", c)
	}
	q := &e.q[e.tailSeq%uint64(len(e.q))]
	q.Command = *c
	q.PoolMark = actors.PoolMark{}
	c.release() // taken in: the PPC's record is free for its next command
	e.tailSeq++
	e.Stats.Commands++
}

func (e *Engine) onPIO(ctx actors.Context, m *PIO) {
	switch {
	case e.pioMsgs == e.p.PIOCommandsMax:
		ctx.Fatalf("txdma: PIO command FIFO overflow (%d entries)", e.p.PIOCommandsMax)
	case m.Bytes < 0 || m.Bytes > int64(e.p.PIOBufferBytes):
		ctx.Fatalf("txdma: PIO message of %dB does not fit the %s PIO buffer", m.Bytes, e.p.PIOBufferBytes)
	case e.pioBytes+m.Bytes > int64(e.p.PIOBufferBytes):
		// The four PIO commands share one 256-byte buffer (Dillow & Atchley 2011, s.II).
		ctx.Fatalf("txdma: PIO buffer overflow: %dB of the %s buffer still queued, no room for %s: the writer must wait for earlier PIO messages to leave",
			e.pioBytes, e.p.PIOBufferBytes, m)
	}
	e.pioMsgs++
	e.pioBytes += m.Bytes
	pp := int64(e.p.PacketPayload)
	left := m.Bytes
	for seq := int32(0); seq == 0 || left > 0; seq++ {
		n := min(left, pp)
		left -= n
		last := left == 0
		p := router.NewPacket(router.Packet{Src: e.node, Dst: m.Dst, Class: m.Class, Payload: int32(n), SOM: seq == 0, EOM: last, Seq: seq, Data: m.Data})
		e.pioQ.Push(queued(p, 0, 0, last && m.Notify, m.Tag, ctx.Now()))
	}
}

func (e *Engine) onReadDone(ctx actors.Context, r ht.ReadDone) {
	if e.readsOut == 0 || r.Tag != e.doneTag {
		ctx.Fatalf("txdma: read #%d completed out of order (expected #%d)", r.Tag, e.doneTag)
	}
	e.doneTag++
	e.readsOut--
	e.arrived += int64(r.Bytes)
}

// head returns the command at the head of the FIFO, nil if empty.
func (e *Engine) head() *Command {
	if e.headSeq == e.tailSeq {
		return nil
	}
	return &e.q[e.headSeq%uint64(len(e.q))].Command
}

func (e *Engine) pop() {
	i := e.headSeq % uint64(len(e.q))
	e.q[i].Command = Command{} // carried out: drop its descriptor
	e.headSeq++
	e.retired++
	e.consumed = 0
	e.decoded = false
	if e.issueSeq < e.headSeq {
		e.issueSeq, e.issueOff = e.headSeq, 0
	}
}

// packetize consumes commands in order, turning arrived data into packets.
func (e *Engine) packetize(ctx actors.Context) {
	for c := e.head(); c != nil; c = e.head() {
		if c.Kind != Transmit {
			e.marker(ctx, c)
			e.pop()
			continue
		}
		e.msgMustBeOpen(ctx, c)
		if !e.decoded {
			e.decoded = true
			e.cost += e.p.CommandCost
		}
		pp := int64(e.p.PacketPayload)
		for e.consumed < c.Bytes && e.arrived > 0 {
			if e.msg.fill == pp {
				e.emit(false, false, 0) // held at the end of the previous transmit
			}
			take := min(e.arrived, c.Bytes-e.consumed, pp-e.msg.fill)
			e.arrived -= take
			e.consumed += take
			e.msg.fill += take
			e.msg.dfill += take
			// A packet filled by the last bytes of a transmit is held until the next
			// command says whether it ends the message (it then carries EOM) or
			// continues it: emitting it at once would force an empty EOM packet.
			if e.msg.fill == pp && e.consumed < c.Bytes {
				e.emit(false, false, 0)
			}
		}
		if e.consumed < c.Bytes {
			return // waiting for data
		}
		e.pop()
	}
}

func (e *Engine) msgMustBeOpen(ctx actors.Context, c *Command) {
	if !e.msg.open {
		ctx.Fatalf("txdma: %s without a message (load destination first)", c)
	}
}

// marker applies a LoadDest, EndPacket or EndMessage command.
func (e *Engine) marker(ctx actors.Context, c *Command) {
	e.cost += e.p.CommandCost
	switch c.Kind {
	case LoadDest:
		if e.msg.open {
			ctx.Fatalf("txdma: load destination node%d while the message to node%d is not ended", c.Dst, e.msg.dst)
		}
		e.msg = message{open: true, dst: c.Dst, class: c.Class, data: c.Data, start: ctx.Now()}
	case EndPacket:
		e.msgMustBeOpen(ctx, c)
		e.appendCRC(c.CRC)
		if e.msg.fill > 0 {
			e.emit(false, false, 0)
		}
	case EndMessage:
		e.msgMustBeOpen(ctx, c)
		e.appendCRC(c.CRC)
		e.emit(true, c.Notify, c.Tag)
		e.msg.open = false
		e.Stats.Messages++
	}
}

// appendCRC adds the end-to-end CRC to the packet being filled, spilling into a new
// packet if it does not fit. CRC bytes come from the engine, not from host memory.
func (e *Engine) appendCRC(crc bool) {
	if !crc {
		return
	}
	pp, n := int64(e.p.PacketPayload), int64(e.p.CRCBytes)
	if e.msg.fill+n > pp {
		spill := e.msg.fill + n - pp
		e.msg.fill = pp
		e.emit(false, false, 0)
		e.msg.fill = spill
		return
	}
	e.msg.fill += n
}

// emit turns the packet being filled into a packet ready for injection.
func (e *Engine) emit(eom, notify bool, tag uint64) {
	m := &e.msg
	p := router.NewPacket(router.Packet{Src: e.node, Dst: m.dst, Class: m.class, Payload: int32(m.fill),
		SOM: !m.sent, EOM: eom, Seq: m.seq, Data: m.data})
	e.out.Push(queued(p, m.dfill, e.cost, notify, tag, m.start)) // CRC bytes were never staged
	e.cost = 0
	m.seq++
	m.sent = true
	m.fill, m.dfill = 0, 0
}

// issueReads requests host data ahead of the packetizer, within the outstanding-read
// and staging-buffer limits.
func (e *Engine) issueReads(ctx actors.Context) {
	for e.readsOut < e.p.OutstandingReads && e.issueSeq < e.tailSeq {
		c := &e.q[e.issueSeq%uint64(len(e.q))].Command
		if c.Kind != Transmit || e.issueOff == c.Bytes {
			e.issueSeq++
			e.issueOff = 0
			continue
		}
		n := min(int64(e.p.ReadBytes), c.Bytes-e.issueOff)
		if e.staged+n > int64(e.p.BufferBytes) {
			return
		}
		r := &e.reads[e.readTag%uint64(len(e.reads))] // answered before its slot comes round again
		*r = ht.Read{Bytes: actors.Bytes(n), Tag: e.readTag}
		ctx.Send(PortHT, r, 0)
		e.readTag++
		e.readsOut++
		e.staged += n
		e.issueOff += n
		e.Stats.Reads++
	}
}

// next picks the packet for the data path: PIO first (short, latency-bound messages),
// unless it would cut into a DMA message to the same destination, and never a DMA
// packet that would cut into a PIO message to its destination (the hardware interlock
// of Dillow & Atchley 2011, s.II).
func (e *Engine) next() (*actors.FIFO[outPacket], bool) {
	if e.pioQ.Len() > 0 {
		if !(e.inDMA && e.midDMA == e.pioQ.Front().dst) {
			return &e.pioQ, true
		}
	}
	if e.out.Len() > 0 {
		if !(e.inPIO && e.midPIO == e.out.Front().dst) {
			return &e.out, true
		}
	}
	return nil, false
}

// inject runs the two last stages of the pipeline: the data path processes one packet
// at a time (PacketOverhead plus its bytes at DMABandwidth), and a processed packet
// enters the router when the injection link is idle and the router has a credit for
// its VC. While the link carries one packet the data path processes the next.
func (e *Engine) inject(ctx actors.Context) {
	now := ctx.Now()
	for {
		if e.proc.p != nil {
			if now < e.freeAt {
				e.wakeAt(ctx, e.freeAt)
				return
			}
			class := e.proc.class
			if e.inj.Credits(e.inj.VC(class)) == 0 {
				if !e.stalled {
					e.stalled, e.stallAt = true, now
				}
				return // a Credit message resumes
			}
			if !e.inj.Ready(now, class) {
				e.wakeAt(ctx, e.inj.FreeAt())
				return
			}
			if e.stalled {
				e.stalled = false
				e.Stats.CreditStall += now.Sub(e.stallAt)
			}
			e.send(ctx, e.proc, e.procPIO)
			e.proc = outPacket{}
		}
		q, ok := e.next()
		if !ok {
			return
		}
		e.procPIO = q == &e.pioQ
		e.proc = q.Pop()
		e.mark(&e.proc, e.procPIO)
		dt := e.p.packetTime(actors.Bytes(e.proc.payload)) + e.proc.cost
		e.freeAt = now.Add(dt)
		e.Stats.Busy += dt
	}
}

// wakeAt schedules a tick at t unless one is already due then.
func (e *Engine) wakeAt(ctx actors.Context, t actors.Time) {
	if e.ticking == t {
		return
	}
	e.ticking = t
	ctx.SendSelf(tick{}, t.Sub(ctx.Now()))
}

// mark tracks half-sent messages for the PIO/DMA interlock as packets enter the data
// path.
func (e *Engine) mark(op *outPacket, pio bool) {
	if pio {
		e.inPIO, e.midPIO = !op.eom, op.dst
		return
	}
	e.inDMA, e.midDMA = !op.eom, op.dst
}

func (e *Engine) send(ctx actors.Context, op outPacket, pio bool) {
	p := op.p
	e.staged -= op.staged
	e.inj.Inject(ctx, PortRouter, p)
	if p.EOM {
		if t := actors.TracerOf(ctx); t != nil {
			e.traceMessage(ctx, t, op, pio)
		}
	}
	if pio {
		e.pioBytes -= int64(p.Payload)
	}
	if pio && p.EOM {
		e.pioMsgs--
		e.Stats.PIOMessages++
	}
	if op.notify {
		ctx.Send(PortPPC, NewDone(op.tag, pio), 0)
	}
	e.Stats.Packets++
	e.Stats.Bytes += int64(p.Payload)
}

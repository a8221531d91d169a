package funi

import (
	"maps"
	"slices"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/startjr"
	"github.com/seastar-sim/seastar/startjr/i960"
	"github.com/seastar-sim/seastar/startjr/squall"
	"github.com/seastar-sim/seastar/startjr/wire"
)

// Firmware is the FUNI coprocessor firmware of one node (Hoe & Ehrlich 1996 s.3): it
// polls the Tx queues' head indices, reads each new message out of host memory over
// PCI, sends it as a packet tagged with the application's GID, keeps it until it is
// acknowledged, retries it on a negative acknowledgement or a restart; it takes
// arriving packets out of the Squall FIFOs, checks GID, round and queue room, deposits
// the message into an Rx queue in host memory and acknowledges it. On IEEE 1394 a
// receive FIFO overflow starts a new round (s.3.2.4); on Arctic there are no
// acknowledgements, retries or rounds: the fabric neither loses nor blocks the
// acknowledgement-free protocol (the minimal protocol the paper implies, s.4).
type Firmware struct {
	p       Params
	node    int
	nodes   int
	arctic  bool
	maxData int64 // data bytes of a DMA packet
	gidAt   func(t actors.Time) int

	txPending [2]actors.FIFO[*Message] // published by the host, not yet taken (index: priority)
	txActive  bool                     // a message is being read out of host memory
	txRoom    [2]int64                 // transmit FIFO room per priority
	out       actors.FIFO[*outPkt]     // packets waiting for FIFO room or a send buffer
	outFree   actors.FreeList[outPkt]  // send records, recycled once sent and no longer buffered
	seq       uint64
	buffered  map[uint64]*outPkt // sent, not yet acknowledged (1394 protocol)
	round     uint32             // this node's round: packets for it carry it
	roundOf   []uint32           // the round of every destination
	rxHeadIdx [2][2]int          // per GID and priority: next Rx slot to fill
	rxTailMB  [2][2]uint32       // the Rx tail index the host last stored (per GID; the running one is in the mailbox)
	seen      map[uint64]bool    // (source, sequence) of accepted packets
	// Recovery after a restart (IEEE 1394), per destination: the packets waiting to be
	// sent again, oldest first, one at a time (the next when one is acknowledged), and
	// the number of restarts in a row (the backoff's exponent).
	retryQ    [][]uint64
	backoff   []int
	kickGen   []int           // restarts from each destination: a kick of an earlier one is stale
	lastRound actors.Time     // when this node last started a round
	roundDue  bool            // an overflow during the holdoff: a round starts when it ends
	dmaParts  map[uint64]int  // DMA message ID -> parts received
	shmWait   map[uint64]bool // lines requested from their home

	Stats Stats
}

// Stats counts the protocol's work on one node.
type Stats struct {
	Sent, Received, Acks, Nacks, Retries, Restarts, Rounds, Stale, GIDRejected, QueueFull, Duplicates int64
	Overflows                                                                                         int64 // receive FIFO overflows seen (a round each, unless within the holdoff)
	LateAcks                                                                                          int64 // acknowledgements of packets already acknowledged
	ShmMisses, ShmServed                                                                              int64
}

// outPkt is a packet the firmware sends, kept until acknowledged.
type outPkt struct {
	pk     *wire.Packet
	queued bool // in out (not yet in the FIFO)
	data   bool // needs a send buffer (payload) vs an acknowledgement
	sent   bool // pk went to the transmit FIFO (a resend then sends a copy)
}

// framed is a data packet or an acknowledgement and its frame, made and recycled as one
// (newFramed). Its holders each drop it once (Frame.drop): the receiving firmware once
// it has handled the packet (or the receiving PLM, in its place, when it discards the
// packet: Lost), and under the IEEE 1394 protocol the sender's buffer of a data packet
// when it is acknowledged or replaced by a copy to send again (resend: the copy has
// holders of its own).
// Broadcasts and shared-memory packets are not pooled: several receivers, or a
// handler that keeps the frame past the event.
type framed struct {
	pk   wire.Packet
	fr   Frame
	refs actors.Refs
	actors.PoolMark
}

var framedPackets actors.Pool[framed, *framed]

// newFramed returns pk carrying fr, recycled once holders holders have dropped it.
func newFramed(pk wire.Packet, fr Frame, holders int32) *wire.Packet {
	x := framedPackets.New(framed{pk: pk, fr: fr})
	x.pk.Body = &x.fr
	x.fr.own = x
	x.refs.Set(holders)
	return &x.pk
}

// Lost implements wire.Lost: the receiving PLM discarded fr's packet (a receive FIFO
// overflow), which ends the receiving firmware's hold.
func (fr *Frame) Lost() { fr.drop() }

// drop ends one holder's hold on fr's packet; the last recycles it, and lets go of the
// message a data packet carries. A frame not made by newFramed is left alone.
func (fr *Frame) drop() {
	if x := fr.own; x != nil && x.refs.Drop() {
		if m := x.fr.Msg; m != nil {
			m.drop()
		}
		framedPackets.Release(x)
	}
}

// Events of the firmware besides the hardware's.
type (
	doorbell   struct{ msg *Message }
	txSlotRead struct{ msg *Message }
	txPayload  struct{ msg *Message }
	txDMADone  struct{ msg *Message }
	retry      struct{ seq uint64 }
	kick       struct{ dst, gen int }
	roundTimer struct{}
	shmServe   struct{ f *Frame }
	shmLocal   struct{ addr uint64 }
	// held is a data packet the firmware took out of its receive FIFO and keeps in its
	// DRAM (Arctic) until it can deliver it: it is read back from there, not popped.
	held struct{ pk *wire.Packet }
)

func (doorbell) String() string   { return "funi.doorbell" }
func (txSlotRead) String() string { return "funi.txSlotRead" }
func (txPayload) String() string  { return "funi.txPayload" }
func (txDMADone) String() string  { return "funi.txDMADone" }
func (retry) String() string      { return "funi.retry" }
func (kick) String() string       { return "funi.kick" }
func (roundTimer) String() string { return "funi.roundTimer" }
func (shmServe) String() string   { return "funi.shmServe" }
func (shmLocal) String() string   { return "funi.shmLocal" }
func (held) String() string       { return "funi.held" }

// NewFirmware returns node's firmware; gidAt gives the application running on the node
// at a time (always 0 with one application).
func NewFirmware(p Params, sp startjr.Params, node int, gidAt func(actors.Time) int) *Firmware {
	f := &Firmware{p: p, node: node, nodes: sp.Nodes, arctic: sp.Network == "arctic", gidAt: gidAt,
		buffered: map[uint64]*outPkt{}, roundOf: make([]uint32, sp.Nodes), seen: map[uint64]bool{},
		dmaParts: map[uint64]int{}, shmWait: map[uint64]bool{}, retryQ: make([][]uint64, sp.Nodes), backoff: make([]int, sp.Nodes), kickGen: make([]int, sp.Nodes),
		lastRound: -1 << 62}
	f.txRoom[0], f.txRoom[1] = int64(sp.Squall.FIFOBytes), int64(sp.Squall.FIFOBytes)
	// A DMA packet's data: what a 1394 packet and a transmit FIFO hold besides the FUNI
	// header and the segment and target words, whole words.
	f.maxData = (min(int64(sp.IEEE1394.MaxPayload), int64(sp.Squall.FIFOBytes)) - int64(p.FrameBytes) - 8) / 4 * 4
	return f
}

// Polled implements i960.Firmware: the main loop watches the Tx head indices.
func (f *Firmware) Polled(reg int) bool { return reg == txHead(0) || reg == txHead(1) }

// Handle implements i960.Firmware. With tracing on, the handlers that work on a
// message's packet add a span to its trace (i960/tx, i960/rx, i960/ack, i960/nack,
// i960/retry, i960/discard).
func (f *Firmware) Handle(x *i960.Exec, ev actors.Msg) {
	if t := x.Tracer(); t == nil {
		f.handle(x, ev)
	} else {
		id, name := f.traced(ev)
		f.handle(x, ev)
		if id != 0 && t.Sampled(id) {
			t.Span(actors.Span{Trace: id, Name: name, Actor: x.Self(), Start: x.Start(), End: x.Now(),
				Attrs: []actors.Attr{actors.IntAttr("node", int64(f.node))}})
		}
	}
}

// traced names the message an event works on, and the stage.
func (f *Firmware) traced(ev actors.Msg) (uint64, string) {
	switch e := ev.(type) {
	case doorbell:
		return e.msg.ID, "i960/doorbell"
	case txSlotRead:
		return e.msg.ID, "i960/tx"
	case txPayload:
		return e.msg.ID, "i960/tx_payload"
	case txDMADone:
		return e.msg.ID, "i960/tx_dma"
	case retry:
		if o := f.buffered[e.seq]; o != nil {
			return o.pk.ID, "i960/retry"
		}
	case *squall.Arrived:
		fr := e.Packet.Body.(*Frame)
		return e.Packet.ID, "i960/rx_" + frameNames[fr.Kind]
	case held:
		return e.pk.ID, "i960/rx_held"
	}
	return 0, ""
}

func (f *Firmware) handle(x *i960.Exec, ev actors.Msg) {
	switch e := ev.(type) {
	case doorbell:
		x.Instr(10)
		f.txPending[e.msg.prio()].Push(e.msg)
		f.startTx(x)
	case txSlotRead:
		f.slotRead(x, e.msg)
	case txPayload:
		x.Instr(f.p.TxInstr / 4) // the second half of a zero-copy send
		f.queueData(x, e.msg, 0, 1, e.msg.wireWords())
		f.txActive = false
		f.startTx(x)
	case txDMADone:
		words := int64(e.msg.Words)
		parts := int((4*words + f.maxData - 1) / f.maxData)
		for part := range parts {
			x.Instr(f.p.DMAInstr)
			w := int(min(f.maxData/4, words-int64(part)*f.maxData/4))
			f.queueData(x, e.msg, part, parts, 2+w)
		}
		f.flush(x)
	case *squall.Arrived:
		f.arrived(x, e.Packet)
	case held:
		fr := e.pk.Body.(*Frame)
		if !f.data(x, e.pk, fr, f.hdrWords(), true) {
			fr.drop()
		}
	case *squall.TxFree:
		x.Instr(5)
		f.txRoom[e.Prio] += e.Bytes
		f.flush(x)
		f.startTx(x)
	case squall.Overflow:
		f.overflow(x)
	case retry:
		o := f.buffered[e.seq]
		if o == nil || o.queued {
			return
		}
		x.Instr(20)
		f.resend(x, o)
	case kick:
		if e.gen != f.kickGen[e.dst] {
			return // a later restart rescheduled the retries
		}
		x.Instr(20)
		f.nextRetry(x, e.dst)
	case roundTimer:
		if f.roundDue {
			f.roundDue = false
			f.newRound(x)
		}
	case squall.ACDMiss:
		f.shmMiss(x, e.Addr)
	case shmServe:
		x.Instr(f.p.ShmInstr / 2)
		f.send(x, &wire.Packet{Src: f.node, Dst: e.f.Src, Prio: wire.Low, Bytes: int64(f.p.FrameBytes) + 4*lineWord,
			Body: &Frame{Kind: fShmReply, Src: f.node, Addr: e.f.Addr, Words: lineWord}}, false)
		f.flush(x)
	case shmLocal:
		x.Fill(e.addr, lineWord)
		delete(f.shmWait, e.addr)
	default:
		x.Fatalf("funi: firmware got %T (%s)", ev, ev)
	}
}

// startTx takes the next published message, high priority first (s.3.2.3), when a
// send buffer is free: its slot is read out of host memory (the handler stalls).
func (f *Firmware) startTx(x *i960.Exec) {
	if f.txActive {
		return
	}
	if (!f.arctic && len(f.buffered) >= f.p.SendBuffers) || f.out.Len() >= f.p.SendBuffers {
		return // every send buffer holds an unacknowledged (or unsent) packet
	}
	for _, prio := range []int{1, 0} {
		if f.txPending[prio].Len() == 0 {
			continue
		}
		m := f.txPending[prio].Pop()
		f.txActive = true
		x.Register(2) // head and tail indices
		x.HostRead(m.SlotWords(), txSlotRead{m})
		return
	}
}

// slotRead runs once a message's slot is read: the packet is composed and queued, the
// slot released (tail index).
func (f *Firmware) slotRead(x *i960.Exec, m *Message) {
	x.Instr(f.p.TxInstr)
	tail := txTail(m.prio())
	x.SetMailbox(tail, x.Mailbox(tail)+1)
	switch m.Kind {
	case Mfer:
		x.HostRead(m.Words, txPayload{m}) // the payload, zero copy from the source
		return
	case DMA:
		x.DMARead(m.Words, txDMADone{m})
	default:
		f.queueData(x, m, 0, 1, m.wireWords())
	}
	f.txActive = false
	f.startTx(x)
}

// queueData composes a data packet of words words (besides the FUNI header) and queues
// it; with the acknowledgement protocol it is also kept in a send buffer (a copy in
// local DRAM). With the last part composed, the sending firmware lets go of m: its
// packets hold it.
func (f *Firmware) queueData(x *i960.Exec, m *Message, part, parts, words int) {
	f.seq++
	holders := int32(1) // the receiving firmware
	if !f.arctic {
		x.DRAM(words) // the sender's copy
		holders++     // and the send buffer
	}
	m.hold() // by the packet
	pk := newFramed(wire.Packet{Src: f.node, Dst: m.Dst, Prio: wire.Low, Bytes: int64(f.p.FrameBytes) + 4*int64(words), ID: m.ID},
		Frame{Kind: fData, Src: f.node, GID: m.GID, Seq: f.seq, Msg: m, Part: part, Parts: parts, Words: words}, holders)
	f.send(x, pk, true)
	f.flush(x)
	if part == parts-1 {
		m.drop()
	}
}

// send queues pk for the transmit FIFO; a data packet is buffered until acknowledged
// (IEEE 1394 protocol).
func (f *Firmware) send(x *i960.Exec, pk *wire.Packet, data bool) {
	o := f.outFree.New(outPkt{pk: pk, queued: true, data: data})
	if data && !f.arctic {
		seq := pk.Body.(*Frame).Seq
		f.buffered[seq] = o
		f.Stats.Sent++
		if len(f.retryQ[pk.Dst]) > 0 { // the destination is recovering: after the retries
			f.retryQ[pk.Dst] = append(f.retryQ[pk.Dst], seq)
			return
		}
	}
	f.out.Push(o)
}

// flush writes queued packets into the transmit FIFOs while they have room. A send
// record no longer buffered (an acknowledgement, any packet on Arctic, a data packet
// acknowledged while it waited to go again) is recycled once its packet is written.
func (f *Firmware) flush(x *i960.Exec) {
	for f.out.Len() > 0 {
		o := *f.out.Front()
		pk := o.pk
		if f.txRoom[pk.Prio] < pk.Bytes {
			return
		}
		f.out.Pop()
		o.queued = false
		f.txRoom[pk.Prio] -= pk.Bytes
		fr := pk.Body.(*Frame)
		if fr.Kind == fData && pk.Dst != wire.Broadcast {
			fr.Round = f.roundOf[pk.Dst]
		}
		kept := o.data && !f.arctic && f.buffered[fr.Seq] == o
		o.sent = true
		x.Transmit(pk)
		if !kept {
			f.outFree.Put(o)
		}
	}
}

// resend queues a buffered packet again with its destination's current round (flush
// stamps it): a copy if it went to the FIFO, else itself (a packet a restart took out
// of the out queue, or one that waited for the retries: its copy left the original
// with a receiver's hold nobody would drop, an allocation a retry).
func (f *Firmware) resend(x *i960.Exec, o *outPkt) {
	f.Stats.Retries++
	o.queued = true
	if o.sent {
		old := o.pk.Body.(*Frame)
		old.Msg.hold()                   // by the copy
		o.pk = newFramed(*o.pk, *old, 2) // a copy: the FIFO and the network hold the old one
		old.drop()                       // the send buffer's hold on the old one
		o.sent = false
	}
	f.out.Push(o)
	f.flush(x)
}

// ack sends an acknowledgement (or a negative one) of fr to its sender.
func (f *Firmware) ack(x *i960.Exec, fr *Frame, kind frameKind, why string) {
	x.Instr(f.p.AckInstr)
	f.send(x, newFramed(wire.Packet{Src: f.node, Dst: fr.Src, Prio: wire.High, Bytes: int64(f.p.AckBytes), ID: fr.Msg.ID},
		Frame{Kind: kind, Src: f.node, Seq: fr.Seq, Why: why}, 1), false)
	f.flush(x)
}

// arrived handles a packet in a receive FIFO and drops its hold on it, unless the
// firmware keeps it for later (Arctic).
func (f *Firmware) arrived(x *i960.Exec, pk *wire.Packet) {
	fr := pk.Body.(*Frame)
	hdr := f.hdrWords()
	switch fr.Kind {
	case fAck, fNack:
		x.Pop(pk, hdr)
		x.Instr(f.p.AckRxInstr)
		f.answered(x, fr)
	case fRestart:
		x.Pop(pk, hdr)
		x.Instr(f.p.AckRxInstr)
		f.Stats.Restarts++
		f.restart(x, fr.Src, fr.Round)
	case fShmReq:
		x.Pop(pk, hdr+1)
		f.Stats.ShmServed++
		x.HostRead(lineWord, shmServe{fr}) // the line, from the home's memory
	case fShmReply:
		x.Pop(pk, hdr+fr.Words)
		x.Instr(f.p.ShmInstr / 2)
		x.Fill(fr.Addr, fr.Words)
		delete(f.shmWait, fr.Addr)
	case fData:
		if f.data(x, pk, fr, hdr, false) {
			return
		}
	}
	fr.drop()
}

// hdrWords is the 32-bit words of a FUNI header.
func (f *Firmware) hdrWords() int { return int((f.p.FrameBytes + 3) / 4) }

// answered takes an acknowledgement (or a negative one) of a buffered packet.
func (f *Firmware) answered(x *i960.Exec, fr *Frame) {
	o := f.buffered[fr.Seq]
	if o == nil {
		// A packet sent twice (a NACK's retry and a restart's) was acknowledged
		// twice, or refused after its copy was taken: nothing to do.
		f.Stats.LateAcks++
		return
	}
	if fr.Kind == fNack {
		f.Stats.Nacks++
		x.After(f.p.RetryDelay, retry{fr.Seq})
		return
	}
	f.Stats.Acks++
	delete(f.buffered, fr.Seq)
	o.pk.Body.(*Frame).drop() // the send buffer's hold
	if !o.queued {
		f.outFree.Put(o) // else flush recycles it once written
	}
	if len(f.retryQ[fr.Src]) > 0 {
		f.nextRetry(x, fr.Src) // recovering: the ack clocks the next packet out
	} else {
		f.backoff[fr.Src] = 0
	}
	f.startTx(x)
}

// data takes an arriving payload packet, from the receive FIFO or (inDRAM) from the
// DRAM where the firmware kept it; it reports whether the firmware keeps the packet to
// take it again later (Arctic).
func (f *Firmware) data(x *i960.Exec, pk *wire.Packet, fr *Frame, hdr int, inDRAM bool) (kept bool) {
	x.Instr(f.p.RxInstr)
	if inDRAM {
		x.DRAM(hdr) // the header, read back
	}
	m := fr.Msg
	gid := f.gidAt(x.Now())
	if !f.arctic && fr.Round != f.round {
		x.Discard(pk, hdr) // sent before this node's last restart: it will come again
		f.Stats.Stale++
		return
	}
	if fr.GID != gid {
		// The application is not running here now (s.3.2.1): discard, and ask for a
		// retry. On Arctic (no acknowledgements) the firmware keeps the packet in DRAM
		// until the application runs: an event for later.
		f.Stats.GIDRejected++
		if f.arctic {
			f.keep(x, pk, fr, hdr, inDRAM, f.p.GIDQuantum/4)
			return true
		}
		x.Discard(pk, hdr)
		f.ack(x, fr, fNack, "gid")
		return
	}
	key := uint64(fr.Src)<<48 | fr.Seq
	if f.seen[key] {
		f.Stats.Duplicates++
		if !inDRAM {
			x.Discard(pk, hdr)
		}
		if !f.arctic {
			f.ack(x, fr, fAck, "")
		}
		return
	}
	prio := m.prio()
	last := fr.Part == fr.Parts-1
	if last || m.Kind != DMA {
		tail := x.Mailbox(rxTail(prio))
		if f.rxHeadIdx[gid][prio]-int(tail) >= f.p.Slots {
			f.Stats.QueueFull++
			if f.arctic { // no retry on Arctic: wait for the host to free a slot
				f.keep(x, pk, fr, hdr, inDRAM, f.p.RetryDelay)
				return true
			}
			x.Discard(pk, hdr)
			f.ack(x, fr, fNack, "full")
			return
		}
	}
	f.seen[key] = true
	if inDRAM {
		x.DRAM(fr.Words)
	} else {
		x.Pop(pk, hdr+fr.Words)
	}
	switch m.Kind {
	case Mfer:
		x.HostWrite(m.Words, true, nil) // the data, to the target
	case DMA:
		x.DRAM(fr.Words - 2) // reassembled in local DRAM
		f.dmaParts[m.ID]++
		if f.dmaParts[m.ID] < fr.Parts {
			break
		}
		delete(f.dmaParts, m.ID)
		x.DMAWrite(m.Words, nil, nil)
	}
	if last || m.Kind != DMA {
		f.Stats.Received++
		idx := f.rxHeadIdx[gid][prio]
		f.rxHeadIdx[gid][prio]++
		words := m.SlotWords()
		if m.Kind == Mfer || m.Kind == DMA {
			words = 3 // the completion: header, segment, length
		}
		m.hold() // by the Rx entry, until the library has taken it
		x.HostWrite(words, true, rxEntries.New(RxEntry{Addr: RxAddr(gid, prio, idx%f.p.Slots), Msg: m}))
		x.SetMailbox(rxHead(prio), uint32(f.rxHeadIdx[gid][prio]))
	}
	if !f.arctic {
		f.ack(x, fr, fAck, "")
	}
	return false
}

// keep takes a data packet the firmware cannot deliver now out of its receive FIFO into
// its DRAM (once: a packet already there stays) and looks at it again after delay.
func (f *Firmware) keep(x *i960.Exec, pk *wire.Packet, fr *Frame, hdr int, inDRAM bool, delay actors.Duration) {
	if !inDRAM {
		x.Pop(pk, hdr+fr.Words)
		x.DRAM(fr.Words)
	}
	x.After(delay, held{pk})
}

// restart takes node d's new round: every packet to d not acknowledged is sent again
// with it (s.3.2.4). So that the retries of every sender do not overflow d again at
// once, they go one at a time, each after the acknowledgement of the one before, the
// first after a random delay below retry_delay x 2^(restarts in a row) (our design: the
// paper does not say how the retries are paced).
func (f *Firmware) restart(x *i960.Exec, d int, round uint32) {
	f.roundOf[d] = round
	q := f.retryQ[d][:0]
	for _, seq := range slices.Sorted(maps.Keys(f.buffered)) {
		if f.buffered[seq].pk.Dst == d { // in flight, in the out queue, or already waiting
			q = append(q, seq)
		}
	}
	// Packets still in the out queue for d are taken out of it: they go with the retries.
	f.out.DeleteFunc(func(o *outPkt) bool { return o.data && o.pk.Dst == d })
	for _, seq := range q {
		f.buffered[seq].queued = true
	}
	f.retryQ[d] = q
	if len(q) == 0 {
		return
	}
	f.backoff[d] = min(f.backoff[d]+1, 8)
	limit := int64(f.p.RetryDelay) << f.backoff[d]
	f.kickGen[d]++
	x.After(actors.Duration(x.Rand().Uint64()%uint64(limit)), kick{d, f.kickGen[d]})
}

// nextRetry sends the oldest packet waiting for d after a restart.
func (f *Firmware) nextRetry(x *i960.Exec, d int) {
	for len(f.retryQ[d]) > 0 {
		seq := f.retryQ[d][0]
		f.retryQ[d] = f.retryQ[d][1:]
		if o := f.buffered[seq]; o != nil {
			f.resend(x, o)
			return
		}
	}
}

// overflow starts a new round after the PLM discarded a packet (IEEE 1394, s.3.2.4):
// packets of the old round still in the FIFO are discarded, every sender retries its
// unacknowledged packets to this node with the new round. Overflows within
// retry_delay of the last round start one more round when it has passed (our design:
// the discards of one burst make one round, not one each).
func (f *Firmware) overflow(x *i960.Exec) {
	if f.arctic {
		return
	}
	f.Stats.Overflows++
	x.Instr(10)
	if x.Now().Sub(f.lastRound) < f.p.RetryDelay {
		if !f.roundDue {
			f.roundDue = true
			x.After(f.lastRound.Add(f.p.RetryDelay).Sub(x.Now()), roundTimer{})
		}
		return
	}
	f.newRound(x)
}

// newRound starts a round and broadcasts it.
func (f *Firmware) newRound(x *i960.Exec) {
	x.Instr(f.p.AckInstr)
	f.lastRound = x.Now()
	f.round++
	f.Stats.Rounds++
	f.send(x, &wire.Packet{Src: f.node, Dst: wire.Broadcast, Prio: wire.High, Bytes: int64(f.p.AckBytes),
		Body: &Frame{Kind: fRestart, Src: f.node, Round: f.round}}, false)
	f.flush(x)
}

// shmMiss serves an ACD miss: the line comes from its home node's memory.
func (f *Firmware) shmMiss(x *i960.Exec, addr uint64) {
	x.Instr(f.p.ShmInstr)
	f.Stats.ShmMisses++
	line := addr / (4 * lineWord)
	home := int(line % uint64(f.nodes))
	f.shmWait[addr] = true
	if home == f.node {
		x.HostRead(lineWord, shmLocal{addr})
		return
	}
	f.send(x, &wire.Packet{Src: f.node, Dst: home, Prio: wire.Low, Bytes: int64(f.p.FrameBytes) + 4,
		Body: &Frame{Kind: fShmReq, Src: f.node, Addr: addr}}, false)
	f.flush(x)
}

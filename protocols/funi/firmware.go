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

	txPending [2][]*Message // published by the host, not yet taken (index: priority)
	txActive  bool          // a message is being read out of host memory
	txRoom    [2]int64      // transmit FIFO room per priority
	out       []*outPkt     // packets waiting for FIFO room or a send buffer
	seq       uint64
	buffered  map[uint64]*outPkt // sent, not yet acknowledged (1394 protocol)
	round     uint32             // this node's round: packets for it carry it
	roundOf   []uint32           // the round of every destination
	rxHeadIdx [2][2]int          // per GID and priority: next Rx slot to fill
	rxTailMB  [2][2]uint32       // the Rx tail index the host last stored (per GID; the running one is in the mailbox)
	seen      map[uint64]bool    // (source, sequence) of accepted packets
	dmaParts  map[uint64]int     // DMA message ID -> parts received
	shmWait   map[uint64]bool    // lines requested from their home

	Stats Stats
}

// Stats counts the protocol's work on one node.
type Stats struct {
	Sent, Received, Acks, Nacks, Retries, Restarts, Rounds, Stale, GIDRejected, QueueFull, Duplicates int64
	ShmMisses, ShmServed                                                                              int64
}

// outPkt is a packet the firmware sends, kept until acknowledged.
type outPkt struct {
	pk     *wire.Packet
	queued bool // in out (not yet in the FIFO)
	data   bool // needs a send buffer (payload) vs an acknowledgement
}

// Events of the firmware besides the hardware's.
type (
	doorbell   struct{ msg *Message }
	txSlotRead struct{ msg *Message }
	txPayload  struct{ msg *Message }
	txDMADone  struct{ msg *Message }
	retry      struct{ seq uint64 }
	shmServe   struct{ f *Frame }
	shmLocal   struct{ addr uint64 }
)

func (doorbell) String() string   { return "funi.doorbell" }
func (txSlotRead) String() string { return "funi.txSlotRead" }
func (txPayload) String() string  { return "funi.txPayload" }
func (txDMADone) String() string  { return "funi.txDMADone" }
func (retry) String() string      { return "funi.retry" }
func (shmServe) String() string   { return "funi.shmServe" }
func (shmLocal) String() string   { return "funi.shmLocal" }

// NewFirmware returns node's firmware; gidAt gives the application running on the node
// at a time (always 0 with one application).
func NewFirmware(p Params, sp startjr.Params, node int, gidAt func(actors.Time) int) *Firmware {
	f := &Firmware{p: p, node: node, nodes: sp.Nodes, arctic: sp.Network == "arctic", gidAt: gidAt,
		buffered: map[uint64]*outPkt{}, roundOf: make([]uint32, sp.Nodes), seen: map[uint64]bool{},
		dmaParts: map[uint64]int{}, shmWait: map[uint64]bool{}}
	f.txRoom[0], f.txRoom[1] = int64(sp.Squall.FIFOBytes), int64(sp.Squall.FIFOBytes)
	f.maxData = int64(sp.IEEE1394.MaxPayload) - int64(p.FrameBytes) - 8
	if f.arctic {
		f.maxData = f.maxData / 4 * 4
	}
	return f
}

// Polled implements i960.Firmware: the main loop watches the Tx head indices.
func (f *Firmware) Polled(reg int) bool { return reg == txHead(0) || reg == txHead(1) }

// Handle implements i960.Firmware.
func (f *Firmware) Handle(x *i960.Exec, ev actors.Msg) {
	switch e := ev.(type) {
	case doorbell:
		x.Instr(10)
		f.txPending[e.msg.prio()] = append(f.txPending[e.msg.prio()], e.msg)
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
	case squall.TxFree:
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
	if (!f.arctic && len(f.buffered) >= f.p.SendBuffers) || len(f.out) >= f.p.SendBuffers {
		return // every send buffer holds an unacknowledged (or unsent) packet
	}
	for _, prio := range []int{1, 0} {
		if len(f.txPending[prio]) == 0 {
			continue
		}
		m := f.txPending[prio][0]
		f.txPending[prio] = f.txPending[prio][1:]
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
// local DRAM).
func (f *Firmware) queueData(x *i960.Exec, m *Message, part, parts, words int) {
	f.seq++
	fr := &Frame{Kind: fData, Src: f.node, GID: m.GID, Seq: f.seq, Msg: m, Part: part, Parts: parts, Words: words}
	pk := &wire.Packet{Src: f.node, Dst: m.Dst, Prio: wire.Low, Bytes: int64(f.p.FrameBytes) + 4*int64(words), Body: fr, ID: m.ID}
	if !f.arctic {
		x.DRAM(words) // the sender's copy
	}
	f.send(x, pk, true)
	f.flush(x)
}

// send queues pk for the transmit FIFO; a data packet is buffered until acknowledged
// (IEEE 1394 protocol).
func (f *Firmware) send(x *i960.Exec, pk *wire.Packet, data bool) {
	o := &outPkt{pk: pk, queued: true, data: data}
	if data && !f.arctic {
		f.buffered[pk.Body.(*Frame).Seq] = o
	}
	f.out = append(f.out, o)
}

// flush writes queued packets into the transmit FIFOs while they have room.
func (f *Firmware) flush(x *i960.Exec) {
	for len(f.out) > 0 {
		o := f.out[0]
		pk := o.pk
		if f.txRoom[pk.Prio] < pk.Bytes {
			return
		}
		f.out = f.out[1:]
		o.queued = false
		f.txRoom[pk.Prio] -= pk.Bytes
		if fr, ok := pk.Body.(*Frame); ok && fr.Kind == fData && pk.Dst != wire.Broadcast {
			fr.Round = f.roundOf[pk.Dst]
			f.Stats.Sent++
		}
		x.Transmit(pk)
	}
}

// resend queues a buffered packet again with its destination's current round.
func (f *Firmware) resend(x *i960.Exec, o *outPkt) {
	f.Stats.Retries++
	o.queued = true
	cp := *o.pk // the FIFO and the network hold the old one
	fr := *cp.Body.(*Frame)
	cp.Body = &fr
	o.pk = &cp
	f.Stats.Sent--
	f.out = append(f.out, o)
	f.flush(x)
}

// ack sends an acknowledgement (or a negative one) of fr to its sender.
func (f *Firmware) ack(x *i960.Exec, fr *Frame, kind frameKind, why string) {
	x.Instr(f.p.AckInstr)
	f.send(x, &wire.Packet{Src: f.node, Dst: fr.Src, Prio: wire.High, Bytes: int64(f.p.AckBytes),
		Body: &Frame{Kind: kind, Src: f.node, Seq: fr.Seq, Why: why}}, false)
	f.flush(x)
}

func (f *Firmware) arrived(x *i960.Exec, pk *wire.Packet) {
	fr := pk.Body.(*Frame)
	hdr := int((f.p.FrameBytes + 3) / 4)
	switch fr.Kind {
	case fAck, fNack:
		x.Pop(pk, hdr)
		x.Instr(f.p.AckRxInstr)
		o := f.buffered[fr.Seq]
		if o == nil {
			x.Fatalf("funi: node %d got a %s for packet %d it does not hold", f.node, frameNames[fr.Kind], fr.Seq)
			return
		}
		if fr.Kind == fAck {
			f.Stats.Acks++
			delete(f.buffered, fr.Seq)
			f.startTx(x)
			return
		}
		f.Stats.Nacks++
		x.After(f.p.RetryDelay, retry{fr.Seq})
	case fRestart:
		x.Pop(pk, hdr)
		x.Instr(f.p.AckRxInstr)
		f.Stats.Restarts++
		f.roundOf[fr.Src] = fr.Round
		for _, seq := range slices.Sorted(maps.Keys(f.buffered)) { // every unacknowledged packet to it is retried
			if o := f.buffered[seq]; o.pk.Dst == fr.Src && !o.queued {
				f.resend(x, o)
			}
		}
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
		f.data(x, pk, fr, hdr)
	}
}

// data takes an arriving payload packet.
func (f *Firmware) data(x *i960.Exec, pk *wire.Packet, fr *Frame, hdr int) {
	x.Instr(f.p.RxInstr)
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
			x.Pop(pk, hdr+fr.Words)
			x.DRAM(fr.Words)
			x.After(f.p.GIDQuantum/4, &squall.Arrived{Packet: pk})
			return
		}
		x.Discard(pk, hdr)
		f.ack(x, fr, fNack, "gid")
		return
	}
	key := uint64(fr.Src)<<48 | fr.Seq
	if f.seen[key] {
		f.Stats.Duplicates++
		x.Discard(pk, hdr)
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
				x.Pop(pk, hdr+fr.Words)
				x.DRAM(fr.Words)
				x.After(f.p.RetryDelay, &squall.Arrived{Packet: pk})
				return
			}
			x.Discard(pk, hdr)
			f.ack(x, fr, fNack, "full")
			return
		}
	}
	f.seen[key] = true
	x.Pop(pk, hdr+fr.Words)
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
		x.HostWrite(words, true, &RxEntry{Addr: RxAddr(gid, prio, idx%f.p.Slots), Msg: m})
		x.SetMailbox(rxHead(prio), uint32(f.rxHeadIdx[gid][prio]))
	}
	if !f.arctic {
		f.ack(x, fr, fAck, "")
	}
}

// overflow starts a new round after the PLM discarded a packet (IEEE 1394, s.3.2.4):
// packets of the old round still in the FIFO are discarded, every sender retries its
// unacknowledged packets to this node with the new round.
func (f *Firmware) overflow(x *i960.Exec) {
	if f.arctic {
		return
	}
	x.Instr(f.p.AckInstr)
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

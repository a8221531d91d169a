package portals3

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/host"
	"github.com/seastar-sim/seastar/ht"
	"github.com/seastar-sim/seastar/protocols/portals3/ptl"
	"github.com/seastar-sim/seastar/router"
)

// Bridge is how a client reaches the Portals library in the kernel (Brightwell et al.
// 2005 s.4).
type Bridge string

// Bridges.
const (
	// QKBridge serves Catamount applications: a null trap into the kernel, and
	// physically contiguous memory, so one DMA command covers a whole buffer.
	QKBridge Bridge = "qkbridge"
	// UKBridge serves Linux user processes: a system call, and pinned small pages, so
	// the host computes and pushes one DMA command per page.
	UKBridge Bridge = "ukbridge"
	// KBridge serves Linux kernel clients (Lustre): no crossing, but kernel pages, so
	// one DMA command per page as well.
	KBridge Bridge = "kbridge"
)

// ParseBridge parses a bridge name.
func ParseBridge(s string) (Bridge, error) {
	switch Bridge(s) {
	case QKBridge, UKBridge, KBridge:
		return Bridge(s), nil
	}
	return "", fmt.Errorf("unknown bridge %q (want qkbridge, ukbridge or kbridge)", s)
}

// paged reports whether a bridge's memory is small pages rather than physically
// contiguous.
func (b Bridge) paged() bool { return b != QKBridge }

// Stack is generic-mode Portals on one node's host: the library in the kernel with the
// SeaStar NAL (its interrupt handler does the Portals processing of every message,
// Brightwell et al. 2005 s.4.1) and the interfaces of the processes that use it.
type Stack struct {
	p      Params
	node   router.NodeID
	cpu    *host.CPU
	nis    map[ptl.PID]*Process
	txFree []int
	txOps  map[int]*txOp
	rxOps  map[int]*rxOp
	opRecs opRecords // records of finished txOps and rxOps, for the next ones
	eqNext uint64
	wireID uint64
	Stats  StackStats

	accelUsed int // accelerated slots given to processes
	// txWait holds sends that found every TX pending in use (recovery=gbn, where TX
	// pendings stay in use until acknowledged): sent as pendings free, in order.
	txWait []deferredSend
	// reported is the count of generic events last reported taken (recovery=gbn).
	reported uint64
	// mailboxRead is the host's read of a mailbox's head pointer over HyperTransport
	// before it posts a command, without the write-through technique (a round trip:
	// 2 x ht.latency + ht.sram_latency); 0 with it (ppc.write_through).
	mailboxRead actors.Duration
}

// StackStats counts what the host side did.
type StackStats struct {
	Messages    int64 // generic events handled
	Dropped     int64 // incoming messages that matched nothing
	MatchWalked int64 // match entries examined
	TxWaits     int64 // sends that waited for a TX pending (recovery=gbn)
}

// deferredSend is a send waiting for a TX pending.
type deferredSend struct {
	op      *txOp
	hdr     ptl.Header
	regions []ptl.Region
	bridge  Bridge
	payload []byte
}

// txOp is what a TX pending carries, for its completion.
type txOp struct {
	proc  *Process
	hdr   ptl.Header
	kind  WireKind
	reply ptl.Delivery // a get served (kind Reply): GET_END when the reply has left
	cause uint64       // the message this one answers (a get's reply, a put's ack), for tracing
}

// rxOp is a message whose payload the RX DMA engine is depositing.
type rxOp struct {
	proc *Process
	d    ptl.Delivery
	wire *Wire
}

// opRecords recycles the records of the kernel's operations: the pending tables are
// their only holders, and a completion takes its record out of them.
type opRecords struct {
	tx actors.FreeList[txOp]
	rx actors.FreeList[rxOp]
}

// NewStack installs generic-mode Portals on a host: the interrupt handler and the
// host-managed TX pending pool.
func NewStack(p Params, node router.NodeID, cpu *host.CPU) *Stack {
	s := &Stack{p: p, node: node, cpu: cpu, nis: map[ptl.PID]*Process{}, txOps: map[int]*txOp{}, rxOps: map[int]*rxOp{}}
	s.txFree = make([]int, 0, p.TxPendings)
	for i := p.TxPendings - 1; i >= 0; i-- {
		s.txFree = append(s.txFree, i)
	}
	cpu.HandleInterrupts(s.interrupt)
	return s
}

// ctx is where kernel code runs: a process's system call or the interrupt handler.
type ctx interface {
	Charge(d actors.Duration)
	Memcpy(n actors.Bytes)        // data the host wrote (from the cache when it fits)
	MemcpyFromNIC(n actors.Bytes) // data the NIC wrote by DMA (from memory)
	MMIOWrite(to ht.Unit, bytes actors.Bytes, payload actors.Msg)
	Store(addr uint64, m actors.Msg) // write host memory that a process may be waiting on
	Fatalf(format string, args ...any)
}

// post writes a command into the generic mailbox, reading its head pointer first when
// the host keeps no cached copy of it (mailboxRead).
func (s *Stack) post(c ctx, bytes actors.Bytes, cmd actors.Msg) {
	if s.mailboxRead > 0 {
		c.Charge(s.mailboxRead)
	}
	c.MMIOWrite(ht.PPC, bytes, cmd)
}

// allocTx takes a TX pending from the host-managed pool.
func (s *Stack) allocTx(c ctx) int {
	if len(s.txFree) == 0 {
		c.Fatalf("portals: node %d out of TX pendings (%d in flight): resource exhaustion", s.node, s.p.TxPendings)
	}
	id := s.txFree[len(s.txFree)-1]
	s.txFree = s.txFree[:len(s.txFree)-1]
	return id
}

// send hands a message to the firmware: the header (and an inline payload) into the
// TX pending's upper half, then a transmit command with the DMA program into the
// mailbox (Pedretti & Hudson 2005 s.4.3.1).
func (s *Stack) send(c ctx, op *txOp, hdr ptl.Header, regions []ptl.Region, bridge Bridge, payload []byte) {
	if len(s.txFree) == 0 && s.p.Recovery == "gbn" {
		s.Stats.TxWaits++
		s.txWait = append(s.txWait, deferredSend{op: op, hdr: hdr, regions: regions, bridge: bridge, payload: payload})
		return
	}
	tr, t0 := s.traceStart(c)
	id := s.allocTx(c)
	s.wireID++
	dst := router.NodeID(hdr.Dst.NID)
	w := newWire(Wire{Kind: op.kind, Src: s.node, Dst: dst, ID: uint64(s.node)<<40 | s.wireID, Data: payload}, hdr, s.p.Recovery == "gbn")
	cmd := txCommands.New(TxCommand{Pending: id, Wire: w, Header: upperAddr(id)})
	if n := int64(hdr.Length); n <= int64(s.p.InlineMax) && (op.kind == Put || op.kind == Reply) {
		w.Inline = n
		c.Memcpy(actors.Bytes(n)) // the payload goes into the upper pending with the header
	} else if op.kind == Put || op.kind == Reply {
		w.Len = n
		cmd.Payload = s.program(c, regions, bridge, cmd.dma[:0])
	}
	c.Memcpy(s.p.HeaderBytes) // build the header in the upper pending
	s.txOps[id] = op
	s.post(c, s.p.CmdBytes*actors.Bytes(2+len(cmd.Payload)), cmd)
	if tr != nil {
		s.traceSend(c, tr, t0, w, id, op.cause)
	}
}

// program turns the memory of a transfer into DMA commands, appended to out: one per
// region for physically contiguous memory, one per page (each pinned and translated
// for a user process) under Linux.
func (s *Stack) program(c ctx, regions []ptl.Region, bridge Bridge, out []Region) []Region {
	page := uint64(s.p.PageBytes)
	for _, r := range regions {
		if !bridge.paged() {
			out = append(out, Region{Addr: r.Addr, Len: int64(r.Len)})
			continue
		}
		for a, end := r.Addr, r.Addr+r.Len; a < end; {
			next := min(end, (a/page+1)*page)
			out = append(out, Region{Addr: a, Len: int64(next - a)})
			if bridge == UKBridge {
				c.Charge(s.p.PinPage)
			}
			a = next
		}
	}
	return out
}

// deliver posts events to processes: each costs KernEvent and rings the event queue's
// doorbell in host memory, which wakes a process waiting on it.
func (s *Stack) deliver(c ctx, pr *Process, posted []ptl.Posted) {
	for _, p := range posted {
		c.Charge(s.p.KernEvent)
		pr.ring(c, p.EQ)
	}
}

// interrupt is the SeaStar NAL's interrupt handler: each call processes the next entry
// of the generic event queue and reports whether there was one; the host calls it
// until the queue is empty, entries that land meanwhile included (Pedretti & Hudson
// 2005 s.4.1: one interrupt may cover several events).
func (s *Stack) interrupt(k *host.Kernel, vector int) bool {
	c := k
	if vector != IRQVector {
		c.Fatalf("portals: unexpected interrupt vector %d", vector)
	}
	slot := genericSlot(s.eqNext, s.p.EQSlots)
	m, ok := k.Memory(slot)
	if !ok {
		if s.p.Recovery == "gbn" && s.eqNext != s.reported {
			// The pass is over: tell the firmware how many events it may write on.
			s.reported = s.eqNext
			s.post(c, s.p.CmdBytes, EQConsumed{N: s.eqNext})
		}
		return false
	}
	ev := m.(*GenericEvent)
	if ev.Seq != s.eqNext {
		// The firmware wrote over an entry the host had not taken: the queue in host
		// memory is too small for the events outstanding (the firmware does not wait
		// for room, as the C firmware does not).
		c.Fatalf("portals: generic event queue overflow on node %d: event %d found where event %d was expected (portals.eq_slots %d is too small for the events outstanding)",
			s.node, ev.Seq, s.eqNext, s.p.EQSlots)
	}
	k.Forget(slot)
	s.eqNext++
	s.Stats.Messages++
	t0 := k.Now()
	k.Charge(s.p.KernIRQ)
	switch ev.Kind {
	case NewHeader:
		s.onHeader(c, ev)
	case RxDone:
		s.onRxDone(c, ev)
	case TxDone:
		s.onTxDone(c, ev)
	}
	if t := k.Tracer(); t != nil {
		s.traceEvent(k, t, ev, t0)
	}
	if ev.Kind == TxDone {
		ev.Wire.Drop() // the sender is done with the message's descriptor
	}
	ev.release() // out of host memory (Forget) and handled: nothing names it
	return true
}

// release returns an RX pending to the firmware.
func (s *Stack) release(c ctx, pending int) {
	s.post(c, s.p.CmdBytes, ReleaseCommand{Pending: pending})
}

// onHeader runs Portals matching on the header of a new message (Brightwell et al.
// 2005 s.4.1) and tells the firmware what to do with its payload.
func (s *Stack) onHeader(c ctx, ev *GenericEvent) {
	w := ev.Wire
	hdr := w.Hdr.(*ptl.Header)
	pr := s.nis[hdr.Dst.PID]
	if pr == nil || pr.accel { // an accelerated process not registered yet: nobody to match
		s.drop(c, ev)
		return
	}
	d := pr.ni.DeliverHeader(*hdr)
	c.Charge(s.p.KernMatch + actors.Duration(d.Searched)*s.p.KernMatchME)
	s.Stats.MatchWalked += int64(d.Searched)
	s.deliver(c, pr, d.Posted)
	if !d.Accepted {
		s.drop(c, ev)
		return
	}
	switch hdr.Op {
	case ptl.OpAck:
		s.release(c, ev.Pending)
	case ptl.OpGet:
		s.release(c, ev.Pending)
		op := s.opRecs.tx.New(txOp{proc: pr, hdr: *d.Response, kind: Reply, reply: d, cause: w.ID})
		op.reply.KeepRegions() // a send that waits for a TX pending programs them later
		s.send(c, op, *d.Response, op.reply.Regions, pr.bridge, pr.ni.ReadData(d))
	default: // put or reply
		if w.Len == 0 {
			s.complete(c, pr, d, w)
			s.release(c, ev.Pending)
			return
		}
		c.Charge(s.p.KernRxCmd)
		cmd := rxCommands.New(RxCommand{Pending: ev.Pending, MLength: int64(d.MLength)})
		cmd.Regions = s.program(c, d.Regions, pr.bridge, cmd.dma[:0])
		op := s.opRecs.rx.New(rxOp{proc: pr, d: d, wire: w})
		op.d.KeepResponse() // a put's ack, sent by complete
		if w.Data != nil {
			op.d.KeepRegions() // complete writes the bytes through them
		} else {
			op.d.Regions = nil // the next delivery's: nothing reads them again
		}
		s.rxOps[ev.Pending] = op
		s.post(c, s.p.CmdBytes*actors.Bytes(1+len(cmd.Regions)), cmd)
	}
}

// drop disposes of a message that matched nothing: its payload, if any, is discarded
// by a receive command with no destination.
func (s *Stack) drop(c ctx, ev *GenericEvent) {
	s.Stats.Dropped++
	if ev.Wire.Len == 0 {
		s.release(c, ev.Pending)
		return
	}
	s.rxOps[ev.Pending] = s.opRecs.rx.New(rxOp{wire: ev.Wire})
	s.post(c, s.p.CmdBytes, &RxCommand{Pending: ev.Pending})
}

// complete finishes an accepted put or reply whose data is in host memory: the data
// (when modelled) lands in the MD, the END event is posted and an owed ack is sent.
func (s *Stack) complete(c ctx, pr *Process, d ptl.Delivery, w *Wire) {
	if w.Len == 0 {
		c.MemcpyFromNIC(actors.Bytes(d.MLength)) // inline payload: copied from the upper pending, which the NIC wrote
	}
	if w.Data != nil {
		if err := pr.ni.WriteData(d, w.Data); err != nil {
			c.Fatalf("portals: writing %s: %v", w, err)
		}
	}
	posted, err := pr.ni.Complete(d, false)
	if err != nil {
		c.Fatalf("portals: completing %s: %v", w, err)
	}
	s.deliver(c, pr, posted)
	if d.Response != nil && d.Header.Op == ptl.OpPut {
		s.send(c, s.opRecs.tx.New(txOp{proc: pr, hdr: *d.Response, kind: Ack, cause: w.ID}), *d.Response, nil, pr.bridge, nil)
	}
}

func (s *Stack) onRxDone(c ctx, ev *GenericEvent) {
	rec := s.rxOps[ev.Pending]
	if rec == nil {
		c.Fatalf("portals: RX completion of unknown pending %d", ev.Pending)
	}
	delete(s.rxOps, ev.Pending)
	op := s.opRecs.rx.Take(rec)
	if op.proc != nil { // nil: a dropped message's payload was discarded
		s.complete(c, op.proc, op.d, op.wire)
	}
	s.release(c, ev.Pending)
}

func (s *Stack) onTxDone(c ctx, ev *GenericEvent) {
	rec := s.txOps[ev.Pending]
	if rec == nil {
		c.Fatalf("portals: TX completion of unknown pending %d", ev.Pending)
	}
	delete(s.txOps, ev.Pending)
	op := s.opRecs.tx.Take(rec)
	s.txFree = append(s.txFree, ev.Pending)
	if len(s.txWait) > 0 {
		d := s.txWait[0]
		s.txWait = s.txWait[1:]
		s.send(c, d.op, d.hdr, d.regions, d.bridge, d.payload)
	}
	switch op.kind {
	case Put:
		posted, err := op.proc.ni.SendDone(op.hdr, ev.Failed)
		if err != nil {
			c.Fatalf("portals: send done %s: %v", op.hdr, err)
		}
		s.deliver(c, op.proc, posted)
	case Reply:
		posted, err := op.proc.ni.Complete(op.reply, ev.Failed)
		if err != nil {
			c.Fatalf("portals: get done %s: %v", op.hdr, err)
		}
		s.deliver(c, op.proc, posted)
	case Get:
		if ev.Failed { // recovery=gbn gave up on the target: the get ends with PTL_NI_FAIL
			s.failGet(c, &op)
		}
	}
}

// failGet ends a get whose request never reached its target: an empty reply is
// delivered to the get's MD and completed as failed (REPLY_START and REPLY_END with
// PTL_NI_FAIL), the initiator's only way to learn of it.
func (s *Stack) failGet(c ctx, op *txOp) {
	start, end, err := failedReply(op.proc.ni, op.hdr)
	if err != nil {
		c.Fatalf("portals: failing get %s: %v", op.hdr, err)
	}
	s.deliver(c, op.proc, start)
	s.deliver(c, op.proc, end)
}

// failedReply delivers to ni an empty reply to its get hdr and completes it as failed:
// the events of its start and of its end (none if the MD is gone: nobody waits).
func failedReply(ni *ptl.NI, hdr ptl.Header) (start, end []ptl.Posted, err error) {
	rh := hdr
	rh.Op, rh.Src, rh.Dst, rh.Length = ptl.OpReply, hdr.Dst, hdr.Src, 0
	d := ni.DeliverHeader(rh)
	if !d.Accepted {
		return d.Posted, nil, nil
	}
	end, err = ni.Complete(d, true)
	return d.Posted, end, err
}

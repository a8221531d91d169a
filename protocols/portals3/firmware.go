package portals3

import (
	"slices"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/cam"
	"github.com/seastar-sim/seastar/firmware"
	"github.com/seastar-sim/seastar/firmware/camswap"
	"github.com/seastar-sim/seastar/ppc"
	"github.com/seastar-sim/seastar/protocols/portals3/ptl"
	"github.com/seastar-sim/seastar/router"
	"github.com/seastar-sim/seastar/rxdma"
	"github.com/seastar-sim/seastar/txdma"
)

// IRQVector is the interrupt the generic firmware raises for the host.
const IRQVector = 1

// Firmware is the generic-mode Portals firmware of one node (Pedretti & Hudson 2005
// s.4): a polling main loop dispatching run-to-completion handlers over the generic
// mailbox, the TX pending list, per-source RX pending lists and the CAM. Every event
// for the host goes into the generic event queue in host memory, followed by an
// interrupt.
type Firmware struct {
	node   router.NodeID
	p      Params
	cmax   int64 // largest RX command
	depth  int   // CAM queue depth
	camN   int
	crc    int64
	fifo   int                       // TX command FIFO depth
	pend   actors.LazyArray[pending] // by id, in chunks of pendChunk
	rxFree firmware.IDs              // the generic process's RX pendings
	srcs   map[router.NodeID]*source
	idle   []*source                 // freed source records, for reuse (dropIdle)
	cam    *camswap.Entries[*source] // CAM entries (swapped between sources with gbn)
	txList actors.FIFO[int]          // TX pendings in order; the head is being sent
	inFIFO int                       // TX commands pushed and not retired
	pushed uint64
	eqNext uint64
	accel  []accelProc     // accelerated processes by slot
	byPID  map[ptl.PID]int // accelerated slot of a pid
	wireID uint64          // messages the firmware originates
	// done are the descriptors of messages whose RX pendings the handler freed (the
	// host released one, or an accelerated process's): the receiving firmware's
	// holds, dropped once the handler's trace is written.
	done  []*Wire
	Stats FirmwareStats

	g      *gbn // recovery=gbn; nil for the C firmware's behaviour
	GBN    GBNStats
	pioMax int   // PIO command FIFO depth (gbn's acknowledgements)
	pioBuf int64 // PIO buffer bytes
}

type pending struct {
	state   pendState
	wire    *Wire
	peer    router.NodeID
	txCmds  []txdma.Command // TX commands not yet in the FIFO
	rxCmds  []cam.Command   // RX commands not yet in the CAM queue
	rxLeft  int             // RX commands pushed and not retired
	regions []Region
	mlength int64
	have    bool            // the host's receive command arrived
	role    pendRole        // accelerated pendings: what the pending is for
	prog    []txdma.Command // gbn: the whole TX program, for retransmissions
	acked   bool            // gbn: the destination acknowledged it
	unrefd  bool            // gbn: its first transmission left, releasing the destination's source structure
	tries   int             // gbn: times resent
	seq     uint32          // gbn: the number of its transmit (Wire.Seq)
	failed  bool            // gbn: given up: it completes with PTL_NI_FAIL when its transmission leaves
	// txProg and rxProg hold the arrays of its TX and RX programs (txCmds and rxCmds
	// are consumed from their fronts), from txPrograms and rxPrograms; reset returns
	// them.
	txProg *actors.Array[txdma.Command]
	rxProg *actors.Array[cam.Command]
	rxCmd  *RxCommand // the host's receive command, whose regions are in regions
	// accRegions is the array an accelerated pending's regions are built in, kept
	// across reset (the generic path's regions are the RX command's).
	accRegions []Region
	accelTx    *AccelTx // the library's transmit command it started, recycled at reset
	reply      *Wire    // roleReply: the reply the firmware sends, its hold dropped when it has left
}

// The arrays of DMA programs, recycled across messages and nodes: each message's
// program would otherwise be an allocation, and an array kept in every pending that
// once held a message would cost a machine of 10,368 nodes about 50 MB.
var (
	txPrograms actors.Arrays[txdma.Command]
	rxPrograms actors.Arrays[cam.Command]
)

// reset sets the pending to v, returning its program arrays: their commands have been
// copied into the FIFO and the CAM, and gbn keeps its own copy (prog).
func (pd *pending) reset(v pending) {
	if pd.txProg != nil {
		txPrograms.Put(pd.txProg)
	}
	if pd.rxProg != nil {
		rxPrograms.Put(pd.rxProg)
	}
	if pd.rxCmd != nil {
		rxCommands.Release(pd.rxCmd)
	}
	if pd.accelTx != nil {
		accelTxs.Release(pd.accelTx)
	}
	keep := pd.accRegions[:0]
	*pd = v
	pd.accRegions = keep
}

// txArray and rxArray return an empty TX or RX program with room for n commands, in
// the pending's array (taken from txPrograms or rxPrograms if it has none); the caller
// stores the program back in it (txProg.S, rxProg.S) once built.
func (pd *pending) txArray(n int) []txdma.Command {
	if pd.txProg == nil {
		pd.txProg = txPrograms.Get()
	}
	return slices.Grow(pd.txProg.S[:0], n)
}

func (pd *pending) rxArray(n int) []cam.Command {
	if pd.rxProg == nil {
		pd.rxProg = rxPrograms.Get()
	}
	return slices.Grow(pd.rxProg.S[:0], n)
}

// pendChunk is how many pendings the firmware's table allocates at a time (small: the
// receive pool starts at portals.tx_pendings, inside a chunk). The table
// (1,530 pendings a node by default, Pedretti & Hudson 2005 s.4.2) is mostly never
// used, and the firmware takes the lowest free ones first, so its memory comes in
// chunks as pendings are first touched: a large machine does not pay for every node's
// whole table.
const pendChunk = 16

type pendState uint8

const (
	free pendState = iota
	txQueued
	rxWaiting // header sent to the host, waiting for its receive command
	rxActive  // payload being received
	rxDone    // completion posted, waiting for release
	txSent    // gbn: sent, waiting for its acknowledgement
)

type source struct {
	camswap.Source                  // its CAM entry (swapped between sources with gbn: package camswap)
	refs           int              // pendings that name this node
	rxList         actors.FIFO[int] // RX pendings from this node in arrival order; the head owns the CAM entry
}

// CAM implements camswap.Src.
func (s *source) CAM() *camswap.Source { return &s.Source }

// FirmwareStats counts what the firmware did.
type FirmwareStats struct {
	Sent, Received, Inline int64
	PeakSources, PeakRx    int
	PeakCAM                int
	Interrupts             int64
	Records                int64 // records written to accelerated processes
	MatchWalked            int64 // match entries the firmware examined (accelerated)
	Dropped                int64 // accelerated messages that matched nothing
}

// NewFirmware returns the generic firmware of node. cp and tp are the node's CAM and TX
// DMA parameters.
func NewFirmware(node router.NodeID, p Params, cp cam.Params, tp txdma.Params) *Firmware {
	f := &Firmware{node: node, p: p, cmax: int64(cp.CommandMax), depth: cp.QueueDepth, camN: cp.Entries,
		crc: int64(tp.CRCBytes), fifo: tp.CommandsMax, pend: actors.NewLazyArray[pending](p.Pendings+p.AccelProcs*p.AccelPendings, pendChunk),
		srcs: map[router.NodeID]*source{}, accel: make([]accelProc, p.AccelProcs), byPID: map[ptl.PID]int{},
		pioMax: tp.PIOCommandsMax, pioBuf: int64(tp.PIOBufferBytes)}
	if p.Recovery == "gbn" {
		f.g = newGBN()
	}
	f.rxFree = firmware.NewIDs(p.TxPendings, p.Pendings)
	f.cam = camswap.New[*source](camFW{f}, camswap.Config{Name: "portals", Entries: cp.Entries, Depth: cp.QueueDepth,
		SwapInstr: p.FwRxInstr, SwappedInstr: p.FwRxInstr / 2, Peak: &f.Stats.PeakCAM})
	return f
}

// Boot implements ppc.Firmware: the SRAM budget of Pedretti & Hudson 2005 s.4.2,
// M = S*Ssize + P*Psize for the one generic process.
func (f *Firmware) Boot(b *ppc.Boot) error {
	b.Alloc("sources", f.p.SourceBytes, f.p.Sources)
	b.Alloc("generic pendings", f.p.PendingBytes, f.p.Pendings)
	b.Alloc("generic mailbox", 64, 32)
	b.Alloc("NIC control block", 256, 1)
	f.bootAccel(b)
	return nil
}

// Handle implements ppc.Firmware.
func (f *Firmware) Handle(x *ppc.Exec, ev actors.Msg) {
	x.Store(1) // heartbeat, written through to the control block
	x.StoreUncached(1)
	tracing := x.Tracing() || x.Tracer() != nil
	var tw *Wire
	if tracing {
		tw = f.traceBegin(x, ev)
	}
	var done *TxCommand // a transmit command copied into its pending, to recycle
	switch ev := ev.(type) {
	case *TxCommand:
		if f.onTxCommand(x, ev) {
			done = ev
		}
	case *RxCommand:
		f.onRxCommand(x, ev)
	case EQConsumed:
		f.onEQConsumed(x, ev)
	case ReleaseCommand:
		f.onRelease(x, ev)
	case *AccelTx:
		f.onAccelTx(x, ev)
	case *AccelTable:
		f.onAccelTable(x, ev)
	case *AccelRelease:
		f.onAccelRelease(x, ev)
	case *AccelInit:
		f.onAccelInit(x, ev)
	case rxdma.SOM:
		f.onSOM(x, ev)
	case *rxdma.Done:
		f.onRxDone(x, *ev)
	case *txdma.Done:
		if ev.Tag&ctlTag != 0 {
			f.onCtlSent(x)
		} else {
			f.onTxDone(x, *ev)
		}
	case gbnTimeout:
		f.onTimeout(x, ev)
	case gbnGoBack:
		f.goBack(x, ev.dst, ev.seq, false)
	case *txdma.Retired:
		f.inFIFO = int(f.pushed - ev.Total)
		f.feedTx(x)
	case *cam.Stalled:
		x.Instr(f.p.FwStallInstr)
		if f.g != nil && ev.Miss {
			f.cam.Stalled(x, ev.Src)
		}
	case cam.Swapped:
		if f.g == nil {
			x.Fatalf("portals: node %d got %s but runs recovery=%s", f.node, ev, f.p.Recovery)
		}
		f.cam.Returned(x, ev)
		if src := f.srcs[ev.Src]; src != nil {
			f.dropIdle(ev.Src, src) // it may have been kept only for its entry's return
		}
	default:
		x.Fatalf("portals: firmware got unexpected %T", ev)
	}
	if tracing {
		f.traceEnd(x, ev, tw)
	}
	if done != nil {
		txCommands.Release(done)
	}
	for i, w := range f.done { // the receiving firmware is done with them
		w.Drop()
		f.done[i] = nil
	}
	f.done = f.done[:0]
}

// mailbox charges reading a command of n regions out of the uncached mailbox.
func (f *Firmware) mailbox(x *ppc.Exec, regions int) { x.Mailbox(4 + 2*regions) }

// source returns the structure of node n, allocating it; the node panics when the
// 1,024 sources are exhausted, as the C firmware does (Pedretti & Hudson 2005 s.4.3.3).
func (f *Firmware) source(x *ppc.Exec, n router.NodeID) *source {
	x.Instr(f.p.FwSourceInstr)
	x.Load(3)
	s := f.srcs[n]
	if s == nil {
		if len(f.srcs) == f.p.Sources {
			x.Fatalf("portals: out of source structures (%d in use) for node %d: resource exhaustion panics the node", f.p.Sources, n)
		}
		if k := len(f.idle); k > 0 {
			s, f.idle = f.idle[k-1], f.idle[:k-1]
			s.Source = camswap.NewSource(n) // refs 0 and rxList empty (with its array) since dropIdle
		} else {
			s = &source{Source: camswap.NewSource(n)}
		}
		f.srcs[n] = s
		f.Stats.PeakSources = max(f.Stats.PeakSources, len(f.srcs))
		x.Store(4)
	}
	s.refs++
	return s
}

func (f *Firmware) unref(n router.NodeID) {
	s := f.srcs[n]
	s.refs--
	f.dropIdle(n, s)
}

// dropIdle frees source s of node n when nothing names it: no pending, no RX message,
// no CAM entry of its on the way back from a swap. The record is kept for reuse when no
// CAM structure can still point at it: it owns no entry and, without gbn, it was never
// in the queue for one (with gbn a source bound by a swap while queued stays in the
// queue, flagged not waiting, until the queue reaches it).
func (f *Firmware) dropIdle(n router.NodeID, s *source) {
	if s.refs == 0 && s.rxList.Len() == 0 && !s.Swapping {
		delete(f.srcs, n)
		if f.g == nil && s.Entry < 0 && !s.Waiting && !s.Spilled {
			f.idle = append(f.idle, s)
		}
	}
}

// acceptFrom returns the source structure of a message w being taken; with gbn a
// message with a payload binds a CAM entry for it now if one is free (else its source
// waits, or gets one by swapping when its packets stall the RX pipeline).
func (f *Firmware) acceptFrom(x *ppc.Exec, w *Wire) *source {
	src := f.source(x, w.Src)
	if f.g != nil && w.Len > 0 && src.Entry < 0 && !src.Swapping && f.cam.Free() > 0 {
		f.cam.Bind(x, src)
	}
	return src
}

// post writes a generic event into host memory and interrupts the host.
func (f *Firmware) post(x *ppc.Exec, kind EventKind, pend int, src router.NodeID, w *Wire) {
	f.postEvent(x, newGenericEvent(GenericEvent{Kind: kind, Pending: pend, Src: src, Wire: w}))
}

// postEvent writes ev into the generic event queue (writeEvent), or, with gbn and the
// queue full, holds it back until the host has taken events (onEQConsumed).
func (f *Firmware) postEvent(x *ppc.Exec, ev *GenericEvent) {
	if f.g != nil && (len(f.g.heldEv) > 0 || f.eqNext-f.g.consumed >= uint64(f.p.EQSlots)) {
		f.g.heldEv = append(f.g.heldEv, ev) // gbn: the queue is full: written when the host has taken some
		f.GBN.EventsHeld++
		return
	}
	f.writeEvent(x, ev)
}

// writeEvent writes ev into the next slot of the generic event queue and interrupts
// the host.
func (f *Firmware) writeEvent(x *ppc.Exec, ev *GenericEvent) {
	ev.Slot, ev.Seq = genericSlot(f.eqNext, f.p.EQSlots), f.eqNext
	x.HostWrite(f.p.EventBytes, ev)
	f.eqNext++
	x.Interrupt(IRQVector)
	f.Stats.Interrupts++
}

// onTxCommand queues a transmit at the tail of the TX pending list (Pedretti & Hudson
// 2005 s.4.3.1); all transmits are serialized through it. It reports whether the
// command is done with (false: it waits for a source structure, gbn).
func (f *Firmware) onTxCommand(x *ppc.Exec, c *TxCommand) bool {
	f.mailbox(x, len(c.Payload))
	x.Instr(f.p.FwTxInstr)
	if c.Pending < 0 || c.Pending >= f.p.TxPendings || f.pend.At(c.Pending).state != free {
		x.Fatalf("portals: transmit command with bad or busy TX pending %d", c.Pending)
	}
	if f.waitForSource(c.Wire.Dst, txWaiting{tx: c}) {
		return false
	}
	f.startTx(x, c)
	return true
}

// startTx queues a transmit command's pending on the TX pending list.
func (f *Firmware) startTx(x *ppc.Exec, c *TxCommand) {
	pd := f.pend.At(c.Pending)
	pd.reset(pending{state: txQueued, wire: c.Wire, peer: c.Wire.Dst})
	f.source(x, c.Wire.Dst)
	f.beginTx(pd, c.Wire, c.Header, len(c.Payload))
	for _, r := range c.Payload {
		pd.txCmds = append(pd.txCmds, txdma.Command{Kind: txdma.Transmit, Addr: r.Addr, Bytes: r.Len})
	}
	f.enqueueTx(x, pd, c.Pending, c.Wire)
}

// beginTx starts pending pd's TX program for message w, whose header is at header in
// host memory, with room for payload more commands: the destination, then the header
// (with any inline payload).
func (f *Firmware) beginTx(pd *pending, w *Wire, header uint64, payload int) {
	pd.txCmds = append(pd.txArray(3+payload), txdma.Command{Kind: txdma.LoadDest, Dst: w.Dst, Class: w.Kind.Class(), Data: w},
		txdma.Command{Kind: txdma.Transmit, Addr: header, Bytes: int64(f.p.HeaderBytes) + w.Inline})
}

// enqueueTx ends pending id's TX program (beginTx, then its payload commands) with the
// end of the message and puts the pending at the tail of the TX pending list.
func (f *Firmware) enqueueTx(x *ppc.Exec, pd *pending, id int, w *Wire) {
	pd.txCmds = append(pd.txCmds, txdma.Command{Kind: txdma.EndMessage, CRC: true, Notify: true, Tag: uint64(id)})
	pd.txProg.S = pd.txCmds
	pd.state = txQueued
	x.Store(8)
	if f.g != nil {
		f.gbnTx(pd, id, w)
	}
	f.txList.Push(id)
	x.Gauge("tx_pending", f.txList.Len())
	if f.txList.Len() == 1 {
		f.feedTx(x)
	}
}

// feedTx programs the TX DMA engine with the head pending's commands, as many as the
// command FIFO has room for; the rest go in when commands retire (the transmit state
// machine yields to the main loop, Pedretti & Hudson 2005 s.4.3.1).
func (f *Firmware) feedTx(x *ppc.Exec) {
	if f.txList.Len() == 0 {
		return
	}
	pd := f.pend.At(*f.txList.Front())
	if len(pd.txCmds) == 0 {
		return
	}
	x.Instr(f.p.FwTxStartInstr / 4)
	for len(pd.txCmds) > 0 && f.inFIFO < f.fifo {
		c := pd.txCmds[0]
		pd.txCmds = pd.txCmds[1:]
		x.Instr(f.p.FwTxStartInstr / 4)
		x.TX(c)
		f.inFIFO++
		f.pushed++
	}
}

func (f *Firmware) onTxDone(x *ppc.Exec, d txdma.Done) {
	x.Instr(f.p.FwDoneInstr)
	if f.txList.Len() == 0 || uint64(*f.txList.Front()) != d.Tag {
		x.Fatalf("portals: TX completion for pending %d is not the head of the TX pending list", d.Tag)
	}
	id := *f.txList.Front()
	f.txList.Pop()
	x.Gauge("tx_pending", f.txList.Len())
	if f.g != nil {
		f.gbnTxDone(x, id)
	} else if k := f.slotOf(id); k >= 0 {
		f.accelTxDone(x, k, id)
	} else {
		pd := f.pend.At(id)
		f.post(x, TxDone, id, pd.peer, pd.wire)
		f.unref(pd.peer)
		pd.reset(pending{}) // the TX pool is host-managed: the host reuses the id after TxDone
		f.Stats.Sent++
	}
	f.feedTx(x)
}

// onSOM handles a new message (Pedretti & Hudson 2005 s.4.3.2): copy its header to the
// upper pending of a new RX pending, post a new-header event and interrupt the host.
// A payload small enough to ride in the header packet goes up with the header, and the
// packet is discarded at once: the host completes the message without a second
// interrupt (s.5.2).
func (f *Firmware) onSOM(x *ppc.Exec, s rxdma.SOM) {
	x.Instr(f.p.FwSOMInstr)
	w, ok := s.Packet.Data.(*Wire)
	if !ok {
		x.Fatalf("portals: packet %s is not a Portals message", s.Packet)
	}
	x.LoadUncached(int(f.p.HeaderBytes / 4)) // read the header out of the RX FIFO
	if w.Kind == Ctl {
		f.onCtl(x, s, w)
		return
	}
	k := -1 // the accelerated process the message is for, -1 for the generic one
	hdr, _ := w.Hdr.(*ptl.Header)
	if hdr != nil && len(f.byPID) > 0 {
		x.Instr(4) // which firmware-level process: the pid table
		if slot, ok := f.byPID[hdr.Dst.PID]; ok {
			k = slot
		}
	}
	if f.g != nil && !f.gbnAccept(x, s, w, k) {
		return
	}
	if k >= 0 {
		f.onAccelSOM(x, s, w, hdr, k)
		return
	}
	if f.rxFree.Len() == 0 {
		x.Fatalf("portals: out of RX pendings (%d in use) for a message from node %d: resource exhaustion panics the node",
			f.p.Pendings-f.p.TxPendings, w.Src)
	}
	id := f.rxFree.Take()
	src := f.acceptFrom(x, w)
	f.pend.At(id).reset(pending{state: rxWaiting, wire: w, peer: w.Src})
	if w.Len > 0 { // inline messages never use the RX DMA engine
		src.rxList.Push(id)
	}
	f.Stats.PeakRx = max(f.Stats.PeakRx, f.p.Pendings-f.p.TxPendings-f.rxFree.Len())
	x.HostWrite(f.p.HeaderBytes+actors.Bytes(w.Inline), nil) // header and inline payload into the upper pending
	if w.Len == 0 {
		x.Discard(s.Packet)
		f.Stats.Inline++
	}
	f.post(x, NewHeader, id, w.Src, w)
}

// onRxCommand records where a message goes; the source's head pending is programmed
// into the CAM.
func (f *Firmware) onRxCommand(x *ppc.Exec, c *RxCommand) {
	f.mailbox(x, len(c.Regions))
	x.Instr(f.p.FwRxInstr)
	if c.Pending < f.p.TxPendings || c.Pending >= f.p.Pendings || f.pend.At(c.Pending).state != rxWaiting {
		x.Fatalf("portals: receive command for pending %d, which is not waiting for one", c.Pending)
	}
	pd := f.pend.At(c.Pending)
	pd.regions, pd.mlength, pd.have, pd.rxCmd = c.Regions, c.MLength, true, c
	pd.rxCmds = f.rxProgram(pd)
	x.Store(6)
	if src := f.srcs[pd.peer]; *src.rxList.Front() == c.Pending {
		f.programRx(x, pd.peer, src)
	}
}

// rxProgram builds the RX commands of a message: discard the header packet, deposit
// MLength bytes into the regions (at most CommandMax per command), discard the rest
// of a truncated payload, and check the CRC on the last command.
func (f *Firmware) rxProgram(pd *pending) []cam.Command {
	n := 2 // the header's discard and the last one
	for _, r := range pd.regions {
		n += int((r.Len + f.cmax - 1) / f.cmax)
	}
	rest := pd.wire.Len - pd.mlength + f.crc
	if rest > f.cmax {
		n += int((rest - 1) / f.cmax)
	}
	cmds := append(pd.rxArray(n), cam.Command{Bytes: int64(f.p.HeaderBytes), Discard: true})
	for _, r := range pd.regions {
		for off := int64(0); off < r.Len; off += f.cmax {
			cmds = append(cmds, cam.Command{Bytes: min(f.cmax, r.Len-off), Addr: r.Addr + uint64(off)})
		}
	}
	for ; rest > f.cmax; rest -= f.cmax { // a long discard (truncated or dropped payload) takes several commands
		cmds = append(cmds, cam.Command{Bytes: f.cmax, Discard: true})
	}
	cmds = append(cmds, cam.Command{Bytes: rest, Discard: true})
	cmds[len(cmds)-1].CRC = true
	if f.g != nil {
		// gbn: acknowledgements and refusals (PIO, traffic class 1) of this source may
		// arrive in the middle of this message: they must not take its commands.
		for i := 1; i < len(cmds); i++ {
			cmds[i].Cont = true
		}
	}
	pd.rxProg.S = cmds
	return cmds
}

// programRx gives the source's head pending the source's CAM entry and feeds its
// commands into the entry's queue. A CAM with every entry taken panics the node, as
// the C firmware does (Pedretti & Hudson 2005 s.4.3.3); with gbn the source waits for
// an entry, or gets one by swapping when the RX pipeline stalls on it (package camswap).
func (f *Firmware) programRx(x *ppc.Exec, n router.NodeID, src *source) {
	if !f.pend.At(*src.rxList.Front()).have {
		return
	}
	if src.Entry < 0 && f.g == nil && f.cam.Free() == 0 {
		x.Fatalf("portals: CAM full (%d entries) for a message from node %d: resource exhaustion panics the node", f.camN, n)
	}
	f.cam.Need(x, src)
}

// feedRx pushes commands while the CAM queue has room. Every command notifies, so that
// the firmware hears when a slot frees; the tag says which pending it belongs to.
func (f *Firmware) feedRx(x *ppc.Exec, src *source, pd *pending, id int) {
	for src.Entry >= 0 && len(pd.rxCmds) > 0 && src.Queued < f.depth {
		c := pd.rxCmds[0]
		pd.rxCmds = pd.rxCmds[1:]
		c.Notify, c.Tag = true, uint64(id)
		x.CAMPush(src.Entry, c)
		src.Queued++
		pd.rxLeft++
	}
}

// onRxDone retires an RX command; the last one of a message completes it.
func (f *Firmware) onRxDone(x *ppc.Exec, d rxdma.Done) {
	x.Instr(f.p.FwDoneInstr / 2)
	src := f.srcs[d.Src]
	id := int(d.Tag)
	pd := f.pend.At(id)
	if src == nil || src.rxList.Len() == 0 || *src.rxList.Front() != id || pd.state != rxActive {
		x.Fatalf("portals: RX completion for pending %d from node %d out of order", id, d.Src)
	}
	src.Queued--
	pd.rxLeft--
	if len(pd.rxCmds) > 0 {
		f.feedRx(x, src, pd, id)
		return
	}
	if pd.rxLeft > 0 {
		return
	}
	x.Instr(f.p.FwDoneInstr / 2)
	pd.state = rxDone
	src.rxList.Pop()
	if k := f.slotOf(id); k < 0 {
		f.post(x, RxDone, id, d.Src, pd.wire)
		f.Stats.Received++
	} else if pd.role == roleDrop {
		f.freeAccel(x, id)
	} else {
		f.accelRxDone(x, k, id)
	}
	if src.rxList.Len() > 0 {
		f.programRx(x, d.Src, src)
		return
	}
	f.cam.Release(x, src)
}

// onRelease returns an RX pending to the free list.
func (f *Firmware) onRelease(x *ppc.Exec, c ReleaseCommand) {
	f.mailbox(x, 0)
	x.Instr(f.p.FwRelInstr)
	if c.Pending < f.p.TxPendings || c.Pending >= f.p.Pendings {
		x.Fatalf("portals: release of pending %d, which is not an RX pending", c.Pending)
	}
	pd := f.pend.At(c.Pending)
	switch {
	case pd.state == rxDone:
	case pd.state == rxWaiting && pd.wire.Len == 0: // inline message: completed by the host
		f.Stats.Received++
	default:
		x.Fatalf("portals: release of pending %d in state %d", c.Pending, pd.state)
	}
	peer := pd.peer
	if pd.wire != nil {
		f.done = append(f.done, pd.wire) // dropped after the handler's trace
	}
	pd.reset(pending{})
	f.rxFree.Put(c.Pending)
	f.unref(peer)
	f.retryTxWait(x)
}

package portals3

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/firmware"
	"github.com/seastar-sim/seastar/ppc"
	"github.com/seastar-sim/seastar/protocols/portals3/ptl"
	"github.com/seastar-sim/seastar/router"
	"github.com/seastar-sim/seastar/rxdma"
	"github.com/seastar-sim/seastar/txdma"
)

// Accelerated mode (Pedretti & Hudson 2005 s.4.1-4.3; Brightwell et al. 2005 s.4.1;
// Dillow & Atchley 2011 s.III.B): a user-level process owns a firmware-level process of
// its own, with a dedicated mailbox, its own pools of pendings and its match lists in
// SRAM. It posts transmit commands straight into its mailbox, and the firmware builds
// the DMA program from the (physically contiguous, Catamount) buffer. Arriving
// messages are matched by the firmware against the process's match lists and deposited
// at once, with no interrupt; the firmware writes completion records into the
// process's event queue in host memory, which the library polls when it is entered,
// turning them into Portals events and releasing the pendings. Calls that change the
// match lists (ME and MD attach, bind, unlink, update) are offloaded: a command into
// the mailbox and a result the library busy-waits for. Generic processes, in the
// kernel, keep working beside accelerated ones: the firmware routes each arriving
// message by its destination pid.

// Commands of an accelerated process's mailbox.
type (
	// AccelInit registers an accelerated process with the firmware (sent by the kernel
	// when the process starts: initialization cannot be offloaded).
	AccelInit struct {
		Slot   int
		PID    ptl.PID
		NI     *ptl.NI
		Result uint64 // host address of the result
	}
	// AccelTx sends a message whose header the library stored in TX pending
	// Pending's upper half; the firmware builds the DMA program for Region.
	// The library's come from accelTxs: the firmware recycles one when the pending it
	// started resets (it may wait for a source structure past its handler first).
	AccelTx struct {
		Slot    int
		Pending int
		Wire    *Wire
		Region  Region // the payload (Len 0: none, or inline)
		Kind    WireKind
		actors.PoolMark
	}
	// AccelTable runs a match-list or MD call in the firmware, where the lists live.
	AccelTable struct {
		Slot   int
		Call   func() // the call, run on the lists
		Result uint64 // host address of the result
	}
	// AccelRelease returns an RX pending to the firmware; the firmware's core gives
	// back one from NewAccelRelease once handled (Release).
	AccelRelease struct {
		Slot, Pending int
		actors.PoolMark
	}
)

// accelTxs recycles the transmit commands of accelerated processes.
var accelTxs actors.Pool[AccelTx, *AccelTx]

// accelReleases recycles the release commands of accelerated processes.
var accelReleases actors.Pool[AccelRelease, *AccelRelease]

// NewAccelRelease returns a release of RX pending pending of slot slot, recycled once
// the firmware has handled it.
func NewAccelRelease(slot, pending int) *AccelRelease {
	return accelReleases.New(AccelRelease{Slot: slot, Pending: pending})
}

// Release recycles c if NewAccelRelease made it; the caller must be its last holder.
func (c *AccelRelease) Release() { accelReleases.Release(c) }

func (c *AccelInit) String() string {
	return fmt.Sprintf("portals.AccelInit(slot%d pid%d)", c.Slot, c.PID)
}
func (c *AccelTx) String() string {
	return fmt.Sprintf("portals.AccelTx(slot%d p%d %s)", c.Slot, c.Pending, c.Wire)
}
func (c *AccelTable) String() string { return fmt.Sprintf("portals.AccelTable(slot%d)", c.Slot) }
func (c *AccelRelease) String() string {
	return fmt.Sprintf("portals.AccelRelease(slot%d p%d)", c.Slot, c.Pending)
}

// RecordKind is the kind of a record of an accelerated process's event queue.
type RecordKind uint8

// Records the firmware writes for an accelerated process.
const (
	RecRxDone  RecordKind = iota // a put or reply arrived (payload in place); release the pending
	RecGetDone                   // a get was served (the reply has left); release the pending
	RecTxDone                    // a message of the process has left; its TX pending is free
	RecEvents                    // matching posted events (an ack); nothing to release
	RecResult                    // the result of an offloaded call or of the registration
)

var recordNames = [...]string{"rx-done", "get-done", "tx-done", "events", "result"}

func (k RecordKind) String() string { return recordNames[k] }

// Record is an entry of an accelerated process's event queue in host memory (or the
// result slot of an offloaded call), written by the firmware.
type Record struct {
	Addr    uint64
	Kind    RecordKind
	Pending int
	Wire    *Wire
	D       ptl.Delivery // what matching decided (rx-done, get-done)
	Failed  bool         // recovery=gbn gave up on the peer: the transmit ends with PTL_NI_FAIL (tx-done, get-done)
	actors.PoolMark
}

// records recycles the records of an accelerated process's event queue: the library
// releases one once it has consumed it (a call's result record is not from here).
var records actors.Pool[Record, *Record]

func (r *Record) String() string {
	return fmt.Sprintf("portals.Record(%s p%d %v)", r.Kind, r.Pending, r.Wire)
}

// Address implements host.Addressed.
func (r *Record) Address() uint64 { return r.Addr }

// Host memory of accelerated processes (names, not real memory).
const (
	accelEQBase     = 0x7200_0000 // record rings, one per slot
	accelResultBase = 0x7300_0000 // result slots of offloaded calls, one ring per slot
	accelSlotStride = 0x0010_0000
	resultSlots     = 1024
)

// accelSlot is the address of record i of slot k's event queue.
func accelRecord(k int, i uint64, size int) uint64 {
	return accelEQBase + uint64(k)*accelSlotStride + (i%uint64(size))*eventSlotBytes
}

// accelResult is the address of the result of the i-th offloaded call of slot k.
func accelResult(k int, i uint64) uint64 {
	return accelResultBase + uint64(k)*accelSlotStride + (i%resultSlots)*8
}

// Roles of the pendings of accelerated processes.
type pendRole uint8

const (
	roleGeneric pendRole = iota
	roleSend             // a put or get request of the process
	roleRecv             // an arriving put or reply, deposited by the RX DMA
	roleReply            // an arriving get, served by the firmware with a reply
	roleAck              // an ack the firmware owes for a put
	roleDrop             // an arriving message that matched nothing: payload discarded
)

// accelProc is the firmware's side of an accelerated process.
type accelProc struct {
	ni     *ptl.NI
	pid    ptl.PID
	base   int            // first pending id of the slot
	rxFree firmware.IDs   // firmware-managed RX pool
	dlv    []ptl.Delivery // what the firmware's matching decided for each of the slot's pendings (by id - base)
	eqNext uint64
	live   bool
	ackQ   []ackReq // recovery=gbn: acks waiting for a free pending of the pool
}

// ackReq is an ack the firmware owes, waiting for a pending to send it from.
type ackReq struct {
	resp  ptl.Header
	cause uint64
}

// slotOf returns the accelerated slot owning pending id, or -1 for the generic process.
func (f *Firmware) slotOf(id int) int {
	if id < f.p.Pendings {
		return -1
	}
	return (id - f.p.Pendings) / f.p.AccelPendings
}

// delivery is what the firmware's matching decided for accelerated pending id. It is
// kept beside the slot rather than in every pending: the generic pendings, most of the
// table, never have one.
func (f *Firmware) delivery(id int) *ptl.Delivery {
	a := &f.accel[f.slotOf(id)]
	return &a.dlv[id-a.base]
}

// record writes r into slot k's event queue (no interrupt: the library polls).
func (f *Firmware) record(x *ppc.Exec, k int, rec Record) {
	a := &f.accel[k]
	r := records.New(rec)
	r.Addr = accelRecord(k, a.eqNext, f.p.AccelEQSlots)
	a.eqNext++
	x.HostWrite(f.p.EventBytes, r)
	f.Stats.Records++
}

func (f *Firmware) checkSlot(x *ppc.Exec, k int, what string) *accelProc {
	if k < 0 || k >= len(f.accel) || !f.accel[k].live {
		x.Fatalf("portals: %s for accelerated slot %d, which is not registered", what, k)
	}
	return &f.accel[k]
}

func (f *Firmware) onAccelInit(x *ppc.Exec, c *AccelInit) {
	f.mailbox(x, 1)
	x.Instr(f.p.FwTableInstr)
	if c.Slot < 0 || c.Slot >= len(f.accel) || f.accel[c.Slot].live {
		x.Fatalf("portals: registration of accelerated slot %d: no such free slot", c.Slot)
	}
	if _, dup := f.byPID[c.PID]; dup {
		x.Fatalf("portals: pid %d is already accelerated", c.PID)
	}
	a := &f.accel[c.Slot]
	base := f.p.Pendings + c.Slot*f.p.AccelPendings
	*a = accelProc{ni: c.NI, pid: c.PID, base: base, live: true, dlv: make([]ptl.Delivery, f.p.AccelPendings),
		rxFree: firmware.NewIDs(base+f.p.AccelTxPendings, base+f.p.AccelPendings)}
	f.byPID[c.PID] = c.Slot
	x.Store(8)
	x.HostWrite(f.p.ResultBytes, &Record{Addr: c.Result, Kind: RecResult})
}

// onAccelTable runs an offloaded call on the lists in cached SRAM at a fixed cost: no
// table call walks a list (the lists keep their ends, and an entry is reached by its
// handle).
func (f *Firmware) onAccelTable(x *ppc.Exec, c *AccelTable) {
	f.checkSlot(x, c.Slot, "table call")
	f.mailbox(x, 1)
	c.Call()
	x.Instr(f.p.FwTableInstr)
	x.Store(4)
	x.HostWrite(f.p.ResultBytes, &Record{Addr: c.Result, Kind: RecResult})
}

// onAccelTx queues a transmit of an accelerated process: the firmware builds the DMA
// program from the contiguous buffer (one command per CommandMax bytes).
func (f *Firmware) onAccelTx(x *ppc.Exec, c *AccelTx) {
	a := f.checkSlot(x, c.Slot, "transmit command")
	f.mailbox(x, 1)
	x.Instr(f.p.FwTxInstr)
	if c.Pending < a.base || c.Pending >= a.base+f.p.AccelTxPendings || f.pend.At(c.Pending).state != free {
		x.Fatalf("portals: accelerated transmit with bad or busy TX pending %d", c.Pending)
	}
	if f.waitForSource(c.Wire.Dst, txWaiting{accel: c}) {
		return
	}
	f.startAccelTx(x, c)
}

// startAccelTx queues a transmit of an accelerated process.
func (f *Firmware) startAccelTx(x *ppc.Exec, c *AccelTx) {
	pd := f.pend.At(c.Pending)
	pd.reset(pending{state: txQueued, wire: c.Wire, peer: c.Wire.Dst, role: roleSend})
	pd.accelTx = c
	f.source(x, c.Wire.Dst)
	f.queueTx(x, c.Pending, c.Wire, upperAddr(c.Pending), []Region{c.Region})
}

// queueTx builds the TX commands of a message whose header is at header in host
// memory, with payload regions (the firmware's own DMA program), and puts the pending
// at the tail of the TX pending list.
func (f *Firmware) queueTx(x *ppc.Exec, id int, w *Wire, header uint64, payload []Region) {
	pd := f.pend.At(id)
	f.beginTx(pd, w, header, len(payload))
	for _, r := range payload {
		for off := int64(0); off < r.Len; off += f.cmax {
			x.Instr(f.p.FwDMAInstr)
			pd.txCmds = append(pd.txCmds, txdma.Command{Kind: txdma.Transmit, Addr: r.Addr + uint64(off), Bytes: min(f.cmax, r.Len-off)})
		}
	}
	f.enqueueTx(x, pd, id, w)
}

// onAccelSOM handles a new message for accelerated slot k: the firmware matches it
// and sets the pending up at once (Pedretti & Hudson 2005 s.4.3.2).
func (f *Firmware) onAccelSOM(x *ppc.Exec, s rxdma.SOM, w *Wire, hdr *ptl.Header, k int) {
	a := &f.accel[k]
	if a.rxFree.Len() == 0 {
		x.Fatalf("portals: out of RX pendings of accelerated process %d (%d in use) for a message from node %d: "+
			"resource exhaustion panics the node", a.pid, f.p.AccelPendings-f.p.AccelTxPendings, w.Src)
	}
	id := a.rxFree.Take()
	src := f.acceptFrom(x, w)
	d := a.ni.DeliverHeader(*hdr)
	x.Instr(f.p.FwMatchInstr + f.p.FwMatchMEInstr*d.Searched)
	x.Load(f.p.FwMatchMELoads * d.Searched)
	f.Stats.MatchWalked += int64(d.Searched)
	pd := f.pend.At(id)
	pd.reset(pending{state: rxWaiting, wire: w, peer: w.Src, role: roleRecv})
	// The slot keeps the delivery past this handler: a put's ack, accelRxDone sends it,
	// and real bytes it writes through the regions (serveGet takes a get's reply and
	// regions in this handler).
	dd := f.delivery(id)
	*dd = d
	if hdr.Op == ptl.OpPut {
		dd.KeepResponse()
	}
	if w.Data != nil {
		dd.KeepRegions()
	}
	x.HostWrite(f.p.HeaderBytes, nil) // the header into the upper pending, for the library
	switch {
	case !d.Accepted:
		pd.role = roleDrop
		f.Stats.Dropped++
	case hdr.Op == ptl.OpAck:
		x.Discard(s.Packet)
		f.record(x, k, Record{Kind: RecEvents, Pending: -1}) // no wire: freeAccel drops the firmware's hold
		f.freeAccel(x, id)
		return
	case hdr.Op == ptl.OpGet:
		x.Discard(s.Packet)
		f.serveGet(x, k, id)
		return
	}
	if w.Len == 0 { // nothing to receive: inline payload (or none), or a dropped header
		x.Discard(s.Packet)
		if pd.role == roleDrop {
			f.freeAccel(x, id)
			return
		}
		f.Stats.Inline++
		x.HostWrite(actors.Bytes(w.Inline), nil) // the payload from the header into the MD
		f.accelRxDone(x, k, id)
		return
	}
	if pd.role != roleDrop {
		regs := pd.accRegions[:0]
		for _, r := range d.Regions {
			regs = append(regs, Region{Addr: r.Addr, Len: int64(r.Len)})
		}
		pd.accRegions, pd.regions = regs, regs
		pd.mlength = int64(d.MLength)
	}
	pd.have = true
	pd.rxCmds = f.rxProgram(pd)
	src.rxList.Push(id)
	f.Stats.PeakRx = max(f.Stats.PeakRx, src.rxList.Len())
	if *src.rxList.Front() == id {
		f.programRx(x, w.Src, src)
	}
}

// serveGet answers a get for slot k from the firmware: the reply header goes into the
// pending's upper half and the TX DMA sends it with the data of the matched MD.
func (f *Firmware) serveGet(x *ppc.Exec, k, id int) {
	a := &f.accel[k]
	pd := f.pend.At(id)
	pd.role = roleReply
	d := f.delivery(id)
	w := newWire(Wire{Kind: Reply, Src: f.node, Dst: pd.peer, ID: f.fwWireID()}, *d.Response, f.g != nil)
	var payload []Region
	if n := int64(w.hdr.Length); n <= int64(f.p.InlineMax) {
		w.Inline = n
	} else {
		w.Len = n
	}
	for _, r := range d.Regions {
		payload = append(payload, Region{Addr: r.Addr, Len: int64(r.Len)})
	}
	if w.Inline > 0 { // the firmware reads the small payload into the header
		x.LoadHost(int((w.Inline + 3) / 4))
		payload = nil
	}
	w.Data = a.ni.ReadData(*d)
	x.HostWrite(f.p.HeaderBytes+actors.Bytes(w.Inline), nil) // the reply header into the upper pending
	pd.reply = w
	f.queueTx(x, id, w, upperAddr(id), payload)
	f.traceFirmwareRoot(x, w, pd.wire.ID)
}

// fwWireIDs marks the ids of messages the firmware originates (replies and acks of
// accelerated processes, go-back-n's acknowledgements and refusals), apart from the
// host's.
const fwWireIDs = 1 << 39

// fwWireID returns the id of the next message the firmware originates.
func (f *Firmware) fwWireID() uint64 {
	f.wireID++
	return uint64(f.node)<<40 | fwWireIDs | f.wireID
}

// accelRxDone completes an arriving put or reply of slot k: a record for the library
// and, for a put that asked for one, the ack the firmware sends itself.
func (f *Firmware) accelRxDone(x *ppc.Exec, k, id int) {
	pd, d := f.pend.At(id), f.delivery(id)
	pd.state = rxDone
	if pd.wire.Data != nil { // the bytes, when modelled, are in the MD now: the DMA put them there
		if err := f.accel[k].ni.WriteData(*d, pd.wire.Data); err != nil {
			x.Fatalf("portals: writing %s: %v", pd.wire, err)
		}
	}
	f.record(x, k, Record{Kind: RecRxDone, Pending: id, Wire: pd.wire, D: *d})
	f.Stats.Received++
	if d.Response != nil && d.Header.Op == ptl.OpPut {
		f.sendAck(x, k, d.Response, pd.wire.ID)
	}
}

// sendAck sends an ack from a firmware-managed pending of slot k.
func (f *Firmware) sendAck(x *ppc.Exec, k int, resp *ptl.Header, cause uint64) {
	a := &f.accel[k]
	if a.rxFree.Len() == 0 && f.g != nil { // gbn: sent when a pending frees
		a.ackQ = append(a.ackQ, ackReq{resp: *resp, cause: cause})
		return
	}
	if a.rxFree.Len() == 0 {
		x.Fatalf("portals: out of pendings of accelerated process %d for an ack: resource exhaustion panics the node", a.pid)
	}
	id := a.rxFree.Take()
	w := newWire(Wire{Kind: Ack, Src: f.node, Dst: router.NodeID(resp.Dst.NID), ID: f.fwWireID()}, *resp, f.g != nil)
	f.pend.At(id).reset(pending{wire: w, peer: w.Dst, role: roleAck})
	f.source(x, w.Dst)
	x.HostWrite(f.p.HeaderBytes, nil)
	f.queueTx(x, id, w, upperAddr(id), nil)
	f.traceFirmwareRoot(x, w, cause)
}

// accelTxDone retires a transmit of an accelerated process's pending.
func (f *Firmware) accelTxDone(x *ppc.Exec, k, id int) {
	pd := f.pend.At(id)
	failed := pd.failed
	switch pd.role {
	case roleSend: // host-managed: the library takes the pending back with the record
		f.record(x, k, Record{Kind: RecTxDone, Pending: id, Wire: pd.wire, Failed: failed})
		if !pd.unrefd {
			f.unref(pd.peer)
		}
		pd.reset(pending{})
	case roleReply:
		pd.state = rxDone
		f.record(x, k, Record{Kind: RecGetDone, Pending: id, Wire: pd.wire, D: *f.delivery(id), Failed: failed})
		f.done = append(f.done, pd.reply) // the firmware's hold as the reply's sender (a no-op under gbn, newWire)
		pd.reply = nil
	case roleAck:
		f.freeAccel(x, id)
	default:
		x.Fatalf("portals: TX completion of accelerated pending %d in role %d", id, pd.role)
	}
	if !failed {
		f.Stats.Sent++
	}
}

// freeAccel returns a firmware-managed pending to its slot's RX pool.
func (f *Firmware) freeAccel(x *ppc.Exec, id int) {
	k := f.slotOf(id)
	a := &f.accel[k]
	pd := f.pend.At(id)
	peer, unrefd := pd.peer, pd.unrefd
	if pd.wire != nil { // the receiving firmware's hold, as the generic firmware's at release
		f.done = append(f.done, pd.wire)
	}
	pd.reset(pending{})
	*f.delivery(id) = ptl.Delivery{}
	a.rxFree.Put(id)
	if !unrefd { // (gbn releases a transmit's source structure when it first leaves)
		f.unref(peer)
	}
	x.Store(2)
	if len(a.ackQ) > 0 { // gbn: an ack waited for this pending
		q := a.ackQ[0]
		a.ackQ = a.ackQ[1:]
		f.sendAck(x, k, &q.resp, q.cause)
	}
	f.retryTxWait(x)
}

func (f *Firmware) onAccelRelease(x *ppc.Exec, c *AccelRelease) {
	a := f.checkSlot(x, c.Slot, "release")
	f.mailbox(x, 0)
	x.Instr(f.p.FwRelInstr)
	if c.Pending < a.base+f.p.AccelTxPendings || c.Pending >= a.base+f.p.AccelPendings || f.pend.At(c.Pending).state != rxDone {
		x.Fatalf("portals: accelerated release of pending %d, which is not a completed RX pending of slot %d", c.Pending, c.Slot)
	}
	f.freeAccel(x, c.Pending)
}

// bootAccel adds the accelerated processes' structures to the SRAM budget.
func (f *Firmware) bootAccel(b *ppc.Boot) {
	if f.p.AccelProcs == 0 {
		return
	}
	b.Alloc("accelerated pendings", f.p.PendingBytes, f.p.AccelProcs*f.p.AccelPendings)
	b.Alloc("accelerated match entries and MDs", f.p.ObjectBytes, f.p.AccelProcs*f.p.AccelObjects)
	b.Alloc("accelerated mailboxes", 64, f.p.AccelProcs*32)
}

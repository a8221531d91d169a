package portals3

import (
	"fmt"
	"slices"

	"github.com/seastar-sim/seastar/cam"
	"github.com/seastar-sim/seastar/ppc"
	"github.com/seastar-sim/seastar/router"
	"github.com/seastar-sim/seastar/rxdma"
	"github.com/seastar-sim/seastar/txdma"
)

// Go-back-n recovery (portals.recovery=gbn), our design for what the C firmware does
// not do (it panics the node when sources, RX pendings or CAM entries run out, and a
// lost message stays lost; Pedretti & Hudson 2005 s.4.3.3):
//
//   - The sending NIC numbers every message per destination (Wire.Seq) and keeps it,
//     with its DMA program, until the destination's NIC acknowledges it; the host's
//     TxDone (and so SEND_END) waits for the acknowledgement. When every TX pending is
//     in use the host queues its sends instead of failing.
//   - The receiving NIC takes a message only in order and only if it has an RX pending
//     and a source structure for it; it acknowledges it (a cumulative acknowledgement,
//     a PIO message) and the rest goes on as without recovery. A message out of order
//     (one before it was lost or refused) or without resources is discarded whole and
//     refused, naming the number to resend from; a duplicate is discarded and
//     acknowledged again.
//   - The sender goes back on a refusal (after portals.nack_delay) or when its oldest
//     unacknowledged message to a destination times out (portals.rto): it resends every
//     unacknowledged message from that one on, in order; each timeout in a row
//     doubles the destination's timer (up to 64 x portals.rto), an acknowledgement
//     resets it. A message timed out portals.retries times makes it give up on the
//     destination: every unacknowledged message to it completes with PTL_NI_FAIL
//     (SEND_END of a put, GET_END of a reply, REPLY_END of a get whose request was
//     lost; a lost ack has no failure event in Portals 3.3 and its initiator keeps
//     waiting), and the next messages carry Resync until one is acknowledged, so that
//     the receiver restarts its sequence there.
//   - CAM overflow recovery, with the CAM's swap as CCI uses it (Dillow & Atchley 2011
//     s.IV.B.2): a message with a payload takes a free CAM entry for its source when
//     it is accepted; with none free its source waits for one, and when its packets
//     reach the head of the RX FIFO (the CAM reports the miss) the firmware swaps an
//     entry away from another source, in clock order, spilling that source's queued
//     commands to its record in host memory; the spilled source gets an entry back
//     (and reads its record) when one frees or when its own packets need it. The
//     entries are managed by package camswap, CCI's code.
//   - The generic event queue in host memory: the host reports how many events it has
//     taken at the end of each interrupt pass (EQConsumed), and the firmware holds back
//     events while the queue is full instead of writing over one the host has not
//     taken.
//   - A transmit that finds no free source structure waits for one, and releases it
//     when it has left (not when it is acknowledged: acknowledgements may need the
//     peer's structures in turn).
//   - Accelerated processes (accel.go): their transmits and those the firmware makes
//     for them (replies to gets, acks) are numbered and kept like the host's; a TX
//     record waits for the acknowledgement and carries the failure when the sender
//     gives up; a message for the process is refused when the process's own RX pool
//     is empty, and an ack the firmware owes waits for a pending of that pool.

// ctlTag marks the TX notifications of acknowledgements and refusals (PIO messages).
const ctlTag = 1 << 63

type gbn struct {
	txSeq    map[router.NodeID]uint32 // last number given per destination
	unacked  map[router.NodeID][]int  // TX pendings not acknowledged, in number order
	expect   map[router.NodeID]uint32 // next number expected per source (0: 1)
	rtoGen   map[router.NodeID]uint64
	ctlQ     []*Wire // acknowledgements and refusals waiting for PIO room
	pioN     int
	pioB     int64
	txWait   []txWaiting            // transmits waiting for a source structure
	resync   map[router.NodeID]bool // gave up on it: the next messages carry Resync
	consumed uint64                 // generic events the host has taken (EQConsumed)
	heldEv   []*GenericEvent        // events waiting for room in the generic event queue
	backoff  map[router.NodeID]uint // timeouts in a row per destination: the timer doubles with each (at most rtoBackoffMax)
}

// txWaiting is a transmit waiting for a source structure: a generic one or an
// accelerated process's.
type txWaiting struct {
	tx    *TxCommand
	accel *AccelTx
}

func (t txWaiting) dst() router.NodeID {
	if t.tx != nil {
		return t.tx.Wire.Dst
	}
	return t.accel.Wire.Dst
}

// GBNStats counts go-back-n's work on one node.
type GBNStats struct {
	Acks, Refusals, Retransmits, Timeouts, GoBacks int64 // as sender: go-backs and timeouts that resent something
	AcksSent, Refused, OutOfOrder                  int64 // as receiver: refused = no pending or source
	Swaps, Spills, Refills                         int64 // CAM entries swapped away, sources spilled, records read back
	Duplicates                                     int64
	SourceWaits, Failed                            int64 // Failed: messages given up on (PTL_NI_FAIL)
	EventsHeld                                     int64 // generic events held back for want of room in the queue
}

// Add adds o's counts to s.
func (s *GBNStats) Add(o GBNStats) {
	s.Acks += o.Acks
	s.Refusals += o.Refusals
	s.Retransmits += o.Retransmits
	s.Timeouts += o.Timeouts
	s.GoBacks += o.GoBacks
	s.AcksSent += o.AcksSent
	s.Refused += o.Refused
	s.Swaps += o.Swaps
	s.Spills += o.Spills
	s.Refills += o.Refills
	s.OutOfOrder += o.OutOfOrder
	s.Duplicates += o.Duplicates
	s.SourceWaits += o.SourceWaits
	s.Failed += o.Failed
	s.EventsHeld += o.EventsHeld
}

type (
	gbnTimeout struct {
		dst router.NodeID
		gen uint64
	}
	gbnGoBack struct {
		dst router.NodeID
		seq uint32
	}
)

func (t gbnTimeout) String() string { return fmt.Sprintf("portals.gbnTimeout(node%d)", t.dst) }
func (b gbnGoBack) String() string {
	return fmt.Sprintf("portals.gbnGoBack(node%d from %d)", b.dst, b.seq)
}

func newGBN() *gbn {
	return &gbn{txSeq: map[router.NodeID]uint32{}, unacked: map[router.NodeID][]int{}, expect: map[router.NodeID]uint32{},
		rtoGen: map[router.NodeID]uint64{}, resync: map[router.NodeID]bool{}, backoff: map[router.NodeID]uint{}}
}

// gbnTx numbers transmit w of pending id and keeps its program for retransmissions.
func (f *Firmware) gbnTx(pd *pending, id int, w *Wire) {
	g := f.g
	dst := w.Dst
	g.txSeq[dst]++
	w.Seq = g.txSeq[dst]
	w.Resync = g.resync[dst]
	pd.seq = w.Seq
	pd.prog = slices.Clone(pd.txCmds)
	g.unacked[dst] = append(g.unacked[dst], id)
}

// gbnTxDone is a message's (re)transmission leaving the NIC: an acknowledged message
// completes at the host; else it waits, under its destination's timer.
func (f *Firmware) gbnTxDone(x *ppc.Exec, id int) {
	pd := f.pend.At(id)
	if !pd.unrefd {
		pd.unrefd = true
		f.unref(pd.peer)
		f.retryTxWait(x)
	}
	if pd.acked || pd.failed {
		f.completeTx(x, id)
		return
	}
	pd.state = txSent
	if u := f.g.unacked[pd.peer]; len(u) > 0 && u[0] == id {
		f.armRTO(x, pd.peer)
	}
}

// completeTx posts a sent and acknowledged (or given up) message's TxDone to the host.
func (f *Firmware) completeTx(x *ppc.Exec, id int) {
	pd := f.pend.At(id)
	if pd.failed {
		f.GBN.Failed++
	}
	if k := f.slotOf(id); k >= 0 { // an accelerated process's: a record, or a pending back to its pool
		f.accelTxDone(x, k, id)
		return
	}
	f.postEvent(x, newGenericEvent(GenericEvent{Kind: TxDone, Pending: id, Src: pd.peer, Wire: pd.wire, Failed: pd.failed}))
	if !pd.failed {
		f.Stats.Sent++
	}
	pd.reset(pending{})
}

// giveUp fails every unacknowledged message to dst and restarts the sequence.
func (f *Firmware) giveUp(x *ppc.Exec, dst router.NodeID) {
	for _, id := range f.g.unacked[dst] {
		pd := f.pend.At(id)
		pd.failed = true
		if pd.state == txSent {
			f.completeTx(x, id)
		} // else it completes when its transmission leaves
	}
	delete(f.g.unacked, dst)
	f.g.rtoGen[dst]++
	f.g.resync[dst] = true
}

// rtoBackoffMax bounds the doubling of the retransmission timer: portals.rto x 64.
const rtoBackoffMax = 6

func (f *Firmware) armRTO(x *ppc.Exec, dst router.NodeID) {
	f.g.rtoGen[dst]++
	x.After(f.p.RTO<<f.g.backoff[dst], gbnTimeout{dst: dst, gen: f.g.rtoGen[dst]})
}

// goBack resends every unacknowledged message to dst numbered from on that is not
// already waiting to be sent, and returns how many. A resend after a timeout counts
// towards portals.retries; one after a refusal does not (the destination is alive).
func (f *Firmware) goBack(x *ppc.Exec, dst router.NodeID, from uint32, timeout bool) int {
	n := 0
	for _, id := range f.g.unacked[dst] {
		pd := f.pend.At(id)
		if pd.seq < from || pd.state != txSent {
			continue
		}
		if timeout {
			pd.tries++
		}
		if pd.tries > f.p.Retries {
			f.giveUp(x, dst)
			return n
		}
		x.Instr(f.p.FwTxInstr)
		pd.state = txQueued
		pd.txCmds = slices.Clone(pd.prog)
		f.txList.Push(id)
		f.GBN.Retransmits++
		n++
		if f.txList.Len() == 1 {
			f.feedTx(x)
		}
	}
	if n > 0 {
		f.GBN.GoBacks++
		x.Gauge("tx_pending", f.txList.Len())
	}
	return n
}

// onCtl takes an acknowledgement or refusal from dst.
func (f *Firmware) onCtl(x *ppc.Exec, s rxdma.SOM, w *Wire) {
	x.Discard(s.Packet)
	x.Instr(f.p.FwCtlInstr)
	if f.g == nil {
		x.Fatalf("portals: node %d got a go-back-n %s but runs recovery=%s", f.node, w, f.p.Recovery)
	}
	dst := w.Src
	if w.Nack {
		f.GBN.Refusals++
		x.After(f.p.NackDelay, gbnGoBack{dst: dst, seq: w.Seq})
		return
	}
	f.GBN.Acks++
	delete(f.g.resync, dst)
	u := f.g.unacked[dst]
	n := 0
	for _, id := range u {
		pd := f.pend.At(id)
		if pd.seq > w.Seq {
			break
		}
		n++
		pd.acked = true
		if pd.state == txSent {
			f.completeTx(x, id)
		} // else its transmission is still in the TX list: it completes when it leaves
	}
	f.g.unacked[dst] = u[n:]
	if n > 0 {
		delete(f.g.backoff, dst) // progress: the timer is back to portals.rto
	}
	if len(f.g.unacked[dst]) == 0 {
		delete(f.g.unacked, dst)
		f.g.rtoGen[dst]++ // nothing left to time out
	} else if n > 0 {
		f.armRTO(x, dst)
	}
}

func (f *Firmware) onTimeout(x *ppc.Exec, t gbnTimeout) {
	if t.gen != f.g.rtoGen[t.dst] || len(f.g.unacked[t.dst]) == 0 {
		return
	}
	if f.goBack(x, t.dst, f.pend.At(f.g.unacked[t.dst][0]).seq, true) > 0 {
		f.GBN.Timeouts++ // a timeout that resent (not one whose message was still queued to leave)
		// Back off, as TCP does: a destination that does not answer within the timer
		// is likely congested (by the retransmissions of others too).
		f.g.backoff[t.dst] = min(f.g.backoff[t.dst]+1, rtoBackoffMax)
	}
	f.armRTO(x, t.dst)
}

// gbnAccept decides on a new message from its header, for accelerated slot k (-1:
// the generic process): true to take it (it was acknowledged); false when it was
// discarded and refused or re-acknowledged.
func (f *Firmware) gbnAccept(x *ppc.Exec, s rxdma.SOM, w *Wire, k int) bool {
	g := f.g
	exp := max(g.expect[w.Src], 1)
	if w.Resync && w.Seq > exp { // the sender gave up on what came before
		exp = w.Seq
		g.expect[w.Src] = exp
	}
	refuse := func(n *int64) bool {
		*n++
		f.discardWhole(x, s, w)
		f.sendCtl(x, w.Src, exp, true)
		return false
	}
	switch {
	case w.Seq < exp:
		f.GBN.Duplicates++
		f.discardWhole(x, s, w)
		f.sendCtl(x, w.Src, exp-1, false)
		return false
	case w.Seq > exp:
		return refuse(&f.GBN.OutOfOrder)
	case k < 0 && f.rxFree.Len() == 0, k >= 0 && f.accel[k].rxFree.Len() == 0,
		f.srcs[w.Src] == nil && len(f.srcs) == f.p.Sources:
		return refuse(&f.GBN.Refused)
	}
	g.expect[w.Src] = exp + 1
	f.sendCtl(x, w.Src, w.Seq, false)
	return true
}

func (f *Firmware) discardWhole(x *ppc.Exec, s rxdma.SOM, w *Wire) {
	if w.Len == 0 {
		x.Discard(s.Packet)
		return
	}
	x.DiscardMessage(s.Packet)
}

// sendCtl sends an acknowledgement of seq (or a refusal asking to resend from seq) to
// node dst by PIO, queued while the PIO FIFO or buffer is full.
func (f *Firmware) sendCtl(x *ppc.Exec, dst router.NodeID, seq uint32, nack bool) {
	x.Instr(f.p.FwCtlInstr)
	w := &Wire{Kind: Ctl, Src: f.node, Dst: dst, Seq: seq, Nack: nack, ID: f.fwWireID()}
	if !nack {
		f.GBN.AcksSent++
	}
	f.g.ctlQ = append(f.g.ctlQ, w)
	f.flushCtl(x)
}

func (f *Firmware) flushCtl(x *ppc.Exec) {
	g := f.g
	n := int64(f.p.CtlBytes)
	for len(g.ctlQ) > 0 && g.pioN < f.pioMax && g.pioB+n <= f.pioBuf {
		w := g.ctlQ[0]
		g.ctlQ = g.ctlQ[1:]
		g.pioN++
		g.pioB += n
		x.PIO(txdma.NewPIO(txdma.PIO{Dst: w.Dst, Class: Ctl.Class(), Data: w, Bytes: n, Notify: true, Tag: ctlTag}))
	}
}

func (f *Firmware) onCtlSent(x *ppc.Exec) {
	f.g.pioN--
	f.g.pioB -= int64(f.p.CtlBytes)
	f.flushCtl(x)
}

// waitForSource queues transmit t when, with gbn, no source structure is free for its
// destination dst (it starts when one frees: retryTxWait); false when t can start.
func (f *Firmware) waitForSource(dst router.NodeID, t txWaiting) bool {
	if f.g == nil || f.srcs[dst] != nil || len(f.srcs) < f.p.Sources {
		return false
	}
	f.GBN.SourceWaits++
	f.g.txWait = append(f.g.txWait, t)
	return true
}

// retryTxWait takes the transmits that waited for a source structure, while there are
// structures.
func (f *Firmware) retryTxWait(x *ppc.Exec) {
	if f.g == nil {
		return
	}
	for len(f.g.txWait) > 0 && (f.srcs[f.g.txWait[0].dst()] != nil || len(f.srcs) < f.p.Sources) {
		c := f.g.txWait[0]
		f.g.txWait = f.g.txWait[1:]
		if c.tx != nil {
			f.startTx(x, c.tx)
		} else {
			f.startAccelTx(x, c.accel)
		}
	}
}

// camFW is the generic firmware as package camswap sees it: a source's commands are
// those of its head RX pending; its record of swapped-out commands is in host memory.
type camFW struct{ f *Firmware }

func (c camFW) Lookup(n router.NodeID) (*source, bool) {
	s := c.f.srcs[n]
	return s, s != nil
}

// head is the source's head RX pending, nil without one.
func (c camFW) head(s *source) *pending {
	if s.rxList.Len() == 0 {
		return nil
	}
	return c.f.pend.At(*s.rxList.Front())
}

func (c camFW) Ready(s *source) bool {
	pd := c.head(s)
	return pd != nil && pd.have
}

func (c camFW) Backlog(s *source) bool {
	pd := c.head(s)
	return pd != nil && len(pd.rxCmds) > 0
}

func (c camFW) Next(s *source, n int) []cam.Command {
	id := *s.rxList.Front()
	pd := c.f.pend.At(id)
	pd.state = rxActive
	take := min(n, len(pd.rxCmds))
	cmds := make([]cam.Command, take)
	for i := range take {
		cmds[i] = pd.rxCmds[i]
		cmds[i].Notify, cmds[i].Tag = true, uint64(id)
	}
	pd.rxCmds = pd.rxCmds[take:]
	pd.rxLeft += take
	return cmds
}

func (c camFW) PutBack(s *source, cmds []cam.Command) {
	pd := c.head(s)
	pd.rxLeft -= len(cmds)
	pd.rxCmds = append(append([]cam.Command(nil), cmds...), pd.rxCmds...)
}

// Feed gives the head pending, once its commands are known, to the entry.
func (c camFW) Feed(x *ppc.Exec, s *source) {
	pd := c.head(s)
	if pd == nil || !pd.have {
		return
	}
	pd.state = rxActive
	c.f.feedRx(x, s, pd, *s.rxList.Front())
}

func (c camFW) Spill(x *ppc.Exec, _ *source) {
	x.HostWrite(c.f.p.SourceBytes, nil)
	c.f.GBN.Spills++
}

func (c camFW) Unspill(x *ppc.Exec, _ *source) {
	x.LoadHostCached(c.f.p.SourceBytes)
	c.f.GBN.Refills++
}

func (c camFW) Swapped(*ppc.Exec, *source) { c.f.GBN.Swaps++ }

// onEQConsumed records the events the host has taken and writes those held back while
// there is room.
func (f *Firmware) onEQConsumed(x *ppc.Exec, c EQConsumed) {
	f.mailbox(x, 0)
	x.Instr(f.p.FwRelInstr)
	if f.g == nil {
		x.Fatalf("portals: node %d got %s but runs recovery=%s", f.node, c, f.p.Recovery)
	}
	f.g.consumed = max(f.g.consumed, c.N)
	for len(f.g.heldEv) > 0 && f.eqNext-f.g.consumed < uint64(f.p.EQSlots) {
		ev := f.g.heldEv[0]
		f.g.heldEv = f.g.heldEv[1:]
		f.writeEvent(x, ev)
	}
}

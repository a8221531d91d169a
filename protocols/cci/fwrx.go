package cci

import (
	"slices"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/cam"
	"github.com/seastar-sim/seastar/firmware/camswap"
	"github.com/seastar-sim/seastar/ppc"
	"github.com/seastar-sim/seastar/router"
	"github.com/seastar-sim/seastar/rxdma"
)

// discardTag marks the RX command that discards a whole refused message.
const discardTag = 1 << 62

// peer is the NIC's record of a peer node (Dillow & Atchley 2011 s.IV.B.2: about 128
// bytes per node): its CAM entry, and the RX commands for its messages not yet in the
// entry's queue, including those a CAM swap took out. The first LocalPeers records
// live in SRAM; later ones in host memory mapped cached, each access a host read.
type peer struct {
	camswap.Source // its CAM entry (package camswap: CAM swapping)
	rec            int
	backlog        actors.FIFO[cam.Command]
}

// CAM implements camswap.Src.
func (pr *peer) CAM() *camswap.Source { return &pr.Source }

// peer returns the record of node n, creating it.
func (f *Firmware) peer(x *ppc.Exec, n router.NodeID) *peer {
	x.Instr(f.p.FwPeer)
	pr := f.peers[n]
	if pr == nil {
		pr = &peer{Source: camswap.NewSource(n), rec: len(f.peers)}
		f.peers[n] = pr
		f.Stats.PeakPeers = len(f.peers)
	}
	if pr.rec < f.p.LocalPeers {
		x.Load(2)
	} else {
		x.LoadHost(1)
	}
	return pr
}

// wireBytes is the length of a message on the network, header and CRC included.
func (f *Firmware) wireBytes(w *Wire) int64 {
	if w.Type.answer() {
		return int64(f.p.HeaderBytes) // PIO: no CRC
	}
	return int64(f.hdrBytes(w.Type)) + w.Len + f.crc
}

func rxAddr(p Params, ep, area int, off int64) uint64 {
	return rxBase + uint64(ep)<<36 + uint64(area)*uint64(p.RxAreaBytes) + uint64(off)
}

// onSOM handles a new message (Dillow & Atchley 2011 s.IV.B.2): the first word, read
// from the RX FIFO, gives its type, endpoint and length; the endpoint must be open,
// with a completion queue credit and room in its RX area, else the sender hears
// "refused" (no endpoint) or "not ready" (no resources). Answers and read requests
// are read out of the FIFO and discarded: they need no CAM entry.
func (f *Firmware) onSOM(x *ppc.Exec, s rxdma.SOM) {
	x.Instr(f.p.FwSOM)
	x.LoadUncached(2) // the first word
	pk := s.Packet
	w, ok := pk.Data.(*Wire)
	if !ok {
		x.Fatalf("cci: packet %s is not a CCI message", pk)
	}
	switch {
	case w.Type.answer():
		f.onAnswer(x, pk, w)
		return
	case w.Type == TypeReadReq:
		f.onReadReq(x, pk, w)
		return
	case w.Type == TypeInvalid || w.Type >= numTypes:
		f.Stats.Invalid++
		f.discard(x, pk, w)
		return
	}
	if w.Type.reliable() || w.Type == TypeReadResp {
		x.LoadUncached(2) // the sequence number and source connection, packed in the header's last 8 bytes: for the ack
	}
	e := f.endpoint(int(w.DstEP))
	if e == nil {
		f.refuse(x, pk, w, refusal(w.Type))
		return
	}
	switch w.Type {
	case TypeRMAWrite:
		f.onRMAWrite(x, pk, w, e)
	case TypeReadResp:
		f.onReadResp(x, pk, w)
	default:
		f.onMessage(x, pk, w, e)
	}
}

// refusal is the status a refused message of type t reports to its sender.
func refusal(t Type) Status {
	if t == TypeConnReq {
		return ErrRefused
	}
	return ErrDisconnected
}

// refuse answers "refused" to a reliable message (dropping an unreliable one) and
// discards it.
func (f *Firmware) refuse(x *ppc.Exec, pk *router.Packet, w *Wire, st Status) {
	switch {
	case w.Type.reliable():
		f.answer(x, TypeRefused, w, st)
	case w.Type == TypeReadResp:
		f.Stats.StaleResps++
	default:
		f.Stats.DroppedUU++
	}
	f.discard(x, pk, w)
}

// notReady answers "not ready" to a reliable message (dropping an unreliable one) and
// discards it.
func (f *Firmware) notReady(x *ppc.Exec, pk *router.Packet, w *Wire) {
	if w.Type.reliable() {
		f.answer(x, TypeNotReady, w, ErrRNR)
	} else {
		f.Stats.DroppedUU++
	}
	f.discard(x, pk, w)
}

// discard drops a message: a single-packet message is discarded from the FIFO by the
// PPC, a longer one by an RX command through its source's CAM entry.
func (f *Firmware) discard(x *ppc.Exec, pk *router.Packet, w *Wire) {
	n := f.wireBytes(w)
	if n <= f.pkt {
		x.Discard(pk)
		return
	}
	f.queueRx(x, f.peer(x, w.Src), cam.Command{Bytes: n, Discard: true, CRC: true, Notify: true, Tag: discardTag})
}

// onMessage places a message (or a connection handshake) into the endpoint's current
// RX area, closing it out and taking the next ready area when it does not fit; two RX
// commands: discard the first word (the completion carries it), DMA the rest.
func (f *Firmware) onMessage(x *ppc.Exec, pk *router.Packet, w *Wire, e *fwEP) {
	ep := int(w.DstEP)
	rest := int64(f.p.HeaderBytes-f.p.WordBytes) + w.Len + f.crc
	need := int64(f.p.slot(actors.Bytes(rest)))
	fits := e.cur >= 0 && e.curOff+need <= int64(f.p.RxAreaBytes)
	credits := 1
	if !fits && e.cur >= 0 {
		credits++ // the close-out event
	}
	if e.credits < credits || (!fits && e.head == len(e.ready)) || len(f.free) == 0 {
		f.notReady(x, pk, w)
		return
	}
	if !fits {
		if e.cur >= 0 {
			e.credits--
			f.post(x, ep, CQEntry{Kind: CQArea, Area: e.cur, Count: e.curN})
			f.Stats.AreaCloses++
		}
		x.LoadHost(1) // the next entry of the ready ring
		e.cur, e.curOff, e.curN = e.ready[e.head], 0, 0
		e.head++
		if e.head >= 1024 && 2*e.head >= len(e.ready) {
			e.ready = append(e.ready[:0], e.ready[e.head:]...)
			e.head = 0
		}
	}
	e.credits--
	id, _ := f.newTask(x, taskRx, ep)
	t := &f.tasks[id]
	t.wire, t.area, t.off, t.ncmds = w, e.cur, e.curOff, 2
	e.curOff += need
	e.curN++
	f.queueRx(x, f.peer(x, w.Src),
		cam.Command{Bytes: int64(f.p.WordBytes), Discard: true},
		cam.Command{Bytes: rest, Addr: rxAddr(f.p, ep, t.area, t.off), CRC: true, Notify: true, Tag: uint64(id)})
}

// regionCmds are the RX commands of an RMA transfer into a region: discard the header,
// DMA the data, discard and check the CRC (which must not land in the region).
func (f *Firmware) regionCmds(id int, addr uint64, n int64) []cam.Command {
	cmds := []cam.Command{{Bytes: int64(f.p.RMAHeader), Discard: true}, {Bytes: n, Addr: addr}}
	if f.crc > 0 {
		cmds = append(cmds, cam.Command{Bytes: f.crc, Discard: true})
	}
	last := &cmds[len(cmds)-1]
	last.CRC, last.Notify, last.Tag = true, true, uint64(id)
	return cmds
}

// onRMAWrite places RMA data straight into the target region after checking its
// handle (key, owner, write access, bounds); no completion at the target, an ack to
// the initiator.
func (f *Firmware) onRMAWrite(x *ppc.Exec, pk *router.Packet, w *Wire, e *fwEP) {
	x.LoadUncached(int((f.p.RMAHeader - f.p.HeaderBytes) / 4))
	ep := int(w.DstEP)
	in := w.H.RMA
	var mr *Region
	if in != nil {
		mr = f.region(x, in.Remote, ep, AccessWrite, in.RemoteOff, w.Len)
	}
	if mr == nil {
		f.refuse(x, pk, w, ErrInvalid)
		return
	}
	id, ok := f.newTask(x, taskWrite, ep)
	if !ok {
		f.notReady(x, pk, w)
		return
	}
	t := &f.tasks[id]
	t.wire, t.mr, t.mrOff = w, mr, in.RemoteOff
	cmds := f.regionCmds(id, mr.Addr+uint64(in.RemoteOff), w.Len)
	t.ncmds = len(cmds)
	f.queueRx(x, f.peer(x, w.Src), cmds...)
}

// onReadReq serves an RMA read without the host: the NIC checks the handle, writes the
// response header into its scratch area in host memory, and has the TX DMA engine
// send the header and the region's data back as a response.
func (f *Firmware) onReadReq(x *ppc.Exec, pk *router.Packet, w *Wire) {
	x.LoadUncached(int((f.p.RMAHeader - f.p.WordBytes) / 4))
	f.discard(x, pk, w)
	ep := int(w.DstEP)
	if f.endpoint(ep) == nil {
		f.answer(x, TypeRefused, w, ErrDisconnected)
		return
	}
	in := w.H.RMA
	var mr *Region
	if in != nil {
		mr = f.region(x, in.Remote, ep, AccessRead, in.RemoteOff, in.Len)
	}
	if mr == nil || in.Len < 1 {
		f.answer(x, TypeRefused, w, ErrInvalid)
		return
	}
	id, ok := f.newTask(x, taskResp, ep)
	if !ok {
		f.answer(x, TypeNotReady, w, ErrRNR)
		return
	}
	resp := &Wire{Type: TypeReadResp, DstEP: w.H.SrcEP, Len: in.Len, Src: f.node, Dst: w.Src, ID: f.nextID(),
		H: Header{Conn: w.H.SrcConn, Gen: w.H.SrcGen, Seq: w.H.Seq, RMA: in}}
	if mr.Data != nil {
		resp.Data = append([]byte(nil), mr.Data[in.RemoteOff:in.RemoteOff+in.Len]...)
	}
	t := &f.tasks[id]
	t.wire, t.mr, t.mrOff = resp, mr, in.RemoteOff
	x.HostWrite(f.p.RMAHeader, nil) // the response header, into the scratch area
	f.txq.Push(id)
	f.feedTx(x)
	f.traceBuilt(x, resp, nil, w.ID)
}

// onReadResp places the data of an RMA read into the initiator's region, if the read
// is still outstanding (a response to a retransmitted request may come twice).
func (f *Firmware) onReadResp(x *ppc.Exec, pk *router.Packet, w *Wire) {
	x.LoadUncached(int((f.p.RMAHeader - f.p.HeaderBytes) / 4))
	id, ok := f.reads[readKey{ep: int(w.DstEP), conn: w.H.Conn, seq: w.H.Seq}]
	if !ok || f.tasks[id].got || f.tasks[id].rxing {
		f.Stats.StaleResps++
		f.discard(x, pk, w)
		return
	}
	t := &f.tasks[id]
	t.rxing, t.resp = true, w
	cmds := f.regionCmds(id, t.mr.Addr+uint64(t.mrOff), w.Len)
	t.ncmds = len(cmds)
	f.queueRx(x, f.peer(x, w.Src), cmds...)
}

// onAnswer posts an incoming ack or refusal to its endpoint's completion queue. Without
// a credit it waits in SRAM (up to pio_queue answers for all endpoints) for the credits the
// library returns; beyond that, or for a closed endpoint, it is dropped: the sender's
// retransmission brings a new one.
func (f *Firmware) onAnswer(x *ppc.Exec, pk *router.Packet, w *Wire) {
	x.Instr(f.p.FwAckRx)
	x.LoadUncached(int((f.p.HeaderBytes - f.p.WordBytes) / 4))
	x.Discard(pk)
	e := f.endpoint(int(w.DstEP))
	switch {
	case e == nil || f.heldAnswers == f.p.PIOAckMax:
		f.Stats.AnswersLost++
		w.Drop() // the endpoint's hold: no library will read it
	case e.credits == 0 || len(e.answers) > 0:
		x.Store(4)
		e.answers = append(e.answers, w)
		f.heldAnswers++
		f.Stats.AnswersHeld++
	default:
		e.credits--
		f.post(x, int(w.DstEP), CQEntry{Kind: CQAnswer, Wire: w})
		f.Stats.AnswersIn++
	}
}

// flushAnswers posts the answers that waited for completion queue credits.
func (f *Firmware) flushAnswers(x *ppc.Exec, ep int, e *fwEP) {
	n := 0
	for ; n < len(e.answers) && e.credits > 0; n++ {
		x.Load(4)
		e.credits--
		f.post(x, ep, CQEntry{Kind: CQAnswer, Wire: e.answers[n]})
		f.Stats.AnswersIn++
	}
	if n > 0 {
		f.heldAnswers -= n
		e.answers = append(e.answers[:0], e.answers[n:]...)
	}
}

// onRxDone retires the last RX command of a message: the data is in host memory, so
// the pre-built completion goes to the endpoint and a reliable message is acked
// (Dillow & Atchley 2011 s.IV.B.2).
func (f *Firmware) onRxDone(x *ppc.Exec, d rxdma.Done) {
	x.Instr(f.p.FwRxDone)
	pr := f.peers[d.Src]
	if pr == nil {
		x.Fatalf("cci: RX completion from node %d, which sent nothing", d.Src)
	}
	if d.Tag == discardTag {
		pr.Queued--
		f.afterRetire(x, pr)
		return
	}
	id := int(d.Tag)
	t := &f.tasks[id]
	pr.Queued -= t.ncmds
	switch t.kind {
	case taskRx:
		if f.live(t) {
			f.post(x, t.ep, CQEntry{Kind: CQRecv, Area: t.area, Off: t.off, Wire: t.wire})
			f.Stats.Received++
			if t.wire.Type.reliable() {
				f.answer(x, TypeAck, t.wire, OK)
			}
		}
		f.release(x, id)
	case taskWrite:
		if f.live(t) {
			if t.wire.Data != nil {
				e := &f.eps[t.ep]
				// Bookkeeping of the bytes the DMA placed: no write of its own.
				x.HostWrite(0, &Landed{Addr: logAddr(t.ep, e.logNext), MR: t.mr, Off: t.mrOff, Data: t.wire.Data})
				e.logNext++
			}
			f.Stats.RMAWrites++
			f.answer(x, TypeAck, t.wire, OK)
		}
		f.release(x, id)
	case taskRead:
		t.got, t.rxing = true, false
		if f.live(t) {
			f.post(x, t.ep, CQEntry{Kind: CQRead, Wire: t.resp})
		}
		if !t.txing {
			delete(f.reads, t.key)
			f.release(x, id)
		}
	default:
		x.Fatalf("cci: RX completion of task %d of kind %d", id, t.kind)
	}
	f.afterRetire(x, pr)
}

// queueRx appends RX commands for a peer's message and feeds them to its CAM entry,
// binding a free entry if it has none. Without a free entry the peer waits; if the RX
// pipeline is stalled on it, another peer's entry is swapped out (package camswap).
func (f *Firmware) queueRx(x *ppc.Exec, pr *peer, cmds ...cam.Command) {
	x.Instr(f.p.FwRx)
	for _, c := range cmds {
		pr.backlog.Push(c)
	}
	f.cam.Need(x, pr)
}

// feed pushes a peer's backlog into its CAM entry while the entry's queue has room.
func (f *Firmware) feed(x *ppc.Exec, pr *peer) {
	for pr.backlog.Len() > 0 && pr.Queued < f.cp.QueueDepth {
		x.CAMPush(pr.Entry, pr.backlog.Pop())
		pr.Queued++
	}
}

// afterRetire feeds a peer's entry after commands retired and frees the entry when the
// peer has nothing left; the oldest waiting peer gets it.
func (f *Firmware) afterRetire(x *ppc.Exec, pr *peer) {
	if pr.Entry < 0 {
		return
	}
	f.feed(x, pr)
	if pr.Queued > 0 || pr.backlog.Len() > 0 {
		return
	}
	f.cam.Release(x, pr)
}

// onStalled reacts to the RX pipeline waiting for a CAM entry: the source of the
// packet at the FIFO head gets one, by swapping if the CAM is full.
func (f *Firmware) onStalled(x *ppc.Exec, s cam.Stalled) {
	x.Instr(f.p.FwStall)
	if !s.Miss {
		return // its commands are on their way
	}
	f.cam.Stalled(x, s.Src)
}

// camFW is the CCI firmware as package camswap sees it: peers' backlogs of commands,
// their records in SRAM (the first LocalPeers) or host memory.
type camFW struct{ f *Firmware }

func (c camFW) Lookup(n router.NodeID) (*peer, bool) {
	pr := c.f.peers[n]
	return pr, pr != nil
}
func (c camFW) Ready(pr *peer) bool   { return pr.backlog.Len() > 0 }
func (c camFW) Backlog(pr *peer) bool { return pr.backlog.Len() > 0 }
func (c camFW) Next(pr *peer, n int) []cam.Command {
	take := min(n, pr.backlog.Len())
	cmds := append([]cam.Command(nil), pr.backlog.Queued()[:take]...)
	for range take {
		pr.backlog.Pop()
	}
	return cmds
}
func (c camFW) PutBack(pr *peer, cmds []cam.Command) {
	var q actors.FIFO[cam.Command] // cmds ahead of what is queued (a swap: rare)
	for _, cmd := range slices.Concat(cmds, pr.backlog.Queued()) {
		q.Push(cmd)
	}
	pr.backlog = q
}
func (c camFW) Feed(x *ppc.Exec, pr *peer) { c.f.feed(x, pr) }
func (c camFW) Spill(x *ppc.Exec, pr *peer) {
	if pr.rec < c.f.p.LocalPeers {
		x.Store(int(c.f.p.PeerBytes / 4))
	} else {
		x.HostWrite(c.f.p.PeerBytes, nil)
		c.f.Stats.Spills++
	}
}
func (c camFW) Unspill(x *ppc.Exec, pr *peer) {
	if pr.rec < c.f.p.LocalPeers {
		x.Load(int(c.f.p.PeerBytes / 4))
	} else {
		x.LoadHostCached(c.f.p.PeerBytes)
	}
}
func (c camFW) Swapped(*ppc.Exec, *peer) { c.f.Stats.Swaps++ }

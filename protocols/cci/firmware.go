package cci

import (
	"github.com/seastar-sim/seastar/firmware/camswap"
	"slices"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/cam"
	"github.com/seastar-sim/seastar/ppc"
	"github.com/seastar-sim/seastar/router"
	"github.com/seastar-sim/seastar/rxdma"
	"github.com/seastar-sim/seastar/txdma"
)

// Firmware is the CCI firmware of one node's PPC (Dillow & Atchley 2011 s.IV.B): it
// polls the command queue the processes write, builds DMA programs from the kernel's
// header tables and the TX areas, receives messages into the RX areas through the CAM,
// posts completions straight into the endpoints' completion queues, acknowledges
// reliable messages with PIO, and swaps CAM entries when more peers send at once than
// the CAM has entries. It never interrupts the host.
type Firmware struct {
	node router.NodeID
	p    Params
	cp   cam.Params
	tp   txdma.Params
	crc  int64
	pkt  int64 // network packet payload

	eps   []fwEP
	tasks []task
	free  []int

	// transmit
	txq         actors.FIFO[int] // tasks waiting for room in the TX command FIFO, in order
	gaugeTxq    int              // txq's length last reported to the timeline
	inFIFO      int
	pushed      uint64
	pioN        int // PIO messages in the PIO FIFO
	pioBytes    int64
	pioQ        actors.FIFO[*Wire] // answers waiting for the PIO FIFO
	heldAnswers int                // incoming answers waiting for completion queue credits (fwEP.answers)

	cmdq     actors.FIFO[*Command] // user commands noticed and not yet taken, in queue order
	taken    []*Command            // commands the current handler took: released after it and its trace
	consumed uint64                // user commands taken from the queue
	reported uint64                // consumer index last written to the host

	// receive
	peers map[router.NodeID]*peer // never shrinks: a peer's record number is its rank of creation
	cam   *camswap.Entries[*peer] // CAM entries, swapped between peers
	reads map[readKey]int

	mrs    []*Region
	wireID uint64
	kick   bool // a task was freed: the command queue may move

	Stats FirmwareStats
}

// fwEP is the NIC's view of an endpoint.
type fwEP struct {
	active  bool
	gen     int // times opened; tasks of an earlier opening are orphans
	closing bool
	credits int    // completion queue entries the NIC may write
	cqNext  uint64 // next completion queue slot
	ready   []int  // mirror of the ready ring: areas the library made ready
	head    int    // next entry of ready the NIC takes
	cur     int    // RX area being filled, -1 if none
	curOff  int64
	curN    int
	rows    []uint16 // types each header-table row holds words for (validity bits in SRAM)
	rowEP   []uint16
	tasks   int // tasks in flight (a closing endpoint waits for them)
	logNext uint64
	answers []*Wire // answers received without a completion queue credit, in order
}

type taskKind uint8

const (
	taskFree  taskKind = iota
	taskTx             // a transmission from a TX slot
	taskResp           // an RMA read response (target side)
	taskRx             // a message into an RX area
	taskWrite          // an RMA write into a region (target side)
	taskRead           // an RMA read (initiator side): its request, then its response
)

type task struct {
	kind   taskKind
	ep     int
	epGen  int
	wire   *Wire
	cookie uint64
	ncmds  int // RX commands of the message in the CAM path
	area   int
	off    int64
	mr     *Region
	mrOff  int64
	txing  bool // read: a transmission of its request is in progress
	got    bool // read: the response is in
	rxing  bool // read: its response is being received
	resp   *Wire
	key    readKey
}

type readKey struct {
	ep   int
	conn uint32
	seq  uint32
}

// FirmwareStats counts what the firmware did and refused.
type FirmwareStats struct {
	Commands    int64
	CmdStalls   int64 // times the queue head waited for a task or a completion queue credit
	BadCommands int64 // commands refused: bad endpoint, header row or region
	Sent        int64 // transmissions
	Received    int64 // messages placed in RX areas
	RMAWrites   int64 // RMA writes placed in regions
	ReadResps   int64 // RMA read responses sent
	Acks        int64 // acks generated
	Refused     int64 // messages answered "refused" (no endpoint, bad handle)
	NotReady    int64 // messages answered "not ready" (no completion queue credit, RX area or task)
	DroppedUU   int64 // unreliable messages dropped (no endpoint or no resources)
	Invalid     int64 // messages with an invalid type, discarded
	AnswersIn   int64 // answers posted to completion queues
	AnswersHeld int64 // answers that waited in SRAM for a completion queue credit
	AnswersLost int64 // answers dropped: no endpoint, or too many waiting for credits
	StaleResps  int64 // read responses for no outstanding read
	AreaCloses  int64
	Swaps       int64 // CAM entries swapped
	Spills      int64 // CAM contents spilled to host memory (beyond the local peer records)
	PeakPeers   int
	PeakTasks   int
	PeakCAM     int
	PIOWaits    int64 // answers that waited for the PIO FIFO
}

// NewFirmware returns the CCI firmware of node; cp and tp are the node's CAM and TX
// DMA parameters, pkt its network packet payload.
func NewFirmware(node router.NodeID, p Params, cp cam.Params, tp txdma.Params, pkt int64) *Firmware {
	f := &Firmware{node: node, p: p, cp: cp, tp: tp, crc: int64(tp.CRCBytes), pkt: pkt,
		eps: make([]fwEP, p.Endpoints), tasks: make([]task, p.Tasks), peers: map[router.NodeID]*peer{},
		reads: map[readKey]int{}, mrs: make([]*Region, p.MRs)}
	for i := p.Tasks - 1; i >= 0; i-- {
		f.free = append(f.free, i)
	}
	f.cam = camswap.New[*peer](camFW{f}, camswap.Config{Name: "cci", Entries: cp.Entries, Depth: cp.QueueDepth,
		SwapInstr: p.FwSwap, SwappedInstr: p.FwSpill, Peak: &f.Stats.PeakCAM})
	return f
}

// Boot implements ppc.Firmware: the SRAM the firmware's structures take.
func (f *Firmware) Boot(b *ppc.Boot) error {
	b.Alloc("command queue", f.p.CmdBytes, f.p.CmdSlots)
	b.Alloc("endpoints", 128, f.p.Endpoints)
	b.Alloc("header-row validity", 1, f.p.Endpoints*f.p.Conns)
	b.Alloc("tasks", f.p.TaskBytes, f.p.Tasks)
	b.Alloc("peer records", f.p.PeerBytes, f.p.LocalPeers)
	b.Alloc("CAM shadow", 8, f.cp.Entries)
	b.Alloc("memory regions", f.p.MRBytes, f.p.MRs)
	b.Alloc("answer queues", 32, 2*f.p.PIOAckMax) // outgoing (PIO FIFO full), incoming (no credit)
	return nil
}

// Handle implements ppc.Firmware.
func (f *Firmware) Handle(x *ppc.Exec, ev actors.Msg) {
	var code uint8
	if x.Tracing() {
		code = traceEvent(ev)
		x.TraceDispatch(code)
	}
	switch ev := ev.(type) {
	case *Command:
		f.onCommand(x, ev)
	case rxdma.SOM:
		f.onSOM(x, ev)
		f.traceArrived(x, ev.Packet.Data)
	case *rxdma.Done:
		f.onRxDone(x, *ev)
	case *txdma.Done:
		f.onTxDone(x, *ev)
	case *txdma.Retired:
		x.Instr(f.p.FwRetire)
		f.inFIFO = int(f.pushed - ev.Total)
		f.feedTx(x)
	case *cam.Stalled:
		f.onStalled(x, *ev)
	case cam.Swapped:
		f.cam.Returned(x, ev)
	default:
		x.Fatalf("cci: firmware got unexpected %T", ev)
	}
	if f.kick {
		f.kick = false
		f.runCmds(x)
	}
	if code != 0 {
		x.TraceHandler(traceNames[code], traceValue(ev))
	}
	for _, c := range f.taken {
		userCmds.Release(c)
	}
	clear(f.taken)
	f.taken = f.taken[:0]
}

// endpoint returns endpoint i if it is open, else nil.
func (f *Firmware) endpoint(i int) *fwEP {
	if i < 0 || i >= len(f.eps) || !f.eps[i].active {
		return nil
	}
	return &f.eps[i]
}

func (f *Firmware) nextID() uint64 {
	f.wireID++
	return uint64(f.node)<<40 | f.wireID
}

// newTask takes a task structure from the free pool; false when none is left.
func (f *Firmware) newTask(x *ppc.Exec, kind taskKind, ep int) (int, bool) {
	if len(f.free) == 0 {
		return 0, false
	}
	id := f.free[len(f.free)-1]
	f.free = f.free[:len(f.free)-1]
	f.tasks[id] = task{kind: kind, ep: ep, epGen: f.eps[ep].gen}
	f.eps[ep].tasks++
	f.Stats.PeakTasks = max(f.Stats.PeakTasks, f.p.Tasks-len(f.free))
	x.Store(4)
	return id, true
}

// release returns a task to the pool; a closing endpoint whose last task it was is
// reported closed to the kernel.
func (f *Firmware) release(x *ppc.Exec, id int) {
	t := &f.tasks[id]
	e := &f.eps[t.ep]
	if t.epGen == e.gen {
		e.tasks--
		if e.closing && e.tasks == 0 {
			f.closed(x, t.ep)
		}
	}
	*t = task{}
	f.free = append(f.free, id)
	f.kick = true
}

// live reports whether task t still belongs to an open endpoint (its completion can be
// posted).
func (f *Firmware) live(t *task) bool {
	e := &f.eps[t.ep]
	return e.active && t.epGen == e.gen
}

// post writes a completion queue entry of endpoint ep; the caller holds its credit.
func (f *Firmware) post(x *ppc.Exec, ep int, e CQEntry) {
	s := &f.eps[ep]
	e.Addr = cqAddr(ep, s.cqNext, f.p.CQSlots)
	s.cqNext++
	x.Instr(f.p.FwPost)
	x.HostWrite(f.p.CQEntry, cqEntries.New(e))
}

// onCommand notices a command in the queue (Dillow & Atchley 2011 s.IV.B.1), reads it
// out of uncached SRAM and takes the credits and ready areas it returns. Transmits are
// then taken in queue order; one waits in its slot until a task and a completion queue
// credit are free for it, holding up the transmits behind it (one queue is shared by
// the node's processes, Dillow & Atchley 2011 s.IV.C). A command that only returns
// credits is done once read: its slot is freed at once, so that credits reach the NIC
// even while the queue is held up waiting for them.
func (f *Firmware) onCommand(x *ppc.Exec, c *Command) {
	x.Instr(f.p.FwCmd)
	x.LoadUncached(int(f.p.CmdBytes / 4))
	f.Stats.Commands++
	if !c.Kind.user() && (c.EP < 0 || c.EP >= len(f.eps)) {
		f.Stats.BadCommands++
		return
	}
	switch c.Kind {
	case CmdOpen:
		f.onOpen(x, c)
		return
	case CmdClose:
		f.onClose(x, c.EP)
		return
	case CmdRow:
		f.onRow(x, c)
		return
	case CmdRegister:
		f.onRegister(x, c)
		return
	}
	if e := f.endpoint(c.EP); e != nil {
		if c.Credits < 0 || e.credits+c.Credits > f.p.CQSlots {
			x.Fatalf("cci: endpoint %d returned %d completion queue credits, holding %d of %d", c.EP, c.Credits, e.credits, f.p.CQSlots)
		}
		e.credits += c.Credits
		if c.Ready != nil {
			e.ready = append(e.ready, c.Ready.S...)
		}
		f.flushAnswers(x, c.EP, e)
	}
	if c.Ready != nil {
		readyLists.Put(c.Ready)
		c.Ready = nil
	}
	if c.Kind == CmdCredit {
		f.taken = append(f.taken, c)
		f.consume(x)
		f.runCmds(x)
		return
	}
	f.cmdq.Push(c)
	f.runCmds(x)
}

// consume frees a command queue slot: zeroed, the consumer index advanced, and written
// back to the host-side control page every CmdBatch commands.
func (f *Firmware) consume(x *ppc.Exec) {
	x.StoreUncached(1)
	x.Store(1)
	f.consumed++
	if f.consumed-f.reported >= uint64(f.p.CmdBatch) {
		f.report(x)
	}
}

// report writes the consumer index into the host-side control page.
func (f *Firmware) report(x *ppc.Exec) {
	f.reported = f.consumed
	x.HostWrite(f.p.IndexBytes, cmdIndexes.New(CmdIndex{Addr: ctrlAddr, Consumed: f.consumed}))
}

// runCmds takes the transmits at the head of the queue while their resources are
// free. When the head must wait, the consumer index is written back at once: the host
// then knows exactly how full the queue is.
func (f *Firmware) runCmds(x *ppc.Exec) {
	for f.cmdq.Len() > 0 {
		c := *f.cmdq.Front()
		e := f.endpoint(c.EP)
		if e != nil && !f.canTransmit(c, e) {
			f.Stats.CmdStalls++
			if f.consumed > f.reported {
				f.report(x)
			}
			return
		}
		f.taken = append(f.taken, f.cmdq.Pop())
		f.consume(x)
		if e == nil {
			f.Stats.BadCommands++ // a command racing its endpoint's close
			continue
		}
		f.onTransmit(x, c, e)
	}
}

// canTransmit reports whether a transmit command's resources are free: a task, and the
// completion queue credits of its send completion (and of an RMA read's completion).
func (f *Firmware) canTransmit(c *Command, e *fwEP) bool {
	tasks, credits := 1, 1
	if c.Kind == CmdRMARead && c.Hdr != nil {
		if _, ok := f.reads[readKey{ep: c.EP, conn: c.Hdr.SrcConn, seq: c.Hdr.Seq}]; ok {
			tasks = 0
		} else {
			credits = 2
		}
	}
	return len(f.free) >= tasks && e.credits >= credits
}

func (f *Firmware) onOpen(x *ppc.Exec, c *Command) {
	x.Instr(f.p.FwKernel)
	e := &f.eps[c.EP]
	if e.active || e.closing {
		x.Fatalf("cci: kernel opened endpoint %d, which is in use", c.EP)
	}
	*e = fwEP{active: true, gen: e.gen + 1, credits: f.p.CQSlots, ready: append([]int(nil), c.Areas...), cur: -1,
		rows: make([]uint16, f.p.Conns), rowEP: make([]uint16, f.p.Conns)}
	x.Store(16)
}

// onClose deactivates an endpoint: its queued transmissions are cancelled; tasks the
// DMA engines hold run out, their completions dropped; the kernel hears Closed when
// the last one ends, and may then release the endpoint's memory.
func (f *Firmware) onClose(x *ppc.Exec, ep int) {
	x.Instr(f.p.FwKernel)
	e := &f.eps[ep]
	if !e.active {
		return
	}
	e.active, e.closing = false, true
	f.Stats.AnswersLost += int64(len(e.answers))
	f.heldAnswers -= len(e.answers)
	for _, a := range e.answers {
		a.Drop() // lost: the endpoint's hold
	}
	e.answers = nil
	f.txq.DeleteFunc(func(id int) bool {
		if f.tasks[id].ep != ep || f.tasks[id].kind != taskTx {
			return false
		}
		f.release(x, id)
		return true
	})
	var orphans []int
	for k, id := range f.reads { //lint:ordered the ids are sorted below before use
		if k.ep == ep && !f.tasks[id].txing && !f.tasks[id].rxing {
			orphans = append(orphans, id)
		}
	}
	slices.Sort(orphans)
	for _, id := range orphans {
		delete(f.reads, f.tasks[id].key)
		f.release(x, id)
	}
	if e.tasks == 0 {
		f.closed(x, ep)
	}
}

func (f *Firmware) closed(x *ppc.Exec, ep int) {
	f.eps[ep].closing = false
	x.HostWrite(f.p.ClosedBytes, &Closed{Addr: closedAddr(ep), EP: ep})
}

// onRow mirrors a header-table row the kernel built: the NIC keeps one validity byte
// per row (which types it holds words for); the words themselves stay in kernel memory
// and are DMAed with each message.
func (f *Firmware) onRow(x *ppc.Exec, c *Command) {
	x.Instr(f.p.FwKernel / 4)
	e := &f.eps[c.EP]
	if !e.active || c.Row < 0 || c.Row >= len(e.rows) {
		f.Stats.BadCommands++
		return
	}
	e.rows[c.Row], e.rowEP[c.Row] = c.RowTypes, c.RowEP
	x.Store(2)
}

func (f *Firmware) onRegister(x *ppc.Exec, c *Command) {
	x.Instr(f.p.FwKernel / 2)
	if c.MR == nil {
		return
	}
	i := int(c.MR.Handle.Index)
	if i < 0 || i >= len(f.mrs) {
		f.Stats.BadCommands++
		return
	}
	if c.MR.Len < 0 { // deregistration
		f.mrs[i] = nil
		return
	}
	f.mrs[i] = c.MR
	x.Store(int(f.p.MRBytes / 4))
}

// region validates an RMA handle: the slot, its key, the owning endpoint, the access
// granted to remote peers (acc; 0 for the endpoint's own transfers) and the bounds.
func (f *Firmware) region(x *ppc.Exec, h Handle, ep int, acc Access, off, n int64) *Region {
	x.Instr(f.p.FwMR)
	x.Load(4)
	if int(h.Index) >= len(f.mrs) {
		return nil
	}
	r := f.mrs[h.Index]
	if r == nil || r.Handle != h || r.EP != ep || r.Access&acc != acc || off < 0 || n < 0 || off+n > r.Len {
		return nil
	}
	return r
}

// onTransmit checks a transmit command (Dillow & Atchley 2011 s.IV.B.1): the endpoint
// is active, the header row was built by the kernel for this type; a completion queue
// credit is reserved for the event, a task allocated, and the TX DMA engine programmed
// when its FIFO has room. A refused command completes with an error, sending nothing.
func (f *Firmware) onTransmit(x *ppc.Exec, c *Command, e *fwEP) {
	x.Instr(f.p.FwTx)
	x.Load(2) // row validity
	bad := c.Row < 0 || c.Row >= len(e.rows) || c.Type >= 16 || e.rows[c.Row]&(1<<c.Type) == 0 || c.Len < 0 || c.Hdr == nil
	switch c.Kind {
	case CmdSend:
		bad = bad || c.Len > int64(f.p.MSS) || !(c.Type == TypeMsg || c.Type == TypeMsgRel || c.Type == TypeConnReq || c.Type == TypeConnReply)
	case CmdRMAWrite:
		bad = bad || c.Type != TypeRMAWrite || c.Len < 1 || c.Len > int64(f.cp.CommandMax)
	case CmdRMARead:
		bad = bad || c.Type != TypeReadReq || c.Hdr.RMA == nil || c.Len < 1 || c.Len > int64(f.cp.CommandMax)
	}
	var mr *Region
	if !bad && c.Kind != CmdSend {
		mr = f.region(x, c.Local, c.EP, 0, c.LocOff, c.Len)
		bad = mr == nil
	}
	e.credits-- // the send completion
	if bad {
		f.Stats.BadCommands++
		f.post(x, c.EP, CQEntry{Kind: CQSend, Cookie: c.Cookie, Status: ErrInvalid})
		return
	}
	w := transmitted(Wire{Type: c.Type, DstEP: e.rowEP[c.Row], Len: c.Len, Src: f.node, Dst: c.Dst, H: *c.Hdr, Data: c.Data,
		ID: f.nextID()}, c.Kind == CmdSend && c.Type.message())
	if c.Kind == CmdRMARead {
		w.Len = 0 // the request carries no data
		f.transmitRead(x, c, e, w, mr)
		f.traceBuilt(x, w, c, 0)
		return
	}
	id, _ := f.newTask(x, taskTx, c.EP)
	t := &f.tasks[id]
	t.wire, t.cookie, t.mr, t.mrOff = w, c.Cookie, mr, c.LocOff
	f.queueTx(x, id)
	f.traceBuilt(x, w, c, 0)
}

// transmitRead sends (or resends) an RMA read request. The read task lives until the
// response is in: it holds the completion queue credit of the read's completion. A
// resend while the previous request is still in the NIC only completes.
// transmitted returns the wire of a transmit command: recycled if it is a message
// (wires), else new.
func transmitted(w Wire, message bool) *Wire {
	if message {
		return newWire(w, messageHolders)
	}
	x := new(Wire) // not &w: that would put w on the heap on every path
	*x = w
	return x
}

func (f *Firmware) transmitRead(x *ppc.Exec, c *Command, e *fwEP, w *Wire, mr *Region) {
	k := readKey{ep: c.EP, conn: c.Hdr.SrcConn, seq: c.Hdr.Seq}
	id, ok := f.reads[k]
	if !ok {
		id, _ = f.newTask(x, taskRead, c.EP)
		e.credits-- // the read completion
		f.reads[k] = id
		f.tasks[id].key = k
	}
	t := &f.tasks[id]
	if t.txing {
		f.post(x, c.EP, CQEntry{Kind: CQSend, Cookie: c.Cookie})
		return
	}
	t.wire, t.cookie, t.mr, t.mrOff, t.txing = w, c.Cookie, mr, c.LocOff, true
	f.queueTx(x, id)
}

// queueTx hands a task to the TX engine.
func (f *Firmware) queueTx(x *ppc.Exec, id int) {
	f.txq.Push(id)
	f.feedTx(x)
}

// txQueued reports the tasks waiting for room in the TX DMA command FIFO (a timeline
// counter).
func (f *Firmware) txQueued(x *ppc.Exec) {
	if f.txq.Len() != f.gaugeTxq {
		f.gaugeTxq = f.txq.Len()
		x.Gauge("tx_queue", f.gaugeTxq)
	}
}

// txCommands is the number of TX DMA commands of a task's program.
func (f *Firmware) txCommands(t *task) int {
	if t.kind == taskTx && t.wire.Type == TypeRMAWrite {
		return 5
	}
	return 4
}

// feedTx programs the TX DMA engine for queued tasks in order while its command FIFO
// has room for a whole program.
func (f *Firmware) feedTx(x *ppc.Exec) {
	for f.txq.Len() > 0 {
		id := *f.txq.Front()
		t := &f.tasks[id]
		n := f.txCommands(t)
		if f.inFIFO+n > f.tp.CommandsMax {
			break
		}
		f.txq.Pop()
		f.program(x, id, t)
		f.inFIFO += n
		f.pushed += uint64(n)
	}
	f.txQueued(x)
}

// program writes a task's DMA program: load destination; the first header word from
// the kernel's header table (or, for a read response, the header the NIC wrote into
// its scratch area in host memory); the rest of the header and the payload from the
// TX slot; RMA data from the region; end of message with CRC and notification.
func (f *Firmware) program(x *ppc.Exec, id int, t *task) {
	w := t.wire
	x.Instr(f.p.FwTx / 2)
	x.TX(txdma.Command{Kind: txdma.LoadDest, Dst: w.Dst, Class: w.Type.class(), Data: w})
	switch t.kind {
	case taskResp:
		x.TX(txdma.Command{Kind: txdma.Transmit, Addr: scratchAddr(t.ep), Bytes: int64(f.p.RMAHeader)})
		x.TX(txdma.Command{Kind: txdma.Transmit, Addr: t.mr.Addr + uint64(t.mrOff), Bytes: w.Len})
	default:
		hdr := f.hdrBytes(w.Type)
		x.TX(txdma.Command{Kind: txdma.Transmit, Addr: rowAddr(t.ep, 0, w.Type), Bytes: int64(f.p.WordBytes)})
		rest := int64(hdr - f.p.WordBytes)
		if w.Type != TypeRMAWrite {
			rest += w.Len
		}
		x.TX(txdma.Command{Kind: txdma.Transmit, Addr: txBase, Bytes: rest})
		if w.Type == TypeRMAWrite {
			x.TX(txdma.Command{Kind: txdma.Transmit, Addr: t.mr.Addr + uint64(t.mrOff), Bytes: w.Len})
		}
	}
	x.TX(txdma.Command{Kind: txdma.EndMessage, CRC: true, Notify: true, Tag: uint64(id)})
	f.Stats.Sent++
}

// hdrBytes is the header of a message of type t, first word included.
func (f *Firmware) hdrBytes(t Type) actors.Bytes {
	switch t {
	case TypeRMAWrite, TypeReadReq, TypeReadResp:
		return f.p.RMAHeader
	}
	return f.p.HeaderBytes
}

// onTxDone completes a transmission (Dillow & Atchley 2011 s.IV.B.1): the pre-reserved
// completion queue credit carries the send completion; the library holds messages of
// reliable connections until their ack.
func (f *Firmware) onTxDone(x *ppc.Exec, d txdma.Done) {
	if d.PIO {
		x.Instr(f.p.FwPIO)
		f.pioN--
		f.pioBytes -= int64(f.p.HeaderBytes)
		f.flushPIO(x)
		return
	}
	x.Instr(f.p.FwTxDone)
	id := int(d.Tag)
	t := &f.tasks[id]
	switch t.kind {
	case taskResp:
		f.Stats.ReadResps++
		f.release(x, id)
	case taskRead:
		t.txing = false
		if f.live(t) {
			f.post(x, t.ep, CQEntry{Kind: CQSend, Cookie: t.cookie})
		}
		if (t.got || !f.live(t)) && !t.rxing {
			delete(f.reads, t.key)
			f.release(x, id)
		}
	case taskTx:
		if f.live(t) {
			f.post(x, t.ep, CQEntry{Kind: CQSend, Cookie: t.cookie})
		}
		w := t.wire
		f.release(x, id)
		w.Drop() // the sender's hold (wires)
	default:
		x.Fatalf("cci: TX completion of task %d of kind %d", id, t.kind)
	}
}

// answer sends a NIC-generated answer to the sender of w with PIO: an ack once w is in
// host memory, or a refusal. It carries w's source fields back, and its sequence
// number.
func (f *Firmware) answer(x *ppc.Exec, typ Type, w *Wire, st Status) {
	x.Instr(f.p.FwAnswer)
	a := newWire(Wire{Type: typ, DstEP: w.H.SrcEP, Src: f.node, Dst: w.Src, Status: st, ID: f.nextID(),
		H: Header{Conn: w.H.SrcConn, Gen: w.H.SrcGen, Seq: w.H.Seq}}, answerHolders)
	switch typ {
	case TypeAck:
		f.Stats.Acks++
	case TypeRefused:
		f.Stats.Refused++
	case TypeNotReady:
		f.Stats.NotReady++
	}
	f.traceBuilt(x, a, nil, w.ID)
	if f.pioQ.Len() > 0 || !f.pioRoom() {
		if f.pioQ.Len() == f.p.PIOAckMax {
			wires.Release(a) // never sent: the sender retransmits
			return
		}
		f.pioQ.Push(a)
		f.Stats.PIOWaits++
		return
	}
	f.pio(x, a)
}

func (f *Firmware) pioRoom() bool {
	return f.pioN < f.tp.PIOCommandsMax && f.pioBytes+int64(f.p.HeaderBytes) <= int64(f.tp.PIOBufferBytes)
}

func (f *Firmware) pio(x *ppc.Exec, a *Wire) {
	f.pioN++
	f.pioBytes += int64(f.p.HeaderBytes)
	x.PIO(txdma.NewPIO(txdma.PIO{Dst: a.Dst, Class: a.Type.class(), Data: a, Bytes: int64(f.p.HeaderBytes), Notify: true}))
}

func (f *Firmware) flushPIO(x *ppc.Exec) {
	for f.pioQ.Len() > 0 && f.pioRoom() {
		f.pio(x, f.pioQ.Pop())
	}
}

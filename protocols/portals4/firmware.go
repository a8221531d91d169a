package portals4

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/cam"
	"github.com/seastar-sim/seastar/matchunit"
	"github.com/seastar-sim/seastar/ppc"
	"github.com/seastar-sim/seastar/protocols/portals4/ptl4"
	"github.com/seastar-sim/seastar/router"
	"github.com/seastar-sim/seastar/rxdma"
	"github.com/seastar-sim/seastar/txdma"
)

// Wire is a message on the network: a Portals 4 request or response, or a runtime
// barrier message. Every packet of the message carries a pointer to it.
type Wire struct {
	Msg    *ptl4.Msg
	RT     *rtMsg
	Src    router.NodeID
	Dst    router.NodeID
	Inline int64 // payload bytes inside the header packet
	Len    int64 // payload bytes after the header packet
	ID     uint64
	Cause  uint64 // the message this one answers (an ack or reply: its request), for tracing

	ownMsg bool        // Msg is released with the wire: no holder outlives it (see newWire)
	refs   actors.Refs // holders of a wire from newWire
	actors.PoolMark
}

// wires recycles the firmware's messages on the network.
var wires actors.Pool[Wire, *Wire]

// newWire returns w from the pool. Three holders release it, each once it no longer
// reads it: the sending firmware after the message's TX completion, the receiving RX
// DMA engine when it has removed the message's last packet from its FIFO (Drop), and
// the receiving firmware once it has handled the message (arrive). Each packet holds
// the wire too, but the last packet leaves the receiving FIFO after all the others,
// and a packet queued at the PPC is the receiving firmware's. The last holder also
// recycles w's Portals message if ownMsg: the initiator and the target libraries read
// it only within those handlers (Sent, Deliver, Complete) when they are in the
// firmware. Under onload the host libraries read it later, from their rings, and it is
// left to the garbage collector, as are wires decoded from another process, whose
// holders never all drop them there.
func newWire(w Wire) *Wire {
	x := wires.New(w)
	x.refs.Set(wireHolders)
	return x
}

// wireHolders are the holders of a sent wire that each Drop it (newWire).
const wireHolders = 3

// Drop ends one holder's hold on a wire from newWire; the last recycles it. It
// implements router.Counted for the receiving RX DMA engine.
func (w *Wire) Drop() {
	if !w.refs.Drop() {
		return
	}
	if w.ownMsg {
		ptl4.ReleaseMsg(w.Msg)
	}
	wires.Release(w)
}

func (w *Wire) String() string {
	if w.RT != nil {
		return fmt.Sprintf("portals4.%s(node%d->node%d #%d)", w.RT, w.Src, w.Dst, w.ID)
	}
	return fmt.Sprintf("portals4.%s(node%d->node%d #%d %dB)", w.Msg.Op, w.Src, w.Dst, w.ID, w.Inline+w.Len)
}

// rtMsg is a message of the job runtime (libtest's barrier), carried by the NIC.
type rtMsg struct {
	release bool
	epoch   uint64
}

func (r *rtMsg) String() string {
	if r.release {
		return fmt.Sprintf("barrier-release(%d)", r.epoch)
	}
	return fmt.Sprintf("barrier-arrive(%d)", r.epoch)
}

// Call is a library call posted into the firmware's mailbox: Fn, or the operation
// Op, runs on the library of process PID and its value comes back at Result in host
// memory (none if Result is 0: the library did not wait).
type Call struct {
	PID    uint32
	Name   string // of a call with Fn; an operation's is name()
	Fn     func(l *ptl4.Lib) any
	Result uint64
	// An operation a library makes per message or per poll, carried by value instead
	// of in a closure: Fn is nil and Op says which, with its arguments.
	Op      CallOp
	Args    ptl4.Args    // PostStart
	H       ptl4.Handle  // the EQ of PostEQConsumed, the counter of PostCTSet and PostCTInc, the NI of CallAppend and CallPTEnable
	Seq     uint64       // PostEQConsumed
	CT      ptl4.CTEvent // PostCTSet, PostCTInc
	PT      uint32       // CallAppend, CallPTEnable
	ME      ptl4.ME      // CallAppend
	List    ptl4.List    // CallAppend
	UserPtr uint64       // CallAppend
	LE      bool         // CallAppend
	// A triggered operation's counter and the success count that fires it
	// (CallTriggered, CallTriggeredCT); Set: PtlTriggeredCTSet, not ...Inc.
	Trig      ptl4.Handle
	Threshold uint64
	Set       bool
	actors.PoolMark
}

// calls recycles the mailbox commands: the firmware releases one once the handler
// that ran it is over (its trace names the call).
var calls actors.Pool[Call, *Call]

// CallOp is a library operation carried by value in a Call (see Call).
type CallOp uint8

// The operations: posted ones (no wait for a result), then waited ones, whose
// handle, counter or return code comes back (Result).
const (
	CallFn          CallOp = iota // Fn
	PostStart                     // PtlPut, PtlGet, PtlAtomic, PtlFetchAtomic, PtlSwap
	PostEQConsumed                // an event taken from a queue in host memory (PtlEQGet)
	PostCTSet                     // PtlCTSet
	PostCTInc                     // PtlCTInc
	CallAppend                    // PtlMEAppend, PtlLEAppend (a waited call: its handle comes back)
	CallTriggered                 // PtlTriggeredPut and friends: Args, Trig, Threshold
	CallTriggeredCT               // PtlTriggeredCTInc and ...Set: H the counter it changes, CT, Set, Trig, Threshold
	CallCTGet                     // PtlCTGet, and a poll of PtlCTWait or of a one-counter PtlCTPoll (Name): H
	CallPTEnable                  // PtlPTEnable (flow control's recovery, once per event): H, PT
)

// run runs the call on l and returns its value: Fn's, or an operation's handle or
// counter and return code.
func (c *Call) run(l *ptl4.Lib) (v any, h ptl4.Handle, ct ptl4.CTEvent, r ptl4.Ret) {
	switch c.Op {
	case PostStart:
		l.Start(c.Args)
	case PostEQConsumed:
		l.EQConsumed(c.H, c.Seq)
	case PostCTSet:
		l.CTSet(c.H, c.CT)
	case PostCTInc:
		l.CTInc(c.H, c.CT)
	case CallAppend:
		h, r = l.Append(c.H, c.PT, c.ME, c.List, c.UserPtr, c.LE)
	case CallTriggered:
		r = l.Triggered(c.Args, c.Trig, c.Threshold)
	case CallTriggeredCT:
		r = l.TriggeredCT(c.H, c.CT, c.Set, c.Trig, c.Threshold)
	case CallCTGet:
		ct, r = l.CTGet(c.H)
	case CallPTEnable:
		r = l.PTEnable(c.H, c.PT)
	default:
		v = c.Fn(l)
	}
	return v, h, ct, r
}

// name is the call's name, as the library's API names it.
func (c *Call) name() string {
	switch c.Op {
	case PostStart:
		return "Ptl " + c.Args.Kind.String()
	case PostEQConsumed:
		return "PtlEQGet"
	case PostCTSet:
		return "PtlCTSet"
	case PostCTInc:
		return "PtlCTInc"
	case CallAppend:
		return "PtlMEAppend"
	case CallTriggered:
		return "PtlTriggered" + c.Args.Kind.String()
	case CallTriggeredCT:
		return "PtlTriggeredCT"
	case CallPTEnable:
		return "PtlPTEnable"
	}
	return c.Name // Fn's, CallCTGet's
}

func (c *Call) String() string { return fmt.Sprintf("portals4.Call(%s pid%d)", c.name(), c.PID) }

// BarrierCall asks the firmware to enter the job's barrier; the release lands at
// Result.
type BarrierCall struct{ Result uint64 }

func (c *BarrierCall) String() string { return "portals4.BarrierCall" }

// Result is a call's value, written by the firmware into host memory: Value, or H and
// R for a typed operation (Call.Op). Bell is the count of change notifications of the
// process at the time. A call's result is recycled (results) by the library, once it
// has read and forgotten it.
type Result struct {
	Addr  uint64
	Value any
	H     ptl4.Handle
	CT    ptl4.CTEvent // CallCTGet's
	R     ptl4.Ret
	Bell  uint64
	actors.PoolMark
}

var results actors.Pool[Result, *Result]

func (r *Result) String() string  { return fmt.Sprintf("portals4.Result(%#x)", r.Addr) }
func (r *Result) Address() uint64 { return r.Addr }

// Bell tells waiting library calls that an event queue or counter of the process
// changed: the k-th notification lands at bellAddr(pid, k).
type Bell struct {
	Addr uint64
	actors.PoolMark
}

// bells recycles the change notifications: host memory gives one back when the
// library forgets it (forgetLanded; Bell is a host.Superseded).
var bells actors.Pool[Bell, *Bell]

// Superseded implements host.Superseded.
func (b *Bell) Superseded() { bells.Release(b) }

func (b *Bell) String() string  { return fmt.Sprintf("portals4.Bell(%#x)", b.Addr) }
func (b *Bell) Address() uint64 { return b.Addr }

// EventRecord is an event the firmware writes into an event queue in host memory,
// or the notice that the event of that sequence number was lost to overflow.
type EventRecord struct {
	Addr uint64
	Seq  uint64
	Ev   ptl4.Event
	Drop bool
	actors.PoolMark
}

// eventRecords recycles the records once host memory lets go of one (Superseded): the
// library took it (eqTake forgets its address), or the firmware wrote the notice of its
// loss over it (an event overwritten in a full queue that nobody reads, as the target
// of a get ping-pong's queue does).
var eventRecords actors.Pool[EventRecord, *EventRecord]

// Superseded implements host.Superseded.
func (r *EventRecord) Superseded() { eventRecords.Release(r) }

func (r *EventRecord) String() string {
	if r.Drop {
		return fmt.Sprintf("portals4.EventRecord(#%d dropped)", r.Seq)
	}
	return fmt.Sprintf("portals4.EventRecord(#%d %s)", r.Seq, r.Ev.Type)
}

// Address implements host.Addressed.
func (r *EventRecord) Address() uint64 { return r.Addr }

// eqAddr is where event seq of queue h of process pid lands in host memory: every
// sequence number has its own address (the library forgets it once read), as a ring
// slot and its sequence tag would.
func eqAddr(pid uint32, h ptl4.Handle, seq uint64) uint64 {
	return 1<<62 | uint64(pid&0xff)<<54 | uint64(h&0x0fffffff)<<26 | seq&(1<<26-1)
}

// Host memory addresses of the library's mailbox results and notifications.
func resultAddr(proc int, seq uint64) uint64 { return 0x4000<<32 | uint64(proc)<<32 | seq&0xffffffff }
func bellAddr(pid uint32, k uint64) uint64   { return 0x7000<<32 | uint64(pid)<<32 | k&0xffffffff }

// Firmware is the Portals 4 firmware of one node's PPC.
type Firmware struct {
	node  router.NodeID
	p     Params
	cmax  int64
	fifo  int
	crc   int64
	size  int // nodes of the job (barrier)
	procs map[uint32]*fwProc
	order []*fwProc

	txq    actors.FIFO[*txItem]
	inFIFO int
	pushed uint64
	wireID uint64

	srcs    map[router.NodeID]*source
	txFree  actors.FreeList[txItem] // items and their command arrays, recycled when done
	rxFree  actors.FreeList[rxItem]
	camFree []int
	camWait []router.NodeID

	epoch    uint64              // barriers this node entered
	arrived  map[uint64]int      // node 0: arrivals by epoch
	waiting  map[uint64][]uint64 // result addresses of host calls waiting for a release
	released uint64

	sent []*Wire // messages the current handler sent (tracing)
	// done holds what the current handler finished with (the calls it ran, the wires
	// it sent or took, the event it handled), let go of after it and its trace.
	done []finished

	// With a match unit (portals4.nic = matchunit), Portals work is ordered: library
	// calls and arriving messages wait in work, in arrival order, while requests ahead
	// of them are in the unit, so that the lists change in the same order as without
	// it; consecutive requests enter the unit together (message-level pipelining).
	unit     bool
	work     actors.FIFO[*workItem]
	workFree actors.FreeList[workItem]
	unitTag  uint64

	// onload (portals4.nic = onload): no Portals state here; messages the host built
	// are sent, and arrivals and send completions go to the host ring (onload.go).
	onload bool

	cause uint64 // the request whose delivery the current handler runs (responses answer it)

	Stats FirmwareStats
}

// FirmwareStats counts what the firmware did.
type FirmwareStats struct {
	Calls, Sent, Received, Dropped, Walked, Events, Triggered int64
}

type fwProc struct {
	lib   *ptl4.Lib
	pid   uint32
	seen  uint64 // lib.Changes at the last notification
	bells uint64
	ring  uint64 // onload: records written to the host ring
}

// workItem is a library call or an arriving message waiting for the match unit.
type workItem struct {
	call    *Call
	w       *Wire
	issued  bool // in the unit
	matched bool // the unit answered
	tag     uint64
}

func (it *workItem) request() bool { return it.w != nil && it.w.RT == nil && !it.w.Msg.Op.Response() }

// unitFirmware is the firmware with a match unit on the PPC's coprocessor port.
type unitFirmware struct{ *Firmware }

// Coprocessor implements ppc.CoprocessorFirmware.
func (unitFirmware) Coprocessor() string { return "matchunit" }

type txItem struct {
	w    *Wire
	cmds []txdma.Command // cmds[next:] are still to push
	next int
	pr   *fwProc // the process whose request this is (SEND event), or nil
}

type source struct {
	q      actors.FIFO[*rxItem]
	entry  int
	queued int
}

type rxItem struct {
	w    *Wire
	cmds []cam.Command // cmds[next:] are still to push
	next int
	left int
}

// NewFirmware returns the firmware of node in a job of size nodes. cp and tp are the
// node's CAM and TX DMA parameters.
func NewFirmware(node router.NodeID, size int, p Params, cp cam.Params, tp txdma.Params) *Firmware {
	f := &Firmware{node: node, p: p, cmax: int64(cp.CommandMax), fifo: tp.CommandsMax, crc: int64(tp.CRCBytes),
		size: size, procs: map[uint32]*fwProc{}, srcs: map[router.NodeID]*source{}, arrived: map[uint64]int{},
		waiting: map[uint64][]uint64{}}
	for i := cp.Entries - 1; i >= 0; i-- {
		f.camFree = append(f.camFree, i)
	}
	return f
}

// AddOnloadProcess registers process pid, whose Portals state is on the host.
func (f *Firmware) AddOnloadProcess(pid uint32) {
	pr := &fwProc{pid: pid}
	f.procs[pid] = pr
	f.order = append(f.order, pr)
}

// AddProcess gives the firmware the Portals state of a process. Its events are
// written into host memory as they happen, for the library to read there.
func (f *Firmware) AddProcess(l *ptl4.Lib) {
	l.RecordEvents = true
	pr := &fwProc{lib: l, pid: l.PID()}
	f.procs[pr.pid] = pr
	f.order = append(f.order, pr)
}

// Boot implements ppc.Firmware: the SRAM the Portals 4 objects take.
func (f *Firmware) Boot(b *ppc.Boot) error {
	b.Alloc("portals4 mailbox", 64, 32)
	b.Alloc("portals4 sources", 32, 64)
	return nil
}

// Handle implements ppc.Firmware.
func (f *Firmware) Handle(x *ppc.Exec, ev actors.Msg) {
	var code uint8
	if x.Tracing() { // the trace ring (ppc.trace_enabled)
		code = handlerCode(ev)
		x.TraceDispatch(code)
	}
	t := x.Tracer()
	var tw *Wire
	if t != nil {
		tw = f.traceBegin(t, ev)
	}
	f.handle(x, ev)
	if t != nil {
		f.traceEnd(x, t, ev, tw)
	}
	if code != 0 {
		x.TraceHandler(handlers[code].fn, 255)
	}
	for _, d := range f.done {
		d.finish()
	}
	clear(f.done)
	f.done = f.done[:0]
}

// finished is something a handler is done with: it is let go of (recycled or, for a
// wire, dropped by one holder) once the handler and its trace are over.
type finished interface{ finish() }

func (c *Call) finish()    { calls.Release(c) }
func (c *SendCmd) finish() { sendCmds.Release(c) }
func (w *Wire) finish()    { w.Drop() }

func (f *Firmware) handle(x *ppc.Exec, ev actors.Msg) {
	switch ev := ev.(type) {
	case *Call:
		if f.unit {
			f.enqueue(x, workItem{call: ev})
			return
		}
		f.onCall(x, ev)
	case *matchunit.Result:
		f.onMatched(x, ev.Tag)
	case *SendCmd:
		x.Mailbox(int(f.p.CmdBytes / 4))
		x.Instr(f.p.FwCallInstr)
		f.send(x, f.proc(x, ev.PID), ev.Msg)
		f.done = append(f.done, ev)
	case *BarrierCall:
		f.onBarrierCall(x, ev)
	case rxdma.SOM:
		f.onSOM(x, ev)
	case *rxdma.Done:
		f.onRxDone(x, *ev)
	case *txdma.Done:
		f.onTxDone(x, *ev)
	case *txdma.Retired:
		f.inFIFO = int(f.pushed - ev.Total)
		f.feedTx(x)
	case *cam.Stalled:
		x.Instr(f.p.FwStallInstr)
	default:
		x.Fatalf("portals4: firmware got unexpected %T", ev)
	}
}

func (f *Firmware) proc(x *ppc.Exec, pid uint32) *fwProc {
	pr := f.procs[pid]
	if pr == nil {
		x.Fatalf("portals4: no process %d on node %d", pid, f.node)
	}
	return pr
}

// onCall runs a library call on the process's Portals state.
func (f *Firmware) onCall(x *ppc.Exec, c *Call) {
	x.Mailbox(int(f.p.CmdBytes / 4))
	x.Instr(f.p.FwCallInstr)
	pr := f.proc(x, c.PID)
	w0 := pr.lib.Work
	v, h, ct, r := c.run(pr.lib)
	f.Stats.Calls++
	f.after(x, pr, w0)
	if c.Result != 0 { // 0: a posted command, whose result the library knew
		x.HostWrite(f.p.ResultBytes, results.New(Result{Addr: c.Result, Value: v, H: h, CT: ct, R: r, Bell: pr.bells}))
	}
	f.done = append(f.done, c)
}

// after charges the library's work since w0, sends what it queued and rings the
// process's bell if its queues or counters moved.
func (f *Firmware) after(x *ppc.Exec, pr *fwProc, w0 ptl4.Work) {
	w := pr.lib.Work
	walked := int(w.Walked - w0.Walked)
	x.Instr(f.p.FwEntryInstr*walked + f.p.FwEventInstr*int(w.Events-w0.Events) +
		f.p.FwCountInstr*int(w.Counts-w0.Counts) + f.p.FwTrigInstr*int(w.Triggered-w0.Triggered) +
		f.p.FwAtomInstr*int(w.Elements-w0.Elements))
	x.Load(f.p.FwEntryLoads * walked)
	f.Stats.Walked += int64(walked)
	f.Stats.Events += w.Events - w0.Events
	f.Stats.Triggered += w.Triggered - w0.Triggered
	for _, r := range pr.lib.Records {
		x.HostWrite(f.p.ResultBytes, eventRecords.New(EventRecord{Addr: eqAddr(pr.pid, r.EQ, r.Seq), Seq: r.Seq, Ev: r.Ev, Drop: r.Drop}))
	}
	pr.lib.Records = pr.lib.Records[:0]
	out := pr.lib.Outbox
	pr.lib.Outbox = nil
	for _, m := range out {
		f.send(x, pr, m)
	}
	pr.lib.KeepOutbox(out)
	if pr.lib.Changes != pr.seen {
		pr.seen = pr.lib.Changes
		pr.bells++
		x.HostWrite(f.p.BellBytes, bells.New(Bell{Addr: bellAddr(pr.pid, pr.bells)}))
	}
}

// send queues a Portals message for transmission.
func (f *Firmware) send(x *ppc.Exec, pr *fwProc, m *ptl4.Msg) {
	f.wireID++
	w := newWire(Wire{Msg: m, Src: f.node, Dst: router.NodeID(m.Dst.NID), ID: uint64(f.node)<<40 | f.wireID, ownMsg: !f.onload})
	if m.Op.Response() {
		w.Cause = f.cause
	}
	if n := m.WireBytes(); n <= int64(f.p.InlineMax) {
		w.Inline = n
	} else {
		w.Len = n
	}
	var class uint8
	var req *fwProc
	if m.Op.Response() {
		class = 1
	} else {
		req = pr
	}
	f.queueTx(x, w, class, req)
}

// queueTx builds a message's DMA program: the header (and an inline payload) out of
// the firmware's SRAM, the payload from host memory, at most CommandMax per command.
func (f *Firmware) queueTx(x *ppc.Exec, w *Wire, class uint8, req *fwProc) {
	x.Instr(f.p.FwTxInstr)
	it := f.txFree.Get()
	it.w, it.pr, it.cmds, it.next = w, req, it.cmds[:0], 0
	if x.Tracer() != nil {
		f.sent = append(f.sent, w)
	}
	it.cmds = append(it.cmds, txdma.Command{Kind: txdma.LoadDest, Dst: w.Dst, Class: class, Data: w},
		txdma.Command{Kind: txdma.Transmit, Addr: 0, Bytes: int64(f.p.HeaderBytes) + w.Inline})
	for off := int64(0); off < w.Len; off += f.cmax {
		it.cmds = append(it.cmds, txdma.Command{Kind: txdma.Transmit, Addr: uint64(off), Bytes: min(f.cmax, w.Len-off)})
	}
	it.cmds = append(it.cmds, txdma.Command{Kind: txdma.EndMessage, CRC: true, Notify: true, Tag: w.ID})
	x.Store(8)
	f.txq.Push(it)
	x.Gauge("tx_pending", f.txq.Len())
	if f.txq.Len() == 1 {
		f.feedTx(x)
	}
}

// feedTx pushes the head message's commands while the command FIFO has room.
func (f *Firmware) feedTx(x *ppc.Exec) {
	if f.txq.Len() == 0 {
		return
	}
	it := *f.txq.Front()
	for it.next < len(it.cmds) && f.inFIFO < f.fifo {
		c := it.cmds[it.next]
		it.next++
		x.Instr(f.p.FwDMAInstr)
		x.TX(c)
		f.inFIFO++
		f.pushed++
	}
}

func (f *Firmware) onTxDone(x *ppc.Exec, d txdma.Done) {
	x.Instr(f.p.FwDoneInstr)
	if f.txq.Len() == 0 || (*f.txq.Front()).w.ID != d.Tag {
		x.Fatalf("portals4: TX completion #%d is not the head of the TX queue", d.Tag)
	}
	it := f.txq.Pop()
	x.Gauge("tx_pending", f.txq.Len())
	f.Stats.Sent++
	switch {
	case it.pr != nil && f.onload:
		f.record(x, it.pr.pid, it.w.Msg, true)
	case it.pr != nil:
		w0 := it.pr.lib.Work
		it.pr.lib.Sent(it.w.Msg)
		f.after(x, it.pr, w0)
	}
	clear(it.cmds) // the DMA engine has copies: keep no wire alive
	f.done = append(f.done, it.w)
	it.w, it.pr = nil, nil
	f.txFree.Put(it)
	f.feedTx(x)
}

// onSOM takes a new message: one carried whole by its header packet is handled at
// once; a longer one is received through the CAM entry of its source, in order.
func (f *Firmware) onSOM(x *ppc.Exec, s rxdma.SOM) {
	x.Instr(f.p.FwSOMInstr)
	w, ok := s.Packet.Data.(*Wire)
	if !ok {
		x.Fatalf("portals4: packet %s is not a Portals 4 message", s.Packet)
	}
	x.LoadUncached(int(f.p.HeaderBytes / 4))
	src := f.srcs[w.Src]
	if w.Len == 0 {
		x.LoadUncached(int((w.Inline + 3) / 4))
		x.Discard(s.Packet)
		if src != nil && src.q.Len() > 0 { // behind a longer message from the same source: keep the order
			src.q.Push(f.rxItem(w))
			return
		}
		f.arrive(x, w)
		return
	}
	if src == nil {
		src = &source{entry: -1}
		f.srcs[w.Src] = src
	}
	it := f.rxItem(w)
	it.cmds = append(it.cmds, cam.Command{Bytes: int64(f.p.HeaderBytes), Discard: true})
	for off := int64(0); off < w.Len; off += f.cmax {
		it.cmds = append(it.cmds, cam.Command{Bytes: min(f.cmax, w.Len-off), Addr: uint64(off)})
	}
	it.cmds = append(it.cmds, cam.Command{Bytes: f.crc, Discard: true, CRC: true})
	src.q.Push(it)
	if src.q.Len() == 1 {
		f.program(x, w.Src, src)
	}
}

// rxItem returns a recycled receive item for w, with no commands.
func (f *Firmware) rxItem(w *Wire) *rxItem {
	it := f.rxFree.Get()
	it.w, it.cmds, it.next, it.left = w, it.cmds[:0], 0, 0
	return it
}

// arriveItem hands the message of it to the matching and recycles it.
func (f *Firmware) arriveItem(x *ppc.Exec, it *rxItem) {
	w := it.w
	it.w = nil
	f.rxFree.Put(it)
	f.arrive(x, w)
}

// program gives the source's head message a CAM entry (or queues the source for one)
// and feeds its commands.
func (f *Firmware) program(x *ppc.Exec, n router.NodeID, src *source) {
	if src.entry < 0 {
		if len(f.camFree) == 0 {
			f.camWait = append(f.camWait, n)
			return
		}
		src.entry = f.camFree[len(f.camFree)-1]
		f.camFree = f.camFree[:len(f.camFree)-1]
		x.CAMSet(src.entry, n)
	}
	f.feedRx(x, src)
}

func (f *Firmware) feedRx(x *ppc.Exec, src *source) {
	it := *src.q.Front()
	for it.next < len(it.cmds) && src.queued < camDepth {
		c := it.cmds[it.next]
		it.next++
		c.Notify, c.Tag = true, it.w.ID
		x.CAMPush(src.entry, c)
		src.queued++
		it.left++
	}
}

// camDepth bounds the commands the firmware keeps in a CAM entry's queue.
const camDepth = 4

func (f *Firmware) onRxDone(x *ppc.Exec, d rxdma.Done) {
	x.Instr(f.p.FwDoneInstr / 2)
	src := f.srcs[d.Src]
	if src == nil || src.q.Len() == 0 || (*src.q.Front()).w.ID != d.Tag {
		x.Fatalf("portals4: RX completion #%d from node %d out of order", d.Tag, d.Src)
	}
	it := *src.q.Front()
	src.queued--
	it.left--
	if it.next < len(it.cmds) {
		f.feedRx(x, src)
		return
	}
	if it.left > 0 {
		return
	}
	f.arriveItem(x, src.q.Pop())
	for src.q.Len() > 0 && (*src.q.Front()).w.Len == 0 { // short messages that arrived behind it
		f.arriveItem(x, src.q.Pop())
	}
	if src.q.Len() > 0 {
		f.feedRx(x, src)
		return
	}
	x.CAM(cam.ClearEntry{Entry: src.entry})
	f.camFree = append(f.camFree, src.entry)
	src.entry = -1
	if len(f.camWait) > 0 {
		n := f.camWait[0]
		f.camWait = f.camWait[1:]
		f.program(x, n, f.srcs[n])
	}
}

// arrive handles a whole message: a request is matched and answered, a response
// completes its operation, a runtime message moves the barrier.
func (f *Firmware) arrive(x *ppc.Exec, w *Wire) {
	f.Stats.Received++
	switch {
	case w.RT != nil:
		f.onRT(x, w)
	case f.onload:
		f.record(x, w.Msg.Dst.PID, w.Msg, false)
	case f.unit:
		f.enqueue(x, workItem{w: w})
		return // handled when the match unit has answered (pump)
	default:
		f.portals(x, w, false)
	}
	f.done = append(f.done, w)
}

// enqueue adds Portals work behind what waits for the match unit, and runs what can run.
func (f *Firmware) enqueue(x *ppc.Exec, it workItem) {
	f.work.Push(f.workFree.New(it))
	f.pump(x)
}

// pump issues the requests at the head of the work queue to the match unit and runs
// the head while it can: a matched request, or a call or response with no request
// ahead of it.
func (f *Firmware) pump(x *ppc.Exec) {
	for _, it := range f.work.Queued() {
		if !it.request() {
			break
		}
		if !it.issued {
			pr := f.procs[it.w.Msg.Dst.PID]
			walk := 0
			if pr != nil {
				walk = pr.lib.Probe(it.w.Msg)
			}
			f.unitTag++
			it.issued, it.tag = true, f.unitTag
			x.Instr(f.p.FwMatchInstr / 2) // header fields into the unit's request
			x.Copro(matchunit.NewRequest(matchunit.Request{Tag: it.tag, Walk: walk}))
		}
	}
	for f.work.Len() > 0 {
		it := *f.work.Front()
		if it.request() && !it.matched {
			return
		}
		f.work.Pop()
		if it := f.workFree.Take(it); it.call != nil {
			f.onCall(x, it.call)
		} else {
			f.portals(x, it.w, it.request())
			f.done = append(f.done, it.w)
		}
	}
}

// onMatched takes the unit's answer for the oldest request in it.
func (f *Firmware) onMatched(x *ppc.Exec, tag uint64) {
	x.LoadUncached(1)
	for _, it := range f.work.Queued() {
		if it.issued && !it.matched {
			if it.tag != tag {
				x.Fatalf("portals4: match unit answered #%d, the oldest request in it is #%d", tag, it.tag)
			}
			it.matched = true
			f.pump(x)
			return
		}
	}
	x.Fatalf("portals4: match unit answered #%d with no request in it", tag)
}

// portals runs an arriving Portals message on its process's library; hwMatch says
// the match unit did the list walk, which the firmware then does not pay for.
func (f *Firmware) portals(x *ppc.Exec, w *Wire, hwMatch bool) {
	m := w.Msg
	pr := f.procs[m.Dst.PID]
	if pr == nil {
		f.Stats.Dropped++ // no such process: nothing to answer with
		return
	}
	w0 := pr.lib.Work
	if m.Op.Response() {
		pr.lib.Complete(m)
	} else {
		x.Instr(f.p.FwMatchInstr)
		if r := pr.lib.Deliver(m); r != nil {
			pr.lib.Outbox = append(pr.lib.Outbox, r)
		}
		f.cause = w.ID
		defer func() { f.cause = 0 }()
		if hwMatch {
			w0.Walked = pr.lib.Work.Walked // the unit walked the lists
		}
	}
	f.after(x, pr, w0)
}

// onBarrierCall enters the job's barrier: an arrival message to node 0.
func (f *Firmware) onBarrierCall(x *ppc.Exec, c *BarrierCall) {
	x.LoadUncached(int(f.p.CmdBytes / 4))
	x.Instr(f.p.FwCallInstr)
	f.epoch++
	f.waiting[f.epoch] = append(f.waiting[f.epoch], c.Result)
	f.sendRT(x, 0, &rtMsg{epoch: f.epoch})
}

func (f *Firmware) sendRT(x *ppc.Exec, dst router.NodeID, r *rtMsg) {
	f.wireID++
	w := newWire(Wire{RT: r, Src: f.node, Dst: dst, Inline: int64(f.p.BarrierBytes), ID: uint64(f.node)<<40 | f.wireID})
	f.queueTx(x, w, 0, nil)
}

func (f *Firmware) onRT(x *ppc.Exec, w *Wire) {
	x.Instr(f.p.FwCallInstr)
	r := w.RT
	if !r.release {
		if f.arrived[r.epoch]++; f.arrived[r.epoch] == f.size {
			delete(f.arrived, r.epoch)
			for n := 0; n < f.size; n++ {
				f.sendRT(x, router.NodeID(n), &rtMsg{release: true, epoch: r.epoch})
			}
		}
		return
	}
	for _, addr := range f.waiting[r.epoch] {
		x.HostWrite(f.p.ResultBytes, &Result{Addr: addr})
	}
	delete(f.waiting, r.epoch)
}

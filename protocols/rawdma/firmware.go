// Package rawdma is the raw DMA path of the SeaStar without a protocol: host processes
// write TX DMA commands straight into the engine's command FIFO through HyperTransport
// stores, and a minimal receive firmware on the PPC programs the CAM for each incoming
// message and tells the host, through rings of completion records in host memory, when
// messages have left and arrived. It measures the hardware: HT, DMA engines, routers and
// links, with the smallest firmware that can run them, and exercises CAM exhaustion
// when more sources than CAM entries send at once.
package rawdma

import (
	"fmt"
	"slices"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/cam"
	"github.com/seastar-sim/seastar/ppc"
	"github.com/seastar-sim/seastar/router"
	"github.com/seastar-sim/seastar/rxdma"
	"github.com/seastar-sim/seastar/txdma"
)

// Msg describes a raw message; every packet of it carries a pointer to it. Send takes
// it from msgs and the receiver's Recv gives it back (a copy decoded from another
// process is not pooled and is left to the collector).
type Msg struct {
	Src router.NodeID
	Dst router.NodeID
	Len int64  // payload bytes
	ID  uint64 // per-source sequence number
	actors.PoolMark
}

var msgs actors.Pool[Msg, *Msg]

func (m *Msg) String() string {
	return fmt.Sprintf("raw(node%d->node%d #%d %dB)", m.Src, m.Dst, m.ID, m.Len)
}

// Host memory layout of the completion rings (addresses are only names here).
const (
	rxRing     = 0x1000_0000
	txRing     = 0x2000_0000
	recordSize = 16
	ringSlots  = 1 << 16
)

func rxSlot(i uint64) uint64 { return rxRing + (i%ringSlots)*recordSize }
func txSlot(i uint64) uint64 { return txRing + (i%ringSlots)*recordSize }

// RecvRecord is written by the firmware into the host's RX ring when a message has
// arrived.
type RecvRecord struct {
	Slot uint64
	Msg  *Msg
	actors.PoolMark
}

func (r *RecvRecord) String() string      { return fmt.Sprintf("recv(%s)", r.Msg) }
func (r *RecvRecord) Address() uint64     { return r.Slot }
func (r *RecvRecord) Fingerprint() uint64 { return r.Msg.ID<<20 ^ uint64(r.Msg.Src) }

// SentRecord is written into the host's TX ring when a message has left the TX engine.
type SentRecord struct {
	Slot uint64
	ID   uint64
	actors.PoolMark
}

// The host releases the records once it has read them (Endpoint.Recv, WaitSent).
var (
	recvRecords actors.Pool[RecvRecord, *RecvRecord]
	sentRecords actors.Pool[SentRecord, *SentRecord]
)

func (r *SentRecord) String() string  { return fmt.Sprintf("sent(#%d)", r.ID) }
func (r *SentRecord) Address() uint64 { return r.Slot }

// Costs are the raw firmware's handler costs, in instructions and SRAM accesses.
type Costs struct {
	SOMInstr    int `param:"som_instr" help:"instructions to handle a start-of-message" source:"assumed"`
	SOMPeek     int `param:"som_peek" help:"uncached loads of the header from the RX FIFO" source:"assumed: four header words"`
	DoneInstr   int `param:"done_instr" help:"instructions to retire a message and post its record" source:"assumed"`
	RecordBytes int `param:"record_bytes" help:"size of a completion record written to host memory" source:"assumed"`
	StallInstr  int `param:"stall_instr" help:"instructions to take note of an RX pipeline stall on the CAM" source:"assumed"`
	RetireInstr int `param:"retire_instr" help:"instructions to take note of retired TX DMA commands" source:"assumed"`
}

// DefaultCosts returns the assumed costs of the raw firmware.
func DefaultCosts() Costs {
	return Costs{SOMInstr: 60, SOMPeek: 4, DoneInstr: 40, RecordBytes: recordSize, StallInstr: 10, RetireInstr: 5}
}

// Validate reports the first invalid cost, naming its key.
func (c Costs) Validate() error {
	switch {
	case c.SOMInstr < 0 || c.SOMPeek < 0 || c.DoneInstr < 0 || c.StallInstr < 0 || c.RetireInstr < 0:
		return fmt.Errorf("som_instr, som_peek, done_instr, stall_instr and retire_instr must be >= 0")
	case c.RecordBytes < 1:
		return fmt.Errorf("record_bytes must be >= 1 (got %d)", c.RecordBytes)
	}
	return nil
}

// Firmware is the raw receive firmware of one node.
type Firmware struct {
	node     router.NodeID
	costs    Costs
	depth    int // CAM command queue depth
	crc      int64
	entries  []camEntry
	bySrc    map[router.NodeID]int
	free     []int                                       // free CAM entries; the last is taken first
	waiting  []router.NodeID                             // sources that need a CAM entry, in arrival order
	backlog  map[router.NodeID]*actors.FIFO[cam.Command] // by source, kept once made
	inflight map[uint64]*rxMsg
	rxFree   actors.FreeList[rxMsg]
	maxCmd   int64
	rxNext   uint64
	txNext   uint64
	Stats    FirmwareStats
}

type rxMsg struct {
	m      *Msg
	chunks int // RX commands not yet retired
}

type camEntry struct {
	src    router.NodeID
	queued int // commands pushed and not yet retired
}

// FirmwareStats counts what the firmware saw.
type FirmwareStats struct {
	Messages    int64
	CAMWaits    int64 // sources that found every CAM entry taken
	Stalls      int64 // RX pipeline stalls reported by the CAM
	PeakWaiting int
}

// NewFirmware returns the firmware of node for a CAM with parameters cp and an
// end-to-end CRC of crc bytes.
func NewFirmware(node router.NodeID, c Costs, cp cam.Params, crc actors.Bytes) *Firmware {
	entries := cp.Entries
	f := &Firmware{node: node, costs: c, depth: cp.QueueDepth, crc: int64(crc), entries: make([]camEntry, entries),
		maxCmd: int64(cp.CommandMax), bySrc: map[router.NodeID]int{}, backlog: map[router.NodeID]*actors.FIFO[cam.Command]{},
		inflight: map[uint64]*rxMsg{}}
	for i := entries - 1; i >= 0; i-- {
		f.free = append(f.free, i)
	}
	return f
}

// Boot implements ppc.Firmware: the raw firmware keeps a CAM shadow and the backlog.
func (f *Firmware) Boot(b *ppc.Boot) error {
	b.Alloc("cam shadow", 8, len(f.entries))
	b.Alloc("backlog", 32, 1024)
	return nil
}

// Handle implements ppc.Firmware.
func (f *Firmware) Handle(x *ppc.Exec, ev actors.Msg) {
	switch ev := ev.(type) {
	case rxdma.SOM:
		m := f.onSOM(x, ev)
		traceHandler(x, m.TraceID(), "rx_som", false)
	case *rxdma.Done:
		f.onRxDone(x, *ev)
	case *txdma.Done:
		x.Instr(f.costs.DoneInstr)
		x.HostWrite(actors.Bytes(f.costs.RecordBytes), sentRecords.New(SentRecord{Slot: txSlot(f.txNext), ID: ev.Tag}))
		f.txNext++
		traceHandler(x, traceID(f.node, ev.Tag), "tx_done", true)
	case *cam.Stalled:
		x.Instr(f.costs.StallInstr)
		f.Stats.Stalls++
		f.onStall(x, *ev)
	case *txdma.Retired:
		x.Instr(f.costs.RetireInstr)
	default:
		x.Fatalf("rawdma: unexpected event %T", ev)
	}
}

// onSOM handles the start of message m, which it returns: it stays the receiver's until
// Recv, whatever becomes of the packet.
func (f *Firmware) onSOM(x *ppc.Exec, ev rxdma.SOM) *Msg {
	x.Instr(f.costs.SOMInstr)
	x.LoadUncached(f.costs.SOMPeek)
	m, ok := ev.Packet.Data.(*Msg)
	if !ok {
		x.Fatalf("rawdma: packet %s is not a raw message", ev.Packet)
	}
	f.Stats.Messages++
	if m.Len == 0 {
		x.Discard(ev.Packet) // header only: no CAM entry needed
		f.record(x, m)
		return m
	}
	// One RX command covers at most CommandMax bytes (Dillow & Atchley 2011 s.II): a long
	// message takes several, fed into the CAM queue as earlier ones retire. Every one
	// notifies, so that the firmware knows when its queue slot frees.
	total := m.Len + f.crc
	chunks := 0
	for off := int64(0); off < total; off += f.maxCmd {
		n := min(f.maxCmd, total-off)
		c := cam.Command{Bytes: n, CRC: off+n == total, Notify: true, Tag: m.ID, Addr: uint64(m.Src)<<32 | uint64(off)}
		f.queue(m.Src).Push(c)
		chunks++
	}
	f.inflight[msgKey(m.Src, m.ID)] = f.rxFree.New(rxMsg{m: m, chunks: chunks})
	switch _, bound := f.bySrc[m.Src]; {
	case bound:
		f.feed(x, m.Src)
	case len(f.free) > 0:
		f.bind(x, m.Src)
		f.feed(x, m.Src)
	case !slices.Contains(f.waiting, m.Src):
		f.waiting = append(f.waiting, m.Src) // CAM exhausted: wait for an entry
		f.Stats.CAMWaits++
		f.Stats.PeakWaiting = max(f.Stats.PeakWaiting, len(f.waiting))
	}
	return m
}

func msgKey(src router.NodeID, id uint64) uint64 { return uint64(src)<<40 ^ id }

// bind gives src the lowest free CAM entry.
func (f *Firmware) bind(x *ppc.Exec, src router.NodeID) {
	i := f.free[len(f.free)-1]
	f.free = f.free[:len(f.free)-1]
	f.bySrc[src] = i
	f.entries[i] = camEntry{src: src}
	x.CAMSet(i, src)
}

// feed pushes src's backlog into its CAM entry while the entry's queue has room.
func (f *Firmware) feed(x *ppc.Exec, src router.NodeID) {
	i := f.bySrc[src]
	e := &f.entries[i]
	q := f.queue(src)
	for q.Len() > 0 && e.queued < f.depth {
		x.CAMPush(i, q.Pop())
		e.queued++
	}
}

// queue returns src's backlog, made on first use.
func (f *Firmware) queue(src router.NodeID) *actors.FIFO[cam.Command] {
	q := f.backlog[src]
	if q == nil {
		q = &actors.FIFO[cam.Command]{}
		f.backlog[src] = q
	}
	return q
}

func (f *Firmware) onRxDone(x *ppc.Exec, ev rxdma.Done) {
	x.Instr(f.costs.DoneInstr)
	k := msgKey(ev.Src, ev.Tag)
	rm := f.inflight[k]
	if rm == nil {
		x.Fatalf("rawdma: completion of unknown message #%d from node %d", ev.Tag, ev.Src)
	}
	if rm.chunks--; rm.chunks == 0 {
		delete(f.inflight, k)
		f.record(x, rm.m)
		traceHandler(x, rm.m.TraceID(), "rx_done", false)
		f.rxFree.Put(rm)
	}
	i := f.bySrc[ev.Src]
	f.entries[i].queued--
	if f.queue(ev.Src).Len() > 0 {
		f.feed(x, ev.Src)
		return
	}
	if f.entries[i].queued > 0 {
		return
	}
	x.CAM(cam.ClearEntry{Entry: i})
	delete(f.bySrc, ev.Src)
	f.free = append(f.free, i)
	for len(f.free) > 0 && len(f.waiting) > 0 { // the oldest waiting source gets the entry
		src := f.waiting[0]
		f.waiting = f.waiting[1:]
		f.bind(x, src)
		f.feed(x, src)
	}
}

// onStall panics the node when the RX pipeline waits on a source that has no CAM entry
// and none can free: every entry belongs to a message still in progress, whose remaining
// packets are behind the stalled one. The raw firmware has no overflow protocol; like
// the C firmware it panics the node (Pedretti & Hudson 2005 s.4.3.3) rather than drop
// data silently. Protocols recover instead (CAM swapping, go-back-n).
func (f *Firmware) onStall(x *ppc.Exec, ev cam.Stalled) {
	if !ev.Miss || len(f.free) > 0 {
		return // the PPC will bind an entry when it handles the message's SOM
	}
	if _, bound := f.bySrc[ev.Src]; bound {
		return
	}
	x.Fatalf("rawdma: CAM exhausted: all %d entries belong to messages in progress, %d sources wait for one, "+
		"and the RX pipeline is stalled on node %d; the raw firmware has no overflow protocol and panics the node",
		len(f.entries), len(f.waiting), ev.Src)
}

// record posts a receive record into the host's RX ring.
func (f *Firmware) record(x *ppc.Exec, m *Msg) {
	x.HostWrite(actors.Bytes(f.costs.RecordBytes), recvRecords.New(RecvRecord{Slot: rxSlot(f.rxNext), Msg: m}))
	f.rxNext++
}

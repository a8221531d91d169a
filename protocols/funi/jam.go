package funi

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/host"
	"github.com/seastar-sim/seastar/startjr/i960"
	"github.com/seastar-sim/seastar/startjr/pci"
)

// Handler is a JAM handler: it runs on the receiving host when a message for it is
// taken out of an Rx queue.
type Handler func(j *JAM, m *Message)

// JAM is the light-weight active-message library of one process (Hoe & Ehrlich 1996
// s.4, Table 1): it composes messages in the Tx queues in host memory and publishes them
// with a store into the head index register, and takes messages out of the Rx queues by
// polling their valid bits (cached reads) and releasing them with a store into the tail
// index register. It never reads a FUNI register unless it believes a Tx queue full.
type JAM struct {
	p      *host.Proc
	prm    Params
	node   int
	gid    int
	card   *i960.Card
	sched  *schedule
	txHead [2]int // messages published per priority
	txTail [2]int // the tail index as last read
	rxIdx  [2]int // next Rx slot per priority
	hands  []Handler
	next   uint64

	// Received counts the messages taken; the IDs let a workload check that every
	// message arrived exactly once, at the right application.
	Received     int64
	Bytes        int64
	ids          map[uint64]bool
	Duplicates   int64
	Misdelivered int64
	Segments     map[int]int64 // words received per transfer segment
}

// schedule is the time-slicing of applications on a node: with two, each runs in
// alternate quanta, the quanta of node n shifted by n/nodes of a quantum (the nodes'
// schedulers are not coordinated).
type schedule struct {
	apps    int
	quantum actors.Duration
	offset  actors.Duration
}

// at returns the application running at t.
func (s *schedule) at(t actors.Time) int {
	if s == nil || s.apps <= 1 {
		return 0
	}
	return int((int64(t) + int64(s.offset)) / int64(s.quantum) % int64(s.apps))
}

// resume returns the first time at or after t when gid runs.
func (s *schedule) resume(t actors.Time, gid int) actors.Time {
	for s.at(t) != gid {
		q := int64(s.quantum)
		t = actors.Time(((int64(t)+int64(s.offset))/q+1)*q - int64(s.offset))
	}
	return t
}

// Register adds a handler and returns its index (the same order on every node).
func (j *JAM) Register(h Handler) int {
	j.hands = append(j.hands, h)
	return len(j.hands) - 1
}

// Node is the process's node.
func (j *JAM) Node() int { return j.node }

// Proc is the host process.
func (j *JAM) Proc() *host.Proc { return j.p }

// run waits until the process's application is scheduled.
func (j *JAM) run() {
	if j.sched == nil || j.sched.apps <= 1 {
		return
	}
	if t := j.sched.resume(j.p.Now(), j.gid); t > j.p.Now() {
		j.p.Compute(t.Sub(j.p.Now()))
	}
}

func (j *JAM) id() uint64 {
	j.next++
	return uint64(j.node)<<40 | uint64(j.gid)<<32 | j.next
}

// send enqueues m in its Tx queue and publishes it.
func (j *JAM) send(m *Message, extra actors.Duration) {
	j.run()
	m.Src, m.GID, m.ID = j.node, j.gid, j.id()
	prio := m.prio()
	for j.txHead[prio]-j.txTail[prio] >= j.prm.Slots {
		// The queue looks full: read the tail index register over PCI.
		reg := txTail(prio)
		j.p.BusRead(func(tag uint64) actors.Msg { return pci.NewRead(uint64(4*reg), 4, tag) })
		j.txTail[prio] = j.txHead[prio] - (j.txHead[prio]-int(j.card.Mailbox(reg)))%(1<<32)
	}
	start := j.p.Now()
	j.p.Compute(j.prm.SendFixed + extra + actors.Duration(m.SlotWords())*j.prm.SlotStore)
	m.Sent = j.p.Now()
	if t := j.p.Tracer(); t != nil && t.Sampled(m.ID) {
		t.Span(actors.Span{Trace: m.ID, Name: "jam/" + m.Kind.String(), Actor: j.p.Self(), Start: start, End: m.Sent, Root: true,
			Attrs: []actors.Attr{actors.IntAttr("src.node", int64(m.Src)), actors.IntAttr("dst.node", int64(m.Dst)),
				actors.IntAttr("gid", int64(m.GID)), actors.IntAttr("size_bytes", m.PayloadBytes()), actors.IntAttr("reply", boolInt(m.Reply))}})
		t.Span(actors.Span{Trace: m.ID, Name: "host/send", Actor: j.p.Self(), Start: start, End: m.Sent.Add(j.p.CPU().Params().MMIOWriteCost)})
	}
	j.txHead[prio]++
	j.p.BusWrite(pci.NewWrite(pci.Write{Reg: txHead(prio), Bytes: 4,
		Payload: i960.NewMailboxStore(i960.MailboxStore{Reg: txHead(prio), Value: uint32(j.txHead[prio]), Event: doorbell{m}})}))
}

// AM4 is JAM_4 (JAM_reply_4 when reply): handler h runs at dst with 4 arguments.
func (j *JAM) AM4(dst, h int, args [4]uint32, reply bool) {
	j.send(newMessage(Message{Kind: AM4, Reply: reply, Dst: dst, Handler: h}, args[:]), 0)
}

// AMN is JAM_n (JAM_reply_n): handler h runs at dst with up to 20 arguments.
func (j *JAM) AMN(dst, h int, args []uint32, reply bool) {
	if len(args) < 1 || len(args) > MaxArgs {
		j.p.Fatalf("JAM_n with %d arguments (1 to %d)", len(args), MaxArgs)
	}
	j.send(newMessage(Message{Kind: AMN, Reply: reply, Dst: dst, Handler: h}, args), j.prm.SendNExtra)
}

// Xfer4 is JAM_xfer_4: 4 words into segment seg at dst, through the message queues.
func (j *JAM) Xfer4(dst, seg int, words [4]uint32, reply bool) {
	j.send(newMessage(Message{Kind: Xfer4, Reply: reply, Dst: dst, Seg: seg}, words[:]), 0)
}

// Mfer is JAM_mfer_n: n words (<= 16) from local memory into segment seg at dst, the
// FUNIs reading the source and writing the target (zero copy).
func (j *JAM) Mfer(dst, seg, n int, reply bool) {
	if n < 1 || n > MaxMfer {
		j.p.Fatalf("JAM_mfer_n of %d words (1 to %d)", n, MaxMfer)
	}
	j.send(newMessage(Message{Kind: Mfer, Reply: reply, Dst: dst, Seg: seg, Words: n}, nil), 0)
}

// DMA is JAM_DMA_n: n words (<= 640) from local memory into segment seg at dst by the
// DMA engines, the FUNIs packetizing the block.
func (j *JAM) DMA(dst, seg, n int, reply bool) {
	if n < 1 || n > MaxDMA {
		j.p.Fatalf("JAM_DMA_n of %d words (1 to %d)", n, MaxDMA)
	}
	j.send(newMessage(Message{Kind: DMA, Reply: reply, Dst: dst, Seg: seg, Words: n}, nil), 0)
}

// Wait busy-polls the Rx queue of priority prio (1: replies) until a message is there,
// takes it and runs its handler.
func (j *JAM) Wait(prio int) {
	j.run()
	addr := RxAddr(j.gid, prio, j.rxIdx[prio]%j.prm.Slots)
	j.take(prio, addr, j.p.WaitFor(addr).(*RxEntry))
}

// Poll looks at both Rx queues once, replies first, and takes one message if there is
// one (its handler runs); it reports whether it took one.
func (j *JAM) Poll() bool {
	j.run()
	for _, prio := range []int{1, 0} {
		addr := RxAddr(j.gid, prio, j.rxIdx[prio]%j.prm.Slots)
		if e, ok := j.p.Peek(addr); ok {
			j.take(prio, addr, e.(*RxEntry))
			return true
		}
	}
	j.p.Compute(j.prm.PollEmpty)
	return false
}

// take receives the message of entry e from slot addr: its words (cache misses past the
// first line), the handler call, and the slot's release; then it lets go of the entry
// and the message.
func (j *JAM) take(prio int, addr uint64, e *RxEntry) {
	m := e.Msg
	hp := j.p.CPU().Params()
	words := m.SlotWords()
	cost := j.prm.RecvFixed
	switch m.Kind {
	case AMN:
		cost += j.prm.RecvNExtra + actors.Duration(len(m.Args))*j.prm.RecvArg
	case Mfer, DMA:
		words = 3
	}
	lines := (4*words + 31) / 32
	cost += actors.Duration(lines-1) * hp.CacheMiss
	start := j.p.Now()
	j.p.Compute(cost)
	if t := j.p.Tracer(); t != nil && t.Sampled(m.ID) {
		t.Span(actors.Span{Trace: m.ID, Name: "host/recv", Actor: j.p.Self(), Start: start, End: j.p.Now()})
	}
	j.p.Forget(addr) // the valid bit cleared
	j.rxIdx[prio]++
	reg := rxTail(prio)
	j.p.BusWrite(pci.NewWrite(pci.Write{Reg: reg, Bytes: 4, Payload: i960.NewMailboxStore(i960.MailboxStore{Reg: reg, Value: uint32(j.rxIdx[prio])})}))
	j.Received++
	j.Bytes += m.PayloadBytes()
	if j.ids[m.ID] {
		j.Duplicates++
	}
	j.ids[m.ID] = true
	if m.GID != j.gid || m.Dst != j.node {
		j.Misdelivered++
	}
	switch m.Kind {
	case AM4, AMN:
		if m.Handler < 0 || m.Handler >= len(j.hands) {
			j.p.Fatalf("message for handler %d, but %d are registered", m.Handler, len(j.hands))
		}
		j.hands[m.Handler](j, m)
	default:
		j.Segments[m.Seg] += int64(len(m.Args) + m.Words)
	}
	rxEntries.Release(e)
	m.drop()
}

// ShmRead loads one word at addr of the shared region: the ACD serves it from the GSMC,
// or retries the load while the FUNI coprocessor fetches the line.
func (j *JAM) ShmRead(addr uint64) {
	j.run()
	j.p.BusRead(func(tag uint64) actors.Msg { return pci.NewRead(addr, 4, tag) })
}

// ShmBase is the start of the shared region in the host's view.
const ShmBase = 0x1000_0000

func (j *JAM) String() string { return fmt.Sprintf("jam(node %d gid %d)", j.node, j.gid) }

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

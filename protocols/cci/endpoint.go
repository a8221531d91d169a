package cci

import (
	"container/heap"
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/host"
	"github.com/seastar-sim/seastar/ht"
)

// EventType is the kind of a CCI event.
type EventType uint8

// Events (Dillow & Atchley 2011 s.IV.A).
const (
	EvSend           EventType = iota // a send (or RMA) completed: Status, Context
	EvRecv                            // a message arrived: Conn, Len, Data
	EvConnectRequest                  // a peer asks to connect: Attr, Len, Data; answer with Accept or Reject
	EvConnect                         // a Connect completed: Status, Conn, Context
	EvAccept                          // an Accept completed: Status, Conn, Context
	numEvents
)

var eventNames = [numEvents]string{"send", "recv", "connect-request", "connect", "accept"}

func (t EventType) String() string {
	if t < numEvents {
		return eventNames[t]
	}
	return fmt.Sprintf("event%d", uint8(t))
}

// Event is a CCI event, from the endpoint's pool: the application returns it with
// ReturnEvent, which also releases the RX area space of a received message.
type Event struct {
	Type    EventType
	Status  Status
	Conn    *Conn
	Context any
	Len     int64
	Data    []byte // the message's bytes, when modelled
	Attr    Attr   // EvConnectRequest

	area     int   // RX area holding the message, -1 if none
	req      *Wire // EvConnectRequest: the request
	answered bool
}

func (e *Event) String() string {
	return fmt.Sprintf("cci.Event(%s %s %dB)", e.Type, e.Status, e.Len)
}

// Payload is a message: its length, and its bytes when modelled.
type Payload struct {
	Len  int64
	Data []byte
}

// Size is a payload of n bytes whose contents are not modelled.
func Size(n int64) Payload { return Payload{Len: n} }

// Bytes is a payload carrying b.
func Bytes(b []byte) Payload { return Payload{Len: int64(len(b)), Data: b} }

// Endpoint is a CCI endpoint in a process (Dillow & Atchley 2011 s.IV.A): the
// container of its connections, TX areas, RX areas with their ready ring, completion
// queue and events. All its methods run in the owning process and cost it time; none
// enters the kernel on the message path.
type Endpoint struct {
	s     *Stack
	pr    *Process
	p     *host.Proc
	P     Params
	ID    int
	nonce uint64

	closed bool
	conns  []*Conn
	gens   []uint32

	cqNext  uint64
	credits int                // completion queue entries consumed, not yet returned to the NIC
	ready   *actors.Array[int] // RX areas ready again, not yet told to the NIC (nil: none)
	areas   []rxArea
	tx      txAreas

	ops     map[uint64]*op
	opFree  []*op
	cookie  uint64
	timers  opHeap
	evq     actors.FIFO[*Event] // events ready for the application
	pool    []*Event
	made    int
	reqs    map[reqKey]bool
	logNext uint64
	mrs     map[Handle]*Region
	blocked []*Conn // connections whose RMA work waits for TX space

	Stats EndpointStats
}

// EndpointStats counts what the library did and rejected.
type EndpointStats struct {
	Sent, Received   int64
	Retransmits      int64 // resends after a timeout
	RNRResends       int64 // resends after a "not ready"
	Timeouts         int64
	BadNonce         int64 // received messages with another endpoint's nonce (forged or misdirected)
	Stale            int64 // for a connection that is closed or of an older generation
	BadSource        int64 // from another node or endpoint than the connection's peer (forged)
	BadType          int64 // a type the connection does not carry
	Dups             int64 // retransmitted messages already received
	PinFailures      int64 // registrations that failed to pin a page (host.pin_fail_rate)
	StaleAnswers     int64 // answers for no outstanding message
	Held, PeakHeld   int64 // RO messages held for an earlier one
	NoBuffers        int64 // sends refused for lack of TX area space
	CmdCreditReturns int64 // dedicated commands returning credits or areas
}

type rxArea struct {
	closed   bool
	count    int // messages the NIC placed in it (known once closed)
	returned int // of which the library is done with
}

// reqKey names a connection request: the requesting endpoint (its nonce tells a
// reopened endpoint with the same id apart) and connection slot.
type reqKey struct {
	node    int32
	ep      uint16
	nonce   uint64
	conn    uint32
	connGen uint32
}

func newEndpoint(pr *Process, id int, nonce uint64) *Endpoint {
	s := pr.s
	ep := &Endpoint{s: s, pr: pr, p: pr.p, P: s.p, ID: id, nonce: nonce, conns: make([]*Conn, s.p.Conns),
		gens: make([]uint32, s.p.Conns), areas: make([]rxArea, s.p.RxAreas), ops: map[uint64]*op{},
		reqs: map[reqKey]bool{}, mrs: map[Handle]*Region{}}
	ep.tx.init(s.p)
	return ep
}

// Nonce is the endpoint's nonce.
func (ep *Endpoint) Nonce() uint64 { return ep.nonce }

// Proc is the process that owns the endpoint.
func (ep *Endpoint) Proc() *Process { return ep.pr }

// call charges n host cycles of library work.
func (ep *Endpoint) call(n int) { ep.p.Compute(ep.s.cycles(n)) }

// post writes a command into the NIC command queue, in an entry claimed for it, with
// the credits and ready areas accumulated since the last one (Dillow & Atchley 2011
// s.IV.B.2: piggy-backed on transmit requests).
func (ep *Endpoint) post(c *Command) {
	c.EP = ep.ID
	c.Credits, ep.credits = ep.credits, 0
	if ep.ready != nil {
		c.Ready, ep.ready = ep.ready, nil
	}
	ep.p.MMIOWrite(ht.PPC, ep.P.CmdBytes, c)
}

// returnCredits sends the accumulated completion queue credits and ready areas in a
// dedicated command, if an entry is free (else they wait for the next command).
func (ep *Endpoint) returnCredits() {
	if ep.closed || (ep.credits == 0 && ep.ready == nil) || !ep.s.claim(ep, true, false) {
		return
	}
	ep.Stats.CmdCreditReturns++
	ep.post(userCmds.New(Command{Kind: CmdCredit}))
}

// absorb takes in the completion queue entries that have arrived (their events wait
// for the application) and returns their credits; false if there were none.
func (ep *Endpoint) absorb() bool {
	took := false
	for ep.takeOne() {
		took = true
	}
	if took {
		ep.returnCredits()
	}
	return took
}

// takeOne processes the next completion queue entry if the NIC has written it and an
// event is free for what it may produce.
func (ep *Endpoint) takeOne() bool {
	if !ep.canTake() {
		return false
	}
	m, ok := ep.p.Peek(cqAddr(ep.ID, ep.cqNext, ep.P.CQSlots))
	if ok {
		ep.consume(m)
	}
	return ok
}

// GetEvent is cci_get_event: the next event, if any. It processes completion queue
// entries (polling the next slot, which the NIC writes), resends what timed out, and
// returns credits to the NIC when enough accumulated.
func (ep *Endpoint) GetEvent() (*Event, bool) {
	if ep.closed {
		return nil, false
	}
	ep.expire()
	for ep.evq.Len() == 0 && ep.takeOne() { // not every entry makes an event (a closed-out area makes none)
	}
	return ep.pop()
}

// WaitEvent is the application's polling loop around cci_get_event: it returns the
// next event, waiting for the NIC's next completion queue write (seen one cache miss
// after it lands) and waking for the library's retransmission timers meanwhile.
func (ep *Endpoint) WaitEvent() (*Event, error) {
	for {
		if ev, ok := ep.GetEvent(); ok {
			return ev, nil
		}
		switch {
		case ep.closed:
			return nil, ErrClosed
		case !ep.canTake():
			return nil, fmt.Errorf("cci: endpoint %d: every event (%d) is held by the application: %w", ep.ID, ep.P.Events, ErrNoBuffers)
		}
		addr := cqAddr(ep.ID, ep.cqNext, ep.P.CQSlots)
		if len(ep.timers) == 0 {
			ep.consume(ep.p.WaitFor(addr))
		} else if m, ok := ep.p.WaitUntil(addr, ep.timers[0].deadline); ok {
			ep.consume(m)
		}
	}
}

// canTake reports whether a completion queue entry can be processed: an event is free
// for what it may produce.
func (ep *Endpoint) canTake() bool { return len(ep.pool) > 0 || ep.made < ep.P.Events }

func (ep *Endpoint) newEvent(t EventType) *Event {
	var ev *Event
	if n := len(ep.pool); n > 0 {
		ev = ep.pool[n-1]
		ep.pool = ep.pool[:n-1]
	} else {
		ep.made++
		ev = &Event{}
	}
	*ev = Event{Type: t, area: -1}
	return ev
}

func (ep *Endpoint) pop() (*Event, bool) {
	if ep.evq.Len() == 0 {
		return nil, false
	}
	return ep.evq.Pop(), true
}

// deliver queues an event for the application.
func (ep *Endpoint) deliver(ev *Event) { ep.evq.Push(ev) }

// ReturnEvent is cci_return_event: the event goes back to the pool and the space of a
// received message in its RX area is released; an area that the NIC closed out and
// whose messages are all returned goes back to the ready ring.
func (ep *Endpoint) ReturnEvent(ev *Event) {
	ep.call(ep.P.LibReturn)
	if ev.area >= 0 {
		ep.areaDone(ev.area)
	}
	*ev = Event{}
	ep.pool = append(ep.pool, ev)
}

// areaDone counts one message of area a as finished with.
func (ep *Endpoint) areaDone(a int) {
	ar := &ep.areas[a]
	ar.returned++
	ep.areaReady(a)
}

func (ep *Endpoint) areaReady(a int) {
	ar := &ep.areas[a]
	if !ar.closed || ar.returned < ar.count {
		return
	}
	*ar = rxArea{}
	if ep.ready == nil {
		ep.ready = readyLists.Get()
	}
	ep.ready.S = append(ep.ready.S, a)
	if len(ep.ready.S) >= ep.P.ReadyBatch {
		ep.returnCredits()
	}
}

// consume processes one completion queue entry and zeroes its slot.
func (ep *Endpoint) consume(m any) {
	e, ok := m.(*CQEntry)
	if !ok {
		ep.p.Fatalf("cci: endpoint %d: %v in the completion queue", ep.ID, m)
	}
	ep.call(ep.P.LibEvent)
	ep.p.Forget(e.Addr)
	ep.cqNext++
	ep.credits++
	switch e.Kind {
	case CQSend:
		ep.onSendDone(e)
	case CQAnswer:
		ep.onAnswer(e.Wire)
		e.Wire.Drop()
	case CQRecv:
		start := ep.p.Now()
		ep.onRecv(e)
		ep.traceReceived(e, start)
		if e.Wire.Type.message() {
			e.Wire.Drop() // the receiver's hold (wires): events keep what they need
		}
	case CQArea:
		ar := &ep.areas[e.Area]
		ar.closed, ar.count = true, e.Count
		ep.areaReady(e.Area)
	case CQRead:
		ep.onReadDone(e.Wire)
	default:
		ep.p.Fatalf("cci: endpoint %d: unknown completion %s", ep.ID, e)
	}
	cqEntries.Release(e)
	if ep.credits >= ep.P.CreditBatch {
		ep.returnCredits()
	}
}

// applyLanded applies the RMA writes the NIC placed in the endpoint's regions.
func (ep *Endpoint) applyLanded() {
	for {
		addr := logAddr(ep.ID, ep.logNext)
		m, ok := ep.p.Peek(addr)
		if !ok {
			return
		}
		ep.p.Forget(addr)
		ep.logNext++
		l := m.(*Landed)
		copy(l.MR.Data[l.Off:], l.Data)
	}
}

// Close is cci_destroy_endpoint: the kernel deactivates the endpoint in the NIC,
// waits until the NIC has finished every task of it (messages still arriving are
// refused, queued transmissions cancelled), and releases it. Its regions are
// deregistered.
func (ep *Endpoint) Close() error {
	if ep.closed {
		return ErrClosed
	}
	s := ep.s
	for _, h := range ep.regionHandles() {
		if err := ep.Deregister(h); err != nil {
			return err
		}
	}
	s.kernel(ep.p, 0)
	s.kernelCmd(ep.p, &Command{Kind: CmdClose, EP: ep.ID})
	addr := closedAddr(ep.ID)
	ep.p.WaitFor(addr)
	ep.p.Forget(addr)
	ep.closed = true
	s.eps[ep.ID] = nil
	return nil
}

// Closed reports whether the endpoint was closed.
func (ep *Endpoint) Closed() bool { return ep.closed }

// txAreas allocates message slots in the endpoint's TX areas: each area fills from its
// start and is reused once every message in it is done (Dillow & Atchley 2011 s.IV.B:
// a message never spans two areas).
type txAreas struct {
	size actors.Bytes
	off  []actors.Bytes
	live []int
	cur  int
}

func (t *txAreas) init(p Params) {
	t.size, t.off, t.live = p.TxAreaBytes, make([]actors.Bytes, p.TxAreas), make([]int, p.TxAreas)
}

// alloc takes n bytes (slot-rounded); false when no area has room.
func (t *txAreas) alloc(n actors.Bytes) (area int, off actors.Bytes, ok bool) {
	for i := range len(t.off) {
		a := (t.cur + i) % len(t.off)
		if t.live[a] == 0 {
			t.off[a] = 0
		}
		if t.off[a]+n <= t.size {
			t.cur = a
			off = t.off[a]
			t.off[a] += n
			t.live[a]++
			return a, off, true
		}
	}
	return 0, 0, false
}

func (t *txAreas) free(a int) { t.live[a]-- }

// opHeap orders the library's timers by deadline, then cookie.
type opHeap []*op

func (h opHeap) Len() int { return len(h) }
func (h opHeap) Less(i, j int) bool {
	if h[i].deadline != h[j].deadline {
		return h[i].deadline < h[j].deadline
	}
	return h[i].cookie < h[j].cookie
}
func (h opHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].hidx, h[j].hidx = i, j
}
func (h *opHeap) Push(x any) {
	o := x.(*op)
	o.hidx = len(*h)
	*h = append(*h, o)
}
func (h *opHeap) Pop() any {
	old := *h
	o := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	o.hidx = -1
	return o
}

// arm sets op's timer to deadline.
func (ep *Endpoint) arm(o *op, deadline actors.Time) {
	o.deadline = deadline
	if o.hidx >= 0 {
		heap.Fix(&ep.timers, o.hidx)
		return
	}
	heap.Push(&ep.timers, o)
}

// disarm removes op's timer.
func (ep *Endpoint) disarm(o *op) {
	if o.hidx >= 0 {
		heap.Remove(&ep.timers, o.hidx)
	}
}

// expire handles the timers due by now: resends after a "not ready", retransmissions
// after a timeout, or failure once the retries are spent. A resend finding the command
// queue full tries again a "not ready" delay later.
func (ep *Endpoint) expire() {
	now := ep.p.Now()
	for len(ep.timers) > 0 && ep.timers[0].deadline <= now {
		o := heap.Pop(&ep.timers).(*op)
		resend := o.rnrWait || o.tries < ep.P.Retries
		if resend && !ep.s.claim(ep, false, false) {
			ep.arm(o, now.Add(ep.P.RNRDelay))
			continue
		}
		switch {
		case o.rnrWait:
			o.rnrWait = false
			ep.Stats.RNRResends++
			ep.transmit(o)
		case o.tries >= ep.P.Retries:
			ep.Stats.Timeouts++
			ep.finish(o, ErrTimedOut)
		default:
			o.tries++
			ep.Stats.Retransmits++
			ep.transmit(o)
		}
	}
}

package cci

import (
	"fmt"
	"maps"
	"slices"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/router"
)

type connState uint8

const (
	connClosed connState = iota
	connConnecting
	connOpen
	connRejecting // a rejection reply is on its way
)

// Conn is a connection of an endpoint: its slot in the endpoint's table (the header
// row the kernel built for it) and generation, its peer as the handshake established
// it, and the sequence state of a reliable connection.
type Conn struct {
	ep      *Endpoint
	slot    int
	gen     uint32
	Attr    Attr
	Context any
	state   connState

	peerNode  router.NodeID
	peerEP    uint16
	peerNonce uint64
	peerConn  uint32
	peerGen   uint32

	nextSeq uint32            // next message sequence number
	low     uint32            // lowest sequence number sent and not answered (nextSeq if none)
	rmaSeq  uint32            // next RMA sequence number (a separate space)
	pending map[uint32]*op    // reliable operations awaiting their answer, by sequence
	expect  uint32            // lowest sequence number not yet received
	seen    map[uint32]bool   // RU: received above expect
	held    map[uint32]*Event // RO: received above expect, delivered once expect arrives

	rmaQ    []*rmaOp
	rmaBusy int      // RMA operations started and not complete
	pendMsg []*rmaOp // RMA operations whose completion message waits for TX space
}

// Peer returns the node and endpoint at the other end.
func (c *Conn) Peer() (router.NodeID, int) { return c.peerNode, int(c.peerEP) }

func (c *Conn) String() string {
	return fmt.Sprintf("cci.Conn(%s slot%d/%d node%d ep%d)", c.Attr, c.slot, c.gen, c.peerNode, c.peerEP)
}

type opKind uint8

const (
	opMsg opKind = iota
	opConnReq
	opConnReply
	opRMAWrite
	opRMARead
	opRMAMsg // the completion message of an RMA operation
)

// op is a transmission of the library: a message in a TX slot until it is done (for
// a reliable connection, until its answer, and until the NIC has finished every
// transmission of it).
type op struct {
	kind     opKind
	cookie   uint64
	conn     *Conn
	typ      Type
	seq      uint32
	area     int
	addr     uint64
	hdr      *Header // &hdrBuf once set (header)
	hdrBuf   Header
	data     []byte
	n        int64
	local    Handle
	localOff int64
	reliable bool
	inflight int  // transmissions the NIC has not completed
	answered bool // acked, refused, failed or (unreliable) sent
	tries    int
	rnr      int
	rnrWait  bool
	deadline actors.Time
	hidx     int
	ctx      any
	rma      *rmaOp
	accept   bool // opConnReply: accepting
}

// allocConn takes a free connection slot, with a new generation.
func (ep *Endpoint) allocConn() (*Conn, error) {
	for i, c := range ep.conns {
		if c == nil {
			ep.gens[i]++
			c = &Conn{ep: ep, slot: i, gen: ep.gens[i], nextSeq: 1, low: 1, expect: 1, pending: map[uint32]*op{}}
			ep.conns[i] = c
			return c, nil
		}
	}
	return nil, fmt.Errorf("cci: endpoint %d has no free connection (%d): %w", ep.ID, len(ep.conns), ErrNoBuffers)
}

// freeConn releases a connection's slot; the kernel clears its header row.
func (ep *Endpoint) freeConn(c *Conn) {
	if ep.conns[c.slot] != c {
		return
	}
	c.state = connClosed
	ep.conns[c.slot] = nil
	ep.s.setRow(ep.p, ep.ID, c.slot, 0, 0)
}

// connOf returns the connection an incoming message or answer names, if it is live
// and its peer is the sender.
func (ep *Endpoint) connOf(slot, gen uint32, src router.NodeID) *Conn {
	if int(slot) >= len(ep.conns) {
		return nil
	}
	c := ep.conns[slot]
	if c == nil || c.gen != gen || c.state == connClosed || c.peerNode != src {
		return nil
	}
	return c
}

// claimOp claims a command queue entry and takes a TX slot for an operation; either
// may fail with ErrNoBuffers.
func (ep *Endpoint) claimOp(kind opKind, c *Conn, t Type, bytes actors.Bytes) (*op, error) {
	if !ep.s.claim(ep, false, true) {
		return nil, ErrNoBuffers
	}
	o, err := ep.newOp(kind, c, t, bytes)
	if err != nil {
		ep.s.unclaim()
	}
	return o, err
}

// newOp takes a TX slot of bytes for an operation on c; ErrNoBuffers when the TX areas
// are full.
func (ep *Endpoint) newOp(kind opKind, c *Conn, t Type, bytes actors.Bytes) (*op, error) {
	a, off, ok := ep.tx.alloc(ep.P.slot(bytes))
	if !ok {
		ep.Stats.NoBuffers++
		return nil, ErrNoBuffers
	}
	var o *op
	if n := len(ep.opFree); n > 0 {
		o = ep.opFree[n-1]
		ep.opFree = ep.opFree[:n-1]
	} else {
		o = &op{}
	}
	ep.cookie++
	*o = op{kind: kind, cookie: ep.cookie, conn: c, typ: t, area: a, hidx: -1, reliable: t.reliable(),
		addr: txBase + uint64(ep.ID)<<30 + uint64(a)*uint64(ep.P.TxAreaBytes) + uint64(off)}
	ep.ops[o.cookie] = o
	return o, nil
}

// release frees an operation's TX slot once it is answered and the NIC is done with it.
func (ep *Endpoint) release(o *op) {
	if !o.answered || o.inflight > 0 {
		return
	}
	delete(ep.ops, o.cookie)
	ep.tx.free(o.area)
	*o = op{}
	ep.opFree = append(ep.opFree, o)
	if len(ep.blocked) > 0 {
		bl := ep.blocked
		ep.blocked = nil
		for _, c := range bl {
			ep.pump(c)
		}
	}
}

// transmit hands an operation to the NIC (again, for a retransmission), in a command
// queue entry claimed for it: a command naming the connection's header row and the TX
// slot. A reliable operation waits for its answer; its retransmission timer starts at
// its send completion (onSendDone): until then it is in the NIC's queues, where it
// cannot be lost, however deep they are.
func (ep *Endpoint) transmit(o *op) {
	kind := CmdSend
	switch o.kind {
	case opRMAWrite:
		kind = CmdRMAWrite
	case opRMARead:
		kind = CmdRMARead
	}
	o.inflight++
	ep.Stats.Sent++
	c := userCmds.New(Command{Kind: kind, Row: o.conn.slot, Type: o.typ, Dst: o.conn.peerNode, Addr: o.addr, Len: o.n,
		Data: o.data, Cookie: o.cookie, Local: o.local, LocOff: o.localOff})
	// The header written into the TX slot is the command's own: the NIC may take the
	// command after o is gone (its endpoint closed) and o reused.
	if o.hdr != nil {
		c.hdr = *o.hdr
		c.Hdr = &c.hdr
	}
	ep.post(c)
	if o.reliable {
		o.conn.pending[o.seq] = o
		ep.disarm(o)
	}
}

// header sets o's header, what the library writes after the first word for a message
// on c (each transmission copies it into its command), and returns it.
func (c *Conn) header(o *op, seq uint32) *Header {
	o.hdrBuf = Header{Nonce: c.peerNonce, Conn: c.peerConn, Gen: c.peerGen, Seq: seq, SrcEP: uint16(c.ep.ID),
		SrcConn: uint32(c.slot), SrcGen: c.gen}
	o.hdr = &o.hdrBuf
	return o.hdr
}

// Connect is cci_connect: the kernel builds the connection's header row, and a
// connection request carrying data goes to endpoint epID of node. EvConnect reports
// the outcome, with ctx.
func (ep *Endpoint) Connect(node router.NodeID, epID int, data Payload, a Attr, ctx any) error {
	if ep.closed {
		return ErrClosed
	}
	if a > RO || epID < 0 || epID >= ep.P.Endpoints || (data.Data != nil && int64(len(data.Data)) != data.Len) {
		return fmt.Errorf("cci: connect to node %d endpoint %d (%s): %w", node, epID, a, ErrInvalid)
	}
	if data.Len < 0 || actors.Bytes(data.Len)+ep.P.ConnInfo > ep.P.MSS {
		return ErrMsgSize
	}
	ep.call(ep.P.LibSend)
	c, err := ep.allocConn()
	if err != nil {
		return err
	}
	c.Attr, c.Context, c.state, c.peerNode, c.peerEP = a, ctx, connConnecting, node, uint16(epID)
	ep.s.setRow(ep.p, ep.ID, c.slot, uint16(epID), rowTypes(a))
	o, err := ep.claimOp(opConnReq, c, TypeConnReq, ep.P.HeaderBytes+ep.P.ConnInfo+actors.Bytes(data.Len))
	if err != nil {
		ep.freeConn(c)
		return err
	}
	c.header(o, 0).Conn2 = &ConnInfo{Attr: a, Nonce: ep.nonce}
	o.n, o.data = int64(ep.P.ConnInfo)+data.Len, copyBytes(data.Data)
	ep.p.Memcpy(actors.Bytes(data.Len))
	ep.transmit(o)
	return nil
}

func copyBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
}

// Accept is cci_accept: the kernel builds the new connection's header row and a reply
// with the endpoint's nonce goes back; EvAccept follows once the reply is acked. The
// connection can receive at once.
func (ep *Endpoint) Accept(ev *Event, ctx any) (*Conn, error) {
	return ep.answerRequest(ev, true, ctx)
}

// Reject is cci_reject: the requester's EvConnect reports ErrRejected.
func (ep *Endpoint) Reject(ev *Event) error {
	_, err := ep.answerRequest(ev, false, nil)
	return err
}

func (ep *Endpoint) answerRequest(ev *Event, accept bool, ctx any) (*Conn, error) {
	if ep.closed {
		return nil, ErrClosed
	}
	if ev == nil || ev.Type != EvConnectRequest || ev.answered || ev.req == nil {
		return nil, fmt.Errorf("cci: accept or reject of %v: %w", ev, ErrInvalid)
	}
	ep.call(ep.P.LibSend)
	w := ev.req
	c, err := ep.allocConn()
	if err != nil {
		return nil, err
	}
	c.Attr, c.Context, c.peerNode, c.peerEP = w.H.Conn2.Attr, ctx, w.Src, w.H.SrcEP
	c.peerNonce, c.peerConn, c.peerGen = w.H.Conn2.Nonce, w.H.SrcConn, w.H.SrcGen
	c.state = connOpen
	if !accept {
		c.state = connRejecting
	}
	ep.s.setRow(ep.p, ep.ID, c.slot, w.H.SrcEP, rowTypes(c.Attr))
	o, err := ep.claimOp(opConnReply, c, TypeConnReply, ep.P.HeaderBytes+ep.P.ConnInfo)
	if err != nil {
		ep.freeConn(c)
		return nil, err
	}
	c.header(o, 0).Conn2 = &ConnInfo{Attr: c.Attr, Nonce: ep.nonce, Accept: accept}
	o.n, o.accept = int64(ep.P.ConnInfo), accept
	ev.answered = true
	ep.transmit(o)
	if !accept {
		return nil, nil
	}
	return c, nil
}

// Disconnect is cci_disconnect: local; the kernel clears the header row, operations
// still outstanding complete with ErrDisconnected, and later messages for the
// connection are rejected as stale.
func (ep *Endpoint) Disconnect(c *Conn) error {
	if c == nil || c.ep != ep || c.state == connClosed {
		return fmt.Errorf("cci: disconnect of %v: %w", c, ErrInvalid)
	}
	ep.call(ep.P.LibSend)
	for _, o := range inSeqOrder(c.pending) {
		ep.finish(o, ErrDisconnected)
	}
	held := inSeqOrder(c.held)
	c.held = nil
	for _, ev := range held {
		ep.ReturnEvent(ev)
	}
	for _, r := range append(c.rmaQ, c.pendMsg...) {
		ep.rmaDone(r, ErrDisconnected)
	}
	c.rmaQ, c.pendMsg = nil, nil
	ep.freeConn(c)
	return nil
}

// inSeqOrder returns the values of m (operations or events by sequence number) in
// sequence order.
func inSeqOrder[V any](m map[uint32]V) []V {
	out := make([]V, 0, len(m))
	for _, s := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[s])
	}
	return out
}

// Send is cci_send: the message is copied into a TX slot behind the header the library
// builds from the connection, and a command for the NIC names the slot and the
// connection's header row (Dillow & Atchley 2011 s.IV.B.1). EvSend reports completion
// with ctx: at once on an unreliable connection, on the NIC's ack on a reliable one.
func (ep *Endpoint) Send(c *Conn, m Payload, ctx any) error {
	ep.call(ep.P.LibSend)
	switch {
	case ep.closed:
		return ErrClosed
	case c == nil || c.ep != ep:
		return fmt.Errorf("cci: send on %v: %w", c, ErrInvalid)
	case c.state != connOpen:
		return ErrDisconnected
	case m.Len < 0 || actors.Bytes(m.Len) > ep.P.MSS:
		return ErrMsgSize
	case m.Data != nil && int64(len(m.Data)) != m.Len:
		return fmt.Errorf("cci: send of %dB with %d bytes: %w", m.Len, len(m.Data), ErrInvalid)
	}
	if c.Attr == RO && c.nextSeq-c.low >= uint32(ep.P.ROWindow) {
		ep.Stats.NoBuffers++ // the oldest message is not acknowledged yet: the receiver may hold the rest for it
		return ErrNoBuffers
	}
	if !ep.s.claim(ep, false, true) {
		return ErrNoBuffers
	}
	o, err := ep.sendOp(c, opMsg, m, ctx)
	if err != nil {
		ep.s.unclaim()
		return err
	}
	ep.transmit(o)
	return nil
}

// sendOp builds a message operation in a TX slot.
func (ep *Endpoint) sendOp(c *Conn, kind opKind, m Payload, ctx any) (*op, error) {
	t := TypeMsg
	if c.Attr.Reliable() {
		t = TypeMsgRel
	}
	o, err := ep.newOp(kind, c, t, ep.P.HeaderBytes+actors.Bytes(m.Len))
	if err != nil {
		return nil, err
	}
	var seq uint32
	if o.reliable {
		seq = c.nextSeq
		c.nextSeq++
	}
	c.header(o, seq)
	o.seq, o.n, o.data, o.ctx = seq, m.Len, copyBytes(m.Data), ctx
	ep.p.Memcpy(actors.Bytes(m.Len))
	return o, nil
}

// onSendDone is the NIC's send completion: an unreliable operation is done; a reliable
// one waits for its answer; a command the NIC refused fails.
func (ep *Endpoint) onSendDone(e *CQEntry) {
	o := ep.ops[e.Cookie]
	if o == nil {
		ep.p.Fatalf("cci: endpoint %d: send completion of unknown operation #%d", ep.ID, e.Cookie)
	}
	o.inflight--
	switch {
	case o.answered:
	case e.Status != OK:
		ep.finish(o, e.Status)
	case !o.reliable:
		ep.finish(o, OK)
	case !o.rnrWait && o.inflight == 0:
		ep.arm(o, ep.p.Now().Add(ep.P.RTO))
	}
	ep.release(o)
}

// awaiting returns the outstanding reliable operation that w answers; nil, counted as
// stale, for an answer to a retransmission or for a closed connection.
func (ep *Endpoint) awaiting(w *Wire) *op {
	var o *op
	if c := ep.connOf(w.H.Conn, w.H.Gen, w.Src); c != nil {
		o = c.pending[w.H.Seq]
	}
	if o == nil || o.answered {
		ep.Stats.StaleAnswers++
		return nil
	}
	return o
}

// onAnswer handles the NIC-generated answer to a reliable operation.
func (ep *Endpoint) onAnswer(w *Wire) {
	o := ep.awaiting(w)
	if o == nil {
		return
	}
	switch w.Type {
	case TypeAck:
		ep.finish(o, OK)
	case TypeRefused:
		ep.finish(o, w.Status)
	case TypeNotReady:
		o.rnr++
		if o.rnr > ep.P.RNRRetries {
			ep.finish(o, ErrRNR)
			return
		}
		o.rnrWait = true
		ep.arm(o, ep.p.Now().Add(ep.P.RNRDelay))
	}
}

// finish completes an operation with status st: its event, or its part in a handshake
// or an RMA operation.
func (ep *Endpoint) finish(o *op, st Status) {
	if o.answered {
		return
	}
	o.answered = true
	ep.disarm(o)
	c := o.conn
	if c.pending[o.seq] == o {
		delete(c.pending, o.seq)
		for c.low < c.nextSeq && c.pending[c.low] == nil {
			c.low++
		}
	}
	switch o.kind {
	case opMsg:
		ev := ep.newEvent(EvSend)
		ev.Status, ev.Conn, ev.Context = st, c, o.ctx
		ep.deliver(ev)
	case opConnReq:
		if st != OK { // success is the reply, not the ack
			ev := ep.newEvent(EvConnect)
			ev.Status, ev.Context = st, c.Context
			ep.deliver(ev)
			ep.freeConn(c)
		}
	case opConnReply:
		if !o.accept {
			ep.freeConn(c)
			break
		}
		ev := ep.newEvent(EvAccept)
		ev.Status, ev.Conn, ev.Context = st, c, c.Context
		if st != OK {
			ev.Conn = nil
			ep.freeConn(c)
		}
		ep.deliver(ev)
	case opRMAWrite, opRMARead:
		ep.fragmentDone(o, st)
	case opRMAMsg:
		ep.rmaDone(o.rma, st)
	}
	ep.release(o)
}

// onRecv handles a message the NIC placed in an RX area: the library validates what
// the sender's library wrote (nonce, connection id and generation, source), checks the
// sequence of a reliable connection, and delivers it (Dillow & Atchley 2011 s.IV.B.2).
// Rejected messages are counted and their space released at once.
func (ep *Endpoint) onRecv(e *CQEntry) {
	w := e.Wire
	switch w.Type {
	case TypeConnReq:
		ep.onConnRequest(e)
		return
	case TypeConnReply:
		ep.onConnReply(e)
		return
	case TypeMsg, TypeMsgRel:
	default:
		ep.Stats.BadType++
		ep.areaDone(e.Area)
		return
	}
	c := ep.validate(w, e.Area)
	if c == nil {
		return
	}
	if (w.Type == TypeMsgRel) != c.Attr.Reliable() {
		ep.Stats.BadType++
		ep.areaDone(e.Area)
		return
	}
	ev := ep.newEvent(EvRecv)
	ev.Conn, ev.Len, ev.Data, ev.area = c, w.Len, w.Data, e.Area
	switch c.Attr {
	case UU:
		ep.received(ev)
	case RU:
		if w.H.Seq < c.expect || c.seen[w.H.Seq] {
			ep.dup(ev)
			return
		}
		if w.H.Seq == c.expect { // in order: the common case needs no map
			c.expect++
		} else {
			if c.seen == nil {
				c.seen = map[uint32]bool{}
			}
			c.seen[w.H.Seq] = true
		}
		for c.seen[c.expect] {
			delete(c.seen, c.expect)
			c.expect++
		}
		ep.received(ev)
	case RO:
		if w.H.Seq < c.expect || c.held[w.H.Seq] != nil {
			ep.dup(ev)
			return
		}
		if w.H.Seq > c.expect {
			// Recovery: the message is copied out of its RX area into the library's
			// reorder buffer and its area space released at once, so that messages
			// held for an earlier one can never take all the RX areas that the
			// earlier one (answered "not ready", or lost) needs to come in.
			ep.p.MemcpyFromNIC(actors.Bytes(w.Len))
			ep.areaDone(e.Area)
			ev.area = -1
			if c.held == nil {
				c.held = map[uint32]*Event{}
			}
			c.held[w.H.Seq] = ev
			ep.Stats.Held++
			ep.Stats.PeakHeld = max(ep.Stats.PeakHeld, int64(len(c.held)))
			return
		}
		ep.received(ev)
		c.expect++
		for h := c.held[c.expect]; h != nil; h = c.held[c.expect] {
			delete(c.held, c.expect)
			ep.received(h)
			c.expect++
		}
	}
}

func (ep *Endpoint) received(ev *Event) {
	ep.Stats.Received++
	ep.deliver(ev)
}

// dup drops a retransmitted message that was already received (its ack was lost).
func (ep *Endpoint) dup(ev *Event) {
	ep.Stats.Dups++
	ep.areaDone(ev.area)
	*ev = Event{}
	ep.pool = append(ep.pool, ev)
}

// validate checks the untrusted header of a message against the endpoint and its
// connection: the nonce proves the handshake reached this endpoint; the connection id
// and generation find a live connection; the source must be its peer.
func (ep *Endpoint) validate(w *Wire, area int) *Conn {
	reject := func(n *int64) *Conn {
		*n++
		ep.areaDone(area)
		return nil
	}
	if w.H.Nonce != ep.nonce {
		return reject(&ep.Stats.BadNonce)
	}
	if int(w.H.Conn) >= len(ep.conns) {
		return reject(&ep.Stats.Stale)
	}
	c := ep.conns[w.H.Conn]
	if c == nil || c.gen != w.H.Gen || c.state != connOpen {
		return reject(&ep.Stats.Stale)
	}
	if c.peerNode != w.Src || c.peerEP != w.H.SrcEP || c.peerConn != w.H.SrcConn || c.peerGen != w.H.SrcGen {
		return reject(&ep.Stats.BadSource)
	}
	return c
}

// onConnRequest turns a connection request into an event for the application; a
// retransmitted request (its ack was lost) is recognized and dropped.
func (ep *Endpoint) onConnRequest(e *CQEntry) {
	w := e.Wire
	if w.H.Conn2 == nil {
		ep.Stats.BadType++
		ep.areaDone(e.Area)
		return
	}
	k := reqKey{node: int32(w.Src), ep: w.H.SrcEP, nonce: w.H.Conn2.Nonce, conn: w.H.SrcConn, connGen: w.H.SrcGen}
	if ep.reqs[k] {
		ep.Stats.Dups++
		ep.areaDone(e.Area)
		return
	}
	ep.reqs[k] = true
	ev := ep.newEvent(EvConnectRequest)
	ev.Attr, ev.Len, ev.Data, ev.area, ev.req = w.H.Conn2.Attr, w.Len-int64(ep.P.ConnInfo), w.Data, e.Area, w
	ep.received(ev)
}

// onConnReply completes a Connect: the reply must carry this endpoint's nonce and name
// the connecting slot and generation.
func (ep *Endpoint) onConnReply(e *CQEntry) {
	w := e.Wire
	defer ep.areaDone(e.Area)
	if w.H.Nonce != ep.nonce {
		ep.Stats.BadNonce++
		return
	}
	c := ep.connOf(w.H.Conn, w.H.Gen, w.Src)
	if c == nil || c.state != connConnecting || w.H.SrcEP != c.peerEP || w.H.Conn2 == nil {
		ep.Stats.Dups++ // a retransmitted reply, or a stale one
		return
	}
	if o := c.pending[0]; o != nil { // the reply proves the request arrived
		o.answered = true
		ep.disarm(o)
		delete(c.pending, 0)
		ep.release(o)
	}
	ev := ep.newEvent(EvConnect)
	ev.Context = c.Context
	if !w.H.Conn2.Accept {
		ev.Status = ErrRejected
		ep.freeConn(c)
		ep.deliver(ev)
		return
	}
	c.peerNonce, c.peerConn, c.peerGen, c.state = w.H.Conn2.Nonce, w.H.SrcConn, w.H.SrcGen, connOpen
	ev.Conn = c
	ep.deliver(ev)
}

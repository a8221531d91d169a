package mpi

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/protocols/portals3/ptl"
)

type reqKind uint8

const (
	kindSend reqKind = iota + 1
	kindRecv
)

// Request is a nonblocking send or receive (MPI_Request). It belongs to its Comm and
// is recycled when Wait returns: it must not be used after that.
type Request struct {
	c      *Comm
	slot   int
	gen    uint32
	kind   reqKind
	active bool
	done   bool
	buf    Buf
	peer   int // destination, or source (AnySource)
	tag    int
	status Status
	err    error
	md     ptl.MDHandle
	// long sends: the events that end them
	long, sendEnd, acked, ackFull, fetched bool
	// a receive of an unexpected short message whose data is still arriving
	ux *uxEntry
}

// ptr is the request's name in the user pointer of its memory descriptors: slot and
// generation, so that a late event never reaches a recycled request.
func (r *Request) ptr() uint64 { return uint64(r.gen)<<32 | uint64(r.slot+1) }

// newReq takes a request from the rank's table.
func (c *Comm) newReq(kind reqKind, buf Buf, peer, tag int) *Request {
	var r *Request
	if n := len(c.freeSlots); n > 0 {
		r = c.reqs[c.freeSlots[n-1]]
		c.freeSlots = c.freeSlots[:n-1]
	} else {
		r = &Request{c: c, slot: len(c.reqs)}
		c.reqs = append(c.reqs, r)
	}
	gen := r.gen + 1
	*r = Request{c: c, slot: r.slot, gen: gen, kind: kind, active: true, buf: buf, peer: peer, tag: tag}
	return r
}

// lookup returns the active request named by a user pointer, or nil.
func (c *Comm) lookup(ptr uint64) *Request {
	i := int(uint32(ptr)) - 1
	if i < 0 || i >= len(c.reqs) {
		return nil
	}
	r := c.reqs[i]
	if !r.active || r.gen != uint32(ptr>>32) {
		return nil
	}
	return r
}

// release returns a request to the table.
func (c *Comm) release(r *Request) {
	r.active = false
	r.ux = nil
	r.buf = Buf{}
	c.freeSlots = append(c.freeSlots, r.slot)
}

// complete marks r done at the rank's current time.
func (c *Comm) complete(r *Request) {
	r.done = true
	r.status.Done = c.pr.Now()
	if r.kind == kindRecv && r.err == nil {
		c.Stats.Received++
		c.Stats.BytesReceived += r.status.Count
	}
	if c.onComplete != nil {
		c.onComplete()
	}
}

// Isend is MPI_Isend to rank dst with tag. A message of at most eager_max bytes goes
// by the short protocol: one put from a memory descriptor over buf, complete when it
// has left (SEND_END). A longer one goes by the long protocol: buf is also exposed on
// PtRead under a fresh id carried in the header data, and sent with a put that asks
// for an ack. If the put found a posted receive, the ack reports every byte accepted
// and the send is complete; if it fell into the unexpected-message entry (which keeps
// only the header), the ack reports 0 bytes and the send completes when the receiver
// has fetched the data with a get (GET_END) (Brightwell, Riesen & Maccabe 2003, the
// MPI on Portals 3.0 design cited by Pedretti & Hudson 2005).
func (c *Comm) Isend(buf Buf, dst, tag int) (*Request, error) {
	c.call()
	return c.isend(buf, dst, tag, ctxP2P)
}

func (c *Comm) isend(buf Buf, dst, tag, ctx int) (*Request, error) {
	if err := c.checkPeer(dst, false, tag); err != nil {
		return nil, err
	}
	if err := c.checkBuf(buf); err != nil {
		return nil, err
	}
	r := c.newReq(kindSend, buf, dst, tag)
	r.status = Status{Source: c.rank, Tag: tag, Count: buf.Len}
	target := c.world.Procs[dst]
	bits := c.sendBits(ctx, tag)
	c.Stats.Sends++
	c.Stats.BytesSent += buf.Len
	md := ptl.MD{Start: buf.Addr, Length: uint64(buf.Len), Buf: buf.Data, Threshold: 1,
		Options: ptl.MDEventStartDisable, EQ: c.mainEQ, UserPtr: r.ptr()}
	if buf.Len <= int64(c.p.EagerMax) {
		c.Stats.Eager++
		h, err := c.pr.MDBind(md, ptl.Unlink)
		if err != nil {
			c.release(r)
			return nil, c.fail("MDBind", err)
		}
		r.md = h
		if err := c.pr.Put(h, ptl.NoAckReq, target, PtRecv, bits, 0, 0); err != nil {
			return nil, c.fail("Put", err)
		}
		return r, nil
	}
	c.Stats.Long++
	c.seq++
	r.long = true
	me, err := c.pr.MEAttach(PtRead, ptl.MatchID{NID: target.NID, PID: target.PID, JID: c.world.JID, UID: ptl.UIDAny},
		ptl.MatchBits(c.seq), 0, ptl.Unlink, ptl.InsAfter)
	if err != nil {
		c.release(r)
		return nil, c.fail("MEAttach", err)
	}
	md.Threshold = 3 // the put, its ack and the receiver's get
	md.Options |= ptl.MDOpGet
	if r.md, err = c.pr.MDAttach(me, md, ptl.Retain); err != nil {
		c.release(r)
		return nil, c.fail("MDAttach", err)
	}
	if err := c.pr.Put(r.md, ptl.AckReqd, target, PtRecv, bits|longBit, 0, ptl.HdrData(c.seq)); err != nil {
		return nil, c.fail("Put", err)
	}
	return r, nil
}

// Irecv is MPI_Irecv from rank src (or AnySource) with tag (or AnyTag). The receive
// first searches the unexpected queue; if no message there matches, it is posted: a
// match entry inserted before the mark (after the receives posted earlier), with an
// inactive memory descriptor over buf that PtlMDUpdate activates only if the
// unexpected-message event queue is empty and owed nothing. A refusal means messages
// arrived meanwhile: they are taken into the unexpected queue and searched before
// trying again, so a receive never overtakes an unexpected message it matches.
func (c *Comm) Irecv(buf Buf, src, tag int) (*Request, error) {
	c.call()
	return c.irecv(buf, src, tag, ctxP2P)
}

func (c *Comm) irecv(buf Buf, src, tag, ctx int) (*Request, error) {
	if err := c.checkPeer(src, true, tag); err != nil {
		return nil, err
	}
	if err := c.checkBuf(buf); err != nil {
		return nil, err
	}
	r := c.newReq(kindRecv, buf, src, tag)
	c.Stats.Recvs++
	if e := c.searchUx(0, ctx, src, tag); e != nil {
		return r, c.takeUx(r, e)
	}
	bits, ignore := recvBits(ctx, src, tag)
	me, err := c.pr.MEInsert(c.mark, c.id, bits, ignore, ptl.Unlink, ptl.InsBefore)
	if err != nil {
		c.release(r)
		return nil, c.fail("MEInsert", err)
	}
	md := ptl.MD{Start: buf.Addr, Length: uint64(buf.Len), Buf: buf.Data, Threshold: 0,
		Options: ptl.MDOpPut | ptl.MDTruncate | ptl.MDEventStartDisable, EQ: c.mainEQ, UserPtr: r.ptr()}
	if r.md, err = c.pr.MDAttach(me, md, ptl.Unlink); err != nil {
		c.release(r)
		return nil, c.fail("MDAttach", err)
	}
	md.Threshold = 1
	for {
		from := len(c.ux)
		_, err := c.pr.MDUpdate(r.md, &md, c.uxEQ)
		if err == nil {
			return r, nil
		}
		if ptl.Code(err) != ptl.ErrMDNoUpdate {
			return nil, c.fail("MDUpdate", err)
		}
		c.Stats.PostRetries++
		if err := c.drainUx(); err != nil {
			return nil, err
		}
		if e := c.searchUx(from, ctx, src, tag); e != nil {
			if err := c.pr.MEUnlink(me); err != nil {
				return nil, c.fail("MEUnlink", err)
			}
			return r, c.takeUx(r, e)
		}
	}
}

// checkPeer validates a rank and a tag.
func (c *Comm) checkPeer(rank int, recv bool, tag int) error {
	if (rank < 0 || rank >= c.Size()) && !(recv && rank == AnySource) {
		return fmt.Errorf("mpi: rank %d: invalid rank %d (size %d)", c.rank, rank, c.Size())
	}
	if (tag < 0 || tag > TagUB) && !(recv && tag == AnyTag) {
		return fmt.Errorf("mpi: rank %d: invalid tag %d (0..%d)", c.rank, tag, TagUB)
	}
	return nil
}

// searchUx finds, from index from of the unexpected queue on, the first message that
// matches a receive, and removes it from the queue.
func (c *Comm) searchUx(from, ctx, src, tag int) *uxEntry {
	bits, ignore := recvBits(ctx, src, tag)
	for i := from; i < len(c.ux); i++ {
		c.Stats.Searched++
		c.pr.Proc().Compute(c.p.SearchCost)
		e := c.ux[i]
		if (e.bits^bits)&^ignore == 0 {
			copy(c.ux[i:], c.ux[i+1:])
			c.ux[len(c.ux)-1] = nil
			c.ux = c.ux[:len(c.ux)-1]
			return e
		}
	}
	return nil
}

// takeUx receives the unexpected message e into r. A short message is copied out of
// its buffer, at once if its data has arrived, else when it does. A long message is
// fetched with a get from the sender's PtRead entry; the request completes at
// REPLY_END.
func (c *Comm) takeUx(r *Request, e *uxEntry) error {
	c.Stats.Unexpected++
	r.status = Status{Source: srcOf(e.bits), Tag: tagOf(e.bits), Count: min(int64(e.rlength), r.buf.Len)}
	if int64(e.rlength) > r.buf.Len {
		r.status.Err = ErrTruncate
	}
	if e.bits&longBit == 0 {
		if !e.complete {
			r.ux, e.req = e, r
			return nil
		}
		c.copyOut(r, e)
		return nil
	}
	c.Stats.UnexpectedLong++
	n := uint64(r.status.Count)
	md, err := c.pr.MDBind(ptl.MD{Start: r.buf.Addr, Length: n, Buf: r.buf.Slice(0, int64(n)).Data, Threshold: 1,
		Options: ptl.MDEventStartDisable, EQ: c.mainEQ, UserPtr: r.ptr()}, ptl.Unlink)
	if err != nil {
		return c.fail("MDBind", err)
	}
	r.md = md
	from, id := e.from, ptl.MatchBits(e.hdr)
	c.freeEntry(e)
	if err := c.pr.Get(md, from, PtRead, id, 0); err != nil {
		return c.fail("Get", err)
	}
	return nil
}

// copyOut copies a received unexpected short message into the request's buffer and
// frees its place; the buffer is re-posted when Portals has retired it and the last
// of its messages is received.
func (c *Comm) copyOut(r *Request, e *uxEntry) {
	n := r.status.Count
	c.pr.Proc().MemcpyFromNIC(actors.Bytes(n)) // the unexpected buffer: written by the NIC
	if r.buf.Data != nil && e.buf.data != nil {
		copy(r.buf.Data[:n], e.buf.data[e.offset:e.offset+uint64(n)])
	}
	r.ux = nil
	b := e.buf
	c.freeEntry(e)
	c.complete(r)
	b.live--
	if b.unlinked && b.live == 0 {
		c.Stats.BuffersReposted++
		if err := c.post(b); err != nil {
			r.err = err
		}
	}
}

func (c *Comm) newEntry() *uxEntry {
	if n := len(c.freeEntries); n > 0 {
		e := c.freeEntries[n-1]
		c.freeEntries = c.freeEntries[:n-1]
		return e
	}
	return &uxEntry{}
}

func (c *Comm) freeEntry(e *uxEntry) {
	*e = uxEntry{}
	c.freeEntries = append(c.freeEntries, e)
}

// drainUx takes every event of the unexpected-message queue into the unexpected
// queue, waiting for one if none is there (the queue is owed events: messages are
// arriving).
func (c *Comm) drainUx() error {
	got := false
	for {
		ev, err := c.pr.EQGet(c.uxEQ)
		if ptl.Code(err) == ptl.ErrEQEmpty {
			if got {
				return nil
			}
			ev, err = c.pr.EQWait(c.uxEQ)
		}
		if err != nil {
			return c.eqError(err)
		}
		got = true
		if err := c.onUx(ev); err != nil {
			return err
		}
	}
}

// eqError turns an event queue error into the library's.
func (c *Comm) eqError(err error) error {
	if ptl.Code(err) == ptl.ErrEQDropped {
		return fmt.Errorf("mpi: rank %d: %w", c.rank, ErrOverflow)
	}
	return c.fail("EQGet", err)
}

// onUx handles an event of the unexpected-message entries: a new message (PUT_START)
// joins the unexpected queue, in arrival order; its data has arrived at PUT_END; a
// buffer that Portals retired (UNLINK) is re-posted once all its messages are
// received.
func (c *Comm) onUx(ev ptl.Event) error {
	c.Stats.EventsUnexpected++
	switch ev.Type {
	case ptl.EventPutStart:
		e := c.newEntry()
		*e = uxEntry{bits: ev.MatchBits, from: ev.Initiator, rlength: ev.RLength, mlength: ev.MLength, offset: ev.Offset,
			hdr: ev.HdrData, link: ev.Link, arrivedAt: c.pr.Now()}
		if ev.MatchBits&longBit == 0 {
			e.buf = c.bufs[ev.MD.UserPtr-1]
			e.buf.live++
			c.open = append(c.open, e)
		}
		c.ux = append(c.ux, e)
	case ptl.EventPutEnd:
		if ev.MatchBits&longBit != 0 {
			return nil
		}
		for i, e := range c.open {
			if e.link != ev.Link {
				continue
			}
			copy(c.open[i:], c.open[i+1:])
			c.open[len(c.open)-1] = nil
			c.open = c.open[:len(c.open)-1]
			if ev.NIFailType != ptl.NIOK {
				return fmt.Errorf("mpi: rank %d: unexpected message from %s failed", c.rank, ev.Initiator)
			}
			e.complete = true
			if r := e.req; r != nil {
				c.copyOut(r, e)
				return r.err
			}
			return nil
		}
		return fmt.Errorf("mpi: rank %d: PUT_END of unknown unexpected message (link %d)", c.rank, ev.Link)
	case ptl.EventUnlink:
		b := c.bufs[ev.MD.UserPtr-1]
		b.unlinked = true
		if b.live == 0 {
			c.Stats.BuffersReposted++
			return c.post(b)
		}
	}
	return nil
}

// onMain handles an event of the main queue: the end of a send, of a posted receive,
// of the get of an unexpected long message, and the ack and get of a long send.
// UNLINK events of memory descriptors that retired with their request are ignored.
func (c *Comm) onMain(ev ptl.Event) error {
	c.Stats.EventsMain++
	r := c.lookup(ev.MD.UserPtr)
	if r == nil || ev.Type == ptl.EventUnlink {
		return nil
	}
	if ev.NIFailType != ptl.NIOK {
		r.err = fmt.Errorf("mpi: rank %d: %s failed", c.rank, ev.Type)
		c.complete(r)
		return nil
	}
	switch ev.Type {
	case ptl.EventPutEnd: // a posted receive
		r.status = Status{Source: srcOf(ev.MatchBits), Tag: tagOf(ev.MatchBits), Count: int64(ev.MLength)}
		if ev.MLength < ev.RLength {
			r.status.Err = ErrTruncate
			if ev.MatchBits&longBit != 0 {
				return c.release0(r, ev)
			}
		}
		c.complete(r)
	case ptl.EventReplyEnd: // an unexpected long message fetched
		c.complete(r)
	case ptl.EventSendEnd:
		r.sendEnd = true
		if !r.long {
			c.complete(r)
			return nil
		}
		return c.longDone(r)
	case ptl.EventAck:
		r.acked, r.ackFull = true, ev.MLength == ev.RLength
		return c.longDone(r)
	case ptl.EventGetEnd:
		r.fetched = true
		return c.longDone(r)
	}
	return nil
}

// release0 ends the sender's side of a long message that a posted receive truncated:
// a get of zero bytes tells it that no more will be read.
func (c *Comm) release0(r *Request, ev ptl.Event) error {
	md, err := c.pr.MDBind(ptl.MD{Threshold: 1, EQ: ptl.EQNone}, ptl.Unlink)
	if err != nil {
		return c.fail("MDBind", err)
	}
	if err := c.pr.Get(md, ev.Initiator, PtRead, ptl.MatchBits(ev.HdrData), 0); err != nil {
		return c.fail("Get", err)
	}
	c.complete(r)
	return nil
}

// longDone completes a long send once its put has left and been acknowledged, and
// either the ack accepted every byte or the receiver has fetched them.
func (c *Comm) longDone(r *Request) error {
	if !r.sendEnd || !r.acked || !(r.ackFull || r.fetched) {
		return nil
	}
	if err := c.pr.MDUnlink(r.md); err != nil {
		return c.fail("MDUnlink", err)
	}
	c.complete(r)
	return nil
}

// progress takes one event for r: from the unexpected-message queue if r waits for
// the data of an unexpected message, else from the main queue, waiting for it.
func (c *Comm) progress(r *Request) error {
	if r.ux != nil {
		ev, err := c.pr.EQWait(c.uxEQ)
		if err != nil {
			return c.eqError(err)
		}
		return c.onUx(ev)
	}
	ev, err := c.pr.EQWait(c.mainEQ)
	if err != nil {
		return c.eqError(err)
	}
	return c.onMain(ev)
}

// Wait is MPI_Wait: it blocks until r completes, returns its status and recycles it.
// The error is ErrTruncate for a truncated receive (also in the status) or a failure.
func (c *Comm) Wait(r *Request) (Status, error) {
	c.call()
	return c.wait(r)
}

func (c *Comm) wait(r *Request) (Status, error) {
	if r == nil || r.c != c || !r.active {
		return Status{}, fmt.Errorf("mpi: rank %d: Wait on an inactive request", c.rank)
	}
	c.waiting = r
	for !r.done && r.err == nil {
		if err := c.progress(r); err != nil {
			return Status{}, err
		}
	}
	c.waiting = nil
	st, err := r.status, r.err
	c.release(r)
	if err == nil {
		err = st.Err
	}
	return st, err
}

// Waitall is MPI_Waitall: it waits for every request in order and returns their
// statuses; the first error is returned after every request has completed.
func (c *Comm) Waitall(rs []*Request, sts []Status) error {
	c.call()
	var first error
	for i, r := range rs {
		st, err := c.wait(r)
		if sts != nil {
			sts[i] = st
		}
		if err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Send is MPI_Send: Isend and Wait.
func (c *Comm) Send(buf Buf, dst, tag int) error {
	r, err := c.Isend(buf, dst, tag)
	if err != nil {
		return err
	}
	_, err = c.wait(r)
	return err
}

// Recv is MPI_Recv: Irecv and Wait.
func (c *Comm) Recv(buf Buf, src, tag int) (Status, error) {
	r, err := c.Irecv(buf, src, tag)
	if err != nil {
		return Status{}, err
	}
	return c.wait(r)
}

// Sendrecv is MPI_Sendrecv: the receive is posted first, then the send, and both are
// waited for.
func (c *Comm) Sendrecv(sbuf Buf, dst, stag int, rbuf Buf, src, rtag int) (Status, error) {
	c.call()
	return c.sendrecv(sbuf, dst, stag, rbuf, src, rtag, ctxP2P)
}

func (c *Comm) sendrecv(sbuf Buf, dst, stag int, rbuf Buf, src, rtag, ctx int) (Status, error) {
	rr, err := c.irecv(rbuf, src, rtag, ctx)
	if err != nil {
		return Status{}, err
	}
	sr, err := c.isend(sbuf, dst, stag, ctx)
	if err != nil {
		return Status{}, err
	}
	if _, err := c.wait(sr); err != nil {
		return Status{}, err
	}
	return c.wait(rr)
}

package cci

import (
	"fmt"
	"slices"

	"github.com/seastar-sim/seastar/actors"
)

// RMAFlags selects an RMA operation and its ordering.
type RMAFlags uint8

// RMA flags (Dillow & Atchley 2011 s.IV.A).
const (
	RMAWrite RMAFlags = 1 << iota // write local data into the remote region
	RMARead                       // read remote data into the local region
	RMAFence                      // start only once every earlier RMA operation on the connection completed
)

// rmaOp is one cci_rma call: fragments of at most RMAFragment, each acknowledged (a
// write) or answered with the data (a read), then the optional completion message.
type rmaOp struct {
	conn   *Conn
	write  bool
	fence  bool
	local  Handle
	remote Handle
	loff   int64
	roff   int64
	n      int64
	msg    *Payload
	ctx    any
	next   int64 // bytes issued
	done   int64 // bytes answered
	status Status
	begun  bool
}

// RMA is cci_rma on a reliable connection (beyond Dillow & Atchley's prototype, which
// had no RMA): n bytes between local region bytes loff.. and remote region bytes
// roff.., written or read by the NICs without the target's host. With RMAFence it
// starts only when every earlier RMA operation of the connection has completed, and
// later ones wait for it. msg, if not nil, is delivered to the target after the
// transfer completes. EvSend with ctx reports completion.
func (ep *Endpoint) RMA(c *Conn, msg *Payload, local Handle, loff int64, remote Handle, roff, n int64, flags RMAFlags, ctx any) error {
	ep.call(ep.P.LibRMA)
	write, read := flags&RMAWrite != 0, flags&RMARead != 0
	r := ep.mrs[local]
	switch {
	case ep.closed:
		return ErrClosed
	case c == nil || c.ep != ep || write == read:
		return fmt.Errorf("cci: rma on %v with flags %b: %w", c, flags, ErrInvalid)
	case c.state != connOpen:
		return ErrDisconnected
	case !c.Attr.Reliable():
		return fmt.Errorf("cci: rma on an unreliable connection: %w", ErrInvalid)
	case r == nil || n < 1 || loff < 0 || loff+n > r.Len || roff < 0:
		return fmt.Errorf("cci: rma of %dB at %d of local region %s: %w", n, loff, local, ErrInvalid)
	case msg != nil && (msg.Len < 0 || actors.Bytes(msg.Len) > ep.P.MSS):
		return ErrMsgSize
	}
	op := &rmaOp{conn: c, write: write, fence: flags&RMAFence != 0, local: local, remote: remote, loff: loff,
		roff: roff, n: n, msg: msg, ctx: ctx}
	c.rmaQ = append(c.rmaQ, op)
	ep.pump(c)
	return nil
}

// pump issues the fragments of a connection's queued RMA operations in order, as far
// as fences and TX space allow, and the completion messages waiting for space.
func (ep *Endpoint) pump(c *Conn) {
	if c.state != connOpen {
		return
	}
	for len(c.pendMsg) > 0 {
		if !ep.sendCompletion(c.pendMsg[0]) {
			ep.block(c)
			return
		}
		c.pendMsg = c.pendMsg[1:]
	}
	for len(c.rmaQ) > 0 {
		r := c.rmaQ[0]
		if !r.begun {
			if r.fence && c.rmaBusy > 0 {
				return
			}
			r.begun = true
			c.rmaBusy++
		}
		for r.next < r.n {
			if !ep.issueFragment(r) {
				ep.block(c)
				return
			}
		}
		c.rmaQ = c.rmaQ[1:]
	}
}

// block records that c waits for TX space.
func (ep *Endpoint) block(c *Conn) {
	if !slices.Contains(ep.blocked, c) {
		ep.blocked = append(ep.blocked, c)
	}
}

// issueFragment sends the next fragment of r; false if no TX slot is free.
func (ep *Endpoint) issueFragment(r *rmaOp) bool {
	c := r.conn
	kind, t := opRMAWrite, TypeRMAWrite
	if !r.write {
		kind, t = opRMARead, TypeReadReq
	}
	if !ep.s.claim(ep, false, false) {
		return false
	}
	o, err := ep.newOp(kind, c, t, ep.P.RMAHeader)
	if err != nil {
		ep.s.unclaim()
		return false
	}
	n := min(int64(ep.P.RMAFragment), r.n-r.next)
	o.seq = 1<<31 | c.rmaSeq
	c.rmaSeq++
	o.rma, o.n, o.local, o.localOff = r, n, r.local, r.loff+r.next
	c.header(o, o.seq).RMA = &RMAInfo{Remote: r.remote, RemoteOff: r.roff + r.next, Local: r.local, LocalOff: o.localOff, Len: n}
	if mr := ep.mrs[r.local]; r.write && mr != nil && mr.Data != nil {
		// The NIC reads the region when it sends; the bytes are taken now, as the
		// application may not write a region during a transfer from it.
		o.data = append([]byte(nil), mr.Data[o.localOff:o.localOff+n]...)
	}
	r.next += n
	ep.call(ep.P.LibRMA)
	ep.transmit(o)
	return true
}

// onReadDone is an RMA read's data, placed by the NIC into the local region.
func (ep *Endpoint) onReadDone(w *Wire) {
	o := ep.awaiting(w)
	if o == nil {
		return
	}
	if mr := ep.mrs[o.local]; mr != nil && mr.Data != nil && w.Data != nil {
		copy(mr.Data[o.localOff:], w.Data)
	}
	ep.finish(o, OK)
}

// fragmentDone accounts an answered fragment; when every fragment is answered, the
// completion message (if any) follows, then the operation completes.
func (ep *Endpoint) fragmentDone(o *op, st Status) {
	r := o.rma
	r.done += o.n
	if st != OK && r.status == OK {
		r.status = st
	}
	if r.done < r.n || r.next < r.n {
		return
	}
	if r.msg == nil || r.status != OK {
		ep.rmaDone(r, r.status)
		return
	}
	if !ep.sendCompletion(r) {
		r.conn.pendMsg = append(r.conn.pendMsg, r)
		ep.block(r.conn)
	}
}

// sendCompletion sends r's completion message: as it follows the acks of the whole
// transfer, the target receives it after the data is in place.
func (ep *Endpoint) sendCompletion(r *rmaOp) bool {
	if !ep.s.claim(ep, false, false) {
		return false
	}
	o, err := ep.sendOp(r.conn, opRMAMsg, *r.msg, nil)
	if err != nil {
		ep.s.unclaim()
		return false
	}
	o.rma = r
	ep.transmit(o)
	return true
}

// rmaDone completes an RMA operation: EvSend with its context, and the next queued
// operations of the connection may start.
func (ep *Endpoint) rmaDone(r *rmaOp, st Status) {
	c := r.conn
	ev := ep.newEvent(EvSend)
	ev.Status, ev.Conn, ev.Context = st, c, r.ctx
	ep.deliver(ev)
	if r.begun {
		r.begun = false
		c.rmaBusy--
	}
	if c.state == connOpen {
		ep.pump(c)
	}
}

// regionHandles returns the endpoint's region handles in table order.
func (ep *Endpoint) regionHandles() []Handle {
	var hs []Handle
	for h := range ep.mrs { //lint:ordered collected, then sorted
		hs = append(hs, h)
	}
	slices.SortFunc(hs, func(a, b Handle) int { return int(a.Index) - int(b.Index) })
	return hs
}

package ib

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/ht"
)

// Ports of an HCA.
const (
	PortHost actors.Port = iota // PCIe: doorbells and MMIO reads in; completions, data and read answers out
	PortNet                     // to its leaf switch
)

// Op is a work request's operation.
type Op uint8

// Operations.
const (
	Send    Op = iota // a send, consumed by a receive buffer of the peer's shared receive queue
	Write             // RDMA write into the peer's memory
	Read              // RDMA read from the peer's memory
	Connect           // connection setup with the peer (rdma_cm exchange, answered by the peer's HCA)
)

var opNames = [...]string{"send", "rdma-write", "rdma-read", "connect"}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("op%d", uint8(o))
}

// PostSend is a send-queue work request, written to the HCA's doorbell page.
type PostSend struct {
	PID      uint32
	WRID     uint64
	Op       Op
	Dst      int    // node
	DstPID   uint32 // process there
	Bytes    int64  // payload length (send, write) or length read (read)
	Inline   bool   // the payload is in the work request: no DMA read
	Signaled bool   // a completion when done
	Payload  any    // the upper layer's message, carried to the peer's completion
	actors.PoolMark
}

// NewPostSend returns w recycled, which the HCA releases once it has read it (a
// *PostSend made otherwise also works, and is left to the garbage collector).
func NewPostSend(w PostSend) *PostSend { return postSends.New(w) }

func (w *PostSend) String() string {
	return fmt.Sprintf("ib.PostSend(%s #%d -> node%d %dB)", w.Op, w.WRID, w.Dst, w.Bytes)
}

// PostRecv adds N receive buffers to the shared receive queue of process PID.
type PostRecv struct {
	PID uint32
	N   int
	actors.PoolMark
}

// NewPostRecv returns r recycled, which the HCA releases once it has read it (a
// *PostRecv made otherwise also works, and is left to the garbage collector).
func NewPostRecv(r PostRecv) *PostRecv { return postRecvs.New(r) }

func (r *PostRecv) String() string { return fmt.Sprintf("ib.PostRecv(pid%d %d)", r.PID, r.N) }

// BarrierCall enters the job's barrier (the job launcher's, carried by the HCAs); the
// release lands at Result.
type BarrierCall struct{ Result uint64 }

func (c *BarrierCall) String() string { return "ib.BarrierCall" }

// Released is what a barrier release writes at the caller's Result address.
type Released struct{ Addr uint64 }

func (r *Released) String() string  { return fmt.Sprintf("ib.Released(%#x)", r.Addr) }
func (r *Released) Address() uint64 { return r.Addr }

// CQE is a completion the HCA writes into a process's completion queue in host memory.
type CQE struct {
	Addr    uint64
	Seq     uint64
	Op      Op
	Recv    bool // a receive: Payload is the sender's
	WRID    uint64
	Bytes   int64
	Src     int // the sender's node, for a receive
	Payload any
	actors.PoolMark
}

// Release recycles c; the host calls it once it has read the completion and must not
// use c afterwards.
func (c *CQE) Release() { cqes.Release(c) }

func (c *CQE) String() string {
	if c.Recv {
		return fmt.Sprintf("ib.CQE(#%d recv %dB from node%d)", c.Seq, c.Bytes, c.Src)
	}
	return fmt.Sprintf("ib.CQE(#%d %s #%d done)", c.Seq, c.Op, c.WRID)
}

// Address implements host.Addressed.
func (c *CQE) Address() uint64 { return c.Addr }

// CQAddr is the host address of completion seq (from 1) of process pid.
func CQAddr(pid uint32, seq uint64) uint64 { return 0xA000<<32 | uint64(pid&0xff)<<32 | seq&0xffffffff }

// frameKind is what a frame on the fabric is.
type frameKind uint8

const (
	fSend frameKind = iota
	fWrite
	fReadReq
	fReadResp
	fAck
	fRNR
	fCMReq
	fCMRep
	fBarrier
	fRelease
)

var frameNames = [...]string{"send", "rdma-write", "read-request", "read-response", "ack", "rnr-nak", "cm-req", "cm-rep",
	"barrier", "release"}

// Frame is a message on the fabric.
type Frame struct {
	kind     frameKind
	Src, Dst int
	SrcPID   uint32
	DstPID   uint32
	Bytes    int64 // payload bytes carried
	Len      int64 // length a read request asks for
	WRID     uint64
	Signaled bool
	Op       Op
	Payload  any
	Orig     *Frame // an RNR NAK: the send to retry
	Epoch    uint64
	ID       uint64
	// Span is the time from the frame's head to its tail on a link: its wire time, or
	// longer when the sender's DMA fed it more slowly than the link runs.
	Span actors.Duration
	actors.PoolMark
}

// Work requests, completions and frames are recycled: a work request by the HCA once
// it has read it, a completion by the host, a frame by the HCA it was sent to once it
// has handled it (a send refused for want of a receive buffer travels back in the
// RNR NAK and is sent again: its receiver releases it when it takes it). Frames
// decoded from another process are left to the garbage collector.
var (
	postSends actors.Pool[PostSend, *PostSend]
	postRecvs actors.Pool[PostRecv, *PostRecv]
	cqes      actors.Pool[CQE, *CQE]
	frames    actors.Pool[Frame, *Frame]
)

func (f *Frame) String() string {
	return fmt.Sprintf("ib.Frame(%s node%d->node%d #%d %dB)", frameNames[f.kind], f.Src, f.Dst, f.ID, f.Bytes)
}

// TraceID implements actors.Traced: every frame is a trace of its own, named by its
// id (unique per HCA and node).
func (f *Frame) TraceID() uint64 { return f.ID }

// WireBytes is what the frame puts on a link besides packet headers.
func (f *Frame) WireBytes() int64 {
	const control = 16 // RETH / AETH / immediate: addresses, keys, lengths
	return f.Bytes + control
}

// HCA is the host channel adapter of one node.
type HCA struct {
	p      Params
	node   int
	size   int // nodes of the job (barrier)
	sqFree actors.Time
	rxFree actors.Time
	rdFree actors.Time // PCIe read channel
	wrFree actors.Time // PCIe write channel
	link   actors.Time // injection link
	srq    map[uint32]int
	cq     map[uint32]uint64
	nextID uint64

	epoch   uint64
	arrived map[uint64]int
	waiting map[uint64][]uint64

	Stats HCAStats
}

// HCAStats counts an HCA's work.
type HCAStats struct {
	Sends, Receives, RNR, Reads, Writes, CQEs int64
	DMARead, DMAWritten                       int64 // bytes over PCIe
}

// retry re-sends a frame after an RNR NAK.
type retry struct{ f *Frame }

func (r retry) String() string { return "ib.retry(" + r.f.String() + ")" }

// NewHCA returns the HCA of node in a job of size nodes. p must be valid.
func NewHCA(p Params, node, size int) *HCA {
	return &HCA{p: p, node: node, size: size, srq: map[uint32]int{}, cq: map[uint32]uint64{},
		arrived: map[uint64]int{}, waiting: map[uint64][]uint64{}}
}

// Ports implements actors.Ported.
func (h *HCA) Ports() []string { return []string{"pcie", "net"} }

// SRQ returns the receive buffers posted for pid.
func (h *HCA) SRQ(pid uint32) int { return h.srq[pid] }

// Receive implements actors.Actor.
func (h *HCA) Receive(ctx actors.Context, m actors.Msg) {
	switch m := m.(type) {
	case *ht.Write:
		h.onDoorbell(ctx, m.Payload)
		m.Release()
	case ht.Read: // an MMIO read of an HCA register
		ctx.Send(PortHost, ht.ReadDone{Bytes: m.Bytes, Tag: m.Tag}, 0)
	case *Frame:
		if !h.onFrame(ctx, m) {
			frames.Release(m)
		}
	case retry:
		h.inject(ctx, ctx.Now(), m.f)
	default:
		ctx.Fatalf("ib: HCA got %T (%s)", m, m)
	}
}

func (h *HCA) onDoorbell(ctx actors.Context, m actors.Msg) {
	now := ctx.Now()
	switch w := m.(type) {
	case *PostRecv:
		h.srq[w.PID] += w.N
		postRecvs.Release(w)
	case *BarrierCall:
		h.epoch++
		h.waiting[h.epoch] = append(h.waiting[h.epoch], w.Result)
		h.inject(ctx, now, frames.New(Frame{kind: fBarrier, Src: h.node, Dst: 0, Epoch: h.epoch, ID: h.id()}))
	case *PostSend:
		start := max(now, h.sqFree).Add(h.p.WQE)
		ready, last := start, start
		if !w.Inline && (w.Op == Send || w.Op == Write) && w.Bytes > 0 {
			ready, last = h.dmaRead(start, w.Bytes)
		}
		h.sqFree = ready
		f := frames.New(Frame{Src: h.node, Dst: w.Dst, SrcPID: w.PID, DstPID: w.DstPID, WRID: w.WRID, Signaled: w.Signaled, Op: w.Op,
			Payload: w.Payload, ID: h.id()})
		switch w.Op {
		case Send:
			f.kind, f.Bytes = fSend, w.Bytes
			h.Stats.Sends++
		case Write:
			f.kind, f.Bytes = fWrite, w.Bytes
			h.Stats.Writes++
		case Read:
			f.kind, f.Len = fReadReq, w.Bytes
			h.Stats.Reads++
		case Connect:
			f.kind = fCMReq
		default:
			ctx.Fatalf("ib: unknown work request op %d", w.Op)
			return
		}
		h.injectFed(ctx, ready, last, f)
		if t := actors.TracerOf(ctx); t != nil && t.Sampled(f.ID) {
			t.Span(actors.Span{Trace: f.ID, Name: "ib/" + frameNames[f.kind], Actor: ctx.Self(), Start: now, End: ready, Root: true,
				Attrs: []actors.Attr{actors.IntAttr("src.node", int64(f.Src)), actors.IntAttr("dst.node", int64(f.Dst)),
					actors.IntAttr("size_bytes", f.Bytes), actors.StrAttr("ib.op", w.Op.String()), actors.IntAttr("ib.inline_bytes", inlineBytes(w))}})
			t.Span(actors.Span{Trace: f.ID, Name: "hca/send", Actor: ctx.Self(), Start: now, End: ready})
		}
		postSends.Release(w)
	default:
		ctx.Fatalf("ib: HCA doorbell carries %T", m)
	}
}

func (h *HCA) id() uint64 {
	h.nextID++
	return uint64(h.node)<<40 | h.nextID
}

// dmaRead fetches n bytes of host memory from time t: a PCIe round trip, then the
// data at the PCIe rate, reads pipelined on the read channel. It returns when the
// first packet's worth and when the last byte are in the HCA: the HCA sends packets as
// they come (message-level cut-through).
func (h *HCA) dmaRead(t actors.Time, n int64) (first, last actors.Time) {
	s := max(t, h.rdFree)
	xfer := h.p.PCIeBandwidth.TransferTime(actors.Bytes(n))
	h.rdFree = s.Add(xfer)
	h.Stats.DMARead += n
	base := s.Add(2 * h.p.PCIeLatency)
	return base.Add(h.p.PCIeBandwidth.TransferTime(actors.Bytes(min(n, int64(h.p.MTU))))), base.Add(xfer)
}

// dmaWrite writes n bytes to host memory, starting at t, whose last byte arrived at
// tail; it returns when the last byte has left on the write channel (it lands a PCIe
// latency later, as everything the HCA sends to the host). Packets are written as
// they arrive, so the write ends no sooner than a packet's write after the tail.
func (h *HCA) dmaWrite(t, tail actors.Time, n int64) actors.Time {
	s := max(t, h.wrFree)
	end := max(s.Add(h.p.PCIeBandwidth.TransferTime(actors.Bytes(n))),
		tail.Add(h.p.PCIeBandwidth.TransferTime(actors.Bytes(min(n, int64(h.p.MTU))))))
	h.wrFree = end
	h.Stats.DMAWritten += n
	return end
}

// inject puts f, all of it in the HCA, on the injection link at time t or when the
// link is free.
func (h *HCA) inject(ctx actors.Context, t actors.Time, f *Frame) { h.injectFed(ctx, t, t, f) }

// injectFed puts f on the injection link from when its first packet is in the HCA
// (first) or the link is free; its last byte is in the HCA at last, so its tail
// leaves no sooner than a packet's wire time after that.
func (h *HCA) injectFed(ctx actors.Context, first, last actors.Time, f *Frame) {
	s := max(first, h.link)
	w := h.p.wire(f.WireBytes())
	end := max(s.Add(w), last.Add(h.p.wire(min(f.WireBytes(), int64(h.p.MTU)))))
	f.Span = end.Sub(s)
	h.link = end
	ctx.Send(PortNet, f, s.Sub(ctx.Now()))
}

// complete writes completion c for pid at time t.
func (h *HCA) complete(ctx actors.Context, t actors.Time, pid uint32, c CQE) {
	h.cq[pid]++
	c.Seq = h.cq[pid]
	c.Addr = CQAddr(pid, c.Seq)
	done := h.dmaWrite(t, t, int64(h.p.CQEBytes))
	h.Stats.CQEs++
	ctx.Send(PortHost, cqes.New(c), done.Sub(ctx.Now()))
}

// onFrame handles a frame whose head just arrived: its tail arrives a wire time later,
// and the receive pipeline takes it then. It reports whether it kept f (a send it
// refused, which travels back in the RNR NAK).
func (h *HCA) onFrame(ctx actors.Context, f *Frame) (kept bool) {
	head := ctx.Now()
	tail := head.Add(f.Span)
	// The receive pipeline takes the message's header from its first packet; its
	// payload goes to host memory as the packets come.
	first := head.Add(h.p.wire(min(f.WireBytes(), int64(h.p.MTU))))
	at := max(first, h.rxFree).Add(h.p.Recv)
	h.rxFree = at
	end := max(at, tail) // the whole message is in
	if t := actors.TracerOf(ctx); t != nil && t.Sampled(f.ID) {
		t.Span(actors.Span{Trace: f.ID, Name: "hca/recv", Actor: ctx.Self(), Start: head, End: end,
			Attrs: []actors.Attr{actors.StrAttr("ib.frame", frameNames[f.kind])}})
	}
	back := func(k frameKind, t actors.Time, bytes int64) *Frame {
		r := frames.New(Frame{kind: k, Src: h.node, Dst: f.Src, SrcPID: f.DstPID, DstPID: f.SrcPID, WRID: f.WRID, Signaled: f.Signaled,
			Op: f.Op, Bytes: bytes, ID: h.id()})
		h.inject(ctx, t, r)
		return r
	}
	switch f.kind {
	case fSend:
		if h.srq[f.DstPID] == 0 {
			h.Stats.RNR++
			r := back(fRNR, at, 0)
			r.Orig = f
			return true
		}
		h.srq[f.DstPID]--
		h.Stats.Receives++
		done := h.dmaWrite(at, tail, f.Bytes)
		h.complete(ctx, done, f.DstPID, CQE{Recv: true, Op: Send, Bytes: f.Bytes, Src: f.Src, Payload: f.Payload})
		back(fAck, end, 0)
	case fWrite:
		h.dmaWrite(at, tail, f.Bytes)
		back(fAck, end, 0)
	case fReadReq:
		first, last := h.dmaRead(at, f.Len)
		r := frames.New(Frame{kind: fReadResp, Src: h.node, Dst: f.Src, SrcPID: f.DstPID, DstPID: f.SrcPID, WRID: f.WRID,
			Signaled: f.Signaled, Op: f.Op, Bytes: f.Len, ID: h.id()})
		h.injectFed(ctx, first, last, r)
	case fReadResp:
		done := h.dmaWrite(at, tail, f.Bytes)
		h.complete(ctx, done, f.DstPID, CQE{Op: Read, WRID: f.WRID, Bytes: f.Bytes})
	case fAck:
		if f.Signaled {
			h.complete(ctx, at, f.DstPID, CQE{Op: f.Op, WRID: f.WRID})
		}
	case fRNR:
		ctx.SendSelf(retry{f.Orig}, at.Add(h.p.RNRDelay).Sub(ctx.Now()))
	case fCMReq:
		back(fCMRep, at, 0)
	case fCMRep:
		h.complete(ctx, at, f.DstPID, CQE{Op: Connect, WRID: f.WRID})
	case fBarrier:
		if h.arrived[f.Epoch]++; h.arrived[f.Epoch] == h.size {
			delete(h.arrived, f.Epoch)
			for n := range h.size {
				h.inject(ctx, at, frames.New(Frame{kind: fRelease, Src: h.node, Dst: n, Epoch: f.Epoch, ID: h.id()}))
			}
		}
	case fRelease:
		for _, addr := range h.waiting[f.Epoch] {
			ctx.Send(PortHost, &Released{Addr: addr}, at.Sub(ctx.Now()))
		}
		delete(h.waiting, f.Epoch)
	}
	return false
}

func inlineBytes(w *PostSend) int64 {
	if w.Inline {
		return w.Bytes
	}
	return 0
}

// Destination implements fattree.Frame.
func (f *Frame) Destination() int { return f.Dst }

// WireSpan implements fattree.Frame.
func (f *Frame) WireSpan() actors.Duration { return f.Span }

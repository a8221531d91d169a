package portals4

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/host"
	"github.com/seastar-sim/seastar/ht"
	"github.com/seastar-sim/seastar/ib"
	"github.com/seastar-sim/seastar/machine"
	"github.com/seastar-sim/seastar/protocols/portals4/ptl4"
)

// Portals 4 over InfiniBand (machine = ib; papers/002 s.6): the Portals semantics run
// on the host (as onload), driven by one progress thread per process on an event loop
// over its completion queue; the transport is the SRP-like protocol of the paper on
// reliable-connected queue pairs with a shared receive queue:
//   - a connection per process pair, set up on first use (rdma_cm exchange);
//   - a request carries its payload as immediate data up to ib.inline_max, by DMA of
//     the send up to portals4.ib_sge_max, and beyond that only the header: the target
//     reads the payload with an RDMA read before it matches;
//   - the target performs all RDMA (a get's or fetch's data are RDMA-written into the
//     initiator's buffer) and then sends the reply or ack.

// ibMsg is what a send carries: a Portals message, and whether its payload stays at
// the initiator for the target to read.
type ibMsg struct {
	m        *ptl4.Msg
	indirect bool // a request whose payload the target reads
	rdma     bool // a response whose data the target wrote into the initiator's buffer
	actors.PoolMark
}

// ibMsgs recycles what sends carry: the receiving host releases one once it has read
// its completion (a decoded one is left to the garbage collector).
var ibMsgs actors.Pool[ibMsg, *ibMsg]

// TraceID implements actors.Traced.
func (x *ibMsg) TraceID() uint64 { return x.m.ReqID }

// ibProc is the transport state of one process.
type ibProc struct {
	p       Params
	ip      ib.Params
	o       *onloadProc
	node    int
	wrid    uint64
	sends   map[uint64]*ptl4.Msg // signaled request sends, by work request
	reads   map[uint64]*ptl4.Msg // RDMA reads of indirect payloads, by work request
	conns   map[int]int          // peer node: 0 none, 1 connecting, 2 connected
	waiting map[int][]*ptl4.Msg  // messages for a peer while its connection is set up
	dials   map[uint64]int       // connect work requests, by id: the peer
	used    int                  // receive buffers consumed since the last repost
	next    uint64               // next completion to read
}

func (t *ibProc) post(h hostSide, w ib.PostSend) {
	t.wrid++
	w.WRID, w.PID = t.wrid, t.o.pid
	inline := actors.Bytes(0)
	if w.Inline {
		inline = actors.Bytes(w.Bytes)
	}
	h.MMIOWrite(ht.PPC, t.ip.WQEBytes+inline, ib.NewPostSend(w))
}

// send is the transport of a message the library built.
func (t *ibProc) send(h hostSide, m *ptl4.Msg) {
	peer := int(m.Dst.NID)
	switch t.conns[peer] {
	case 0:
		t.conns[peer] = 1
		h.Compute(t.ip.Connect)
		t.post(h, ib.PostSend{Op: ib.Connect, Dst: peer, DstPID: m.Dst.PID, Signaled: true})
		t.dials[t.wrid] = peer
		fallthrough
	case 1:
		t.waiting[peer] = append(t.waiting[peer], m)
		return
	}
	hdr := int64(t.p.HeaderBytes)
	payload := int64(len(m.Data) + len(m.Operand))
	w := ib.PostSend{Op: ib.Send, Dst: peer, DstPID: m.Dst.PID}
	if m.Op.Response() {
		x := ibMsgs.New(ibMsg{m: m})
		if hdr+payload > int64(t.ip.InlineMax) { // the target writes the data, then replies
			t.post(h, ib.PostSend{Op: ib.Write, Dst: peer, DstPID: m.Dst.PID, Bytes: payload})
			payload, x.rdma = 0, true
		}
		w.Bytes, w.Inline, w.Payload = hdr+payload, true, x
		t.post(h, w)
		return
	}
	w.Signaled = true
	switch {
	case hdr+payload <= int64(t.ip.InlineMax):
		w.Bytes, w.Inline, w.Payload = hdr+payload, true, ibMsgs.New(ibMsg{m: m})
	case payload <= int64(t.p.IBSGEMax):
		h.Memcpy(actors.Bytes(hdr)) // the header beside the payload's scatter-gather entry
		w.Bytes, w.Payload = hdr+payload, ibMsgs.New(ibMsg{m: m})
	default:
		w.Bytes, w.Inline, w.Payload = hdr, true, ibMsgs.New(ibMsg{m: m, indirect: true})
	}
	t.post(h, w)
	t.sends[t.wrid] = m
}

// progress is the program of the process's progress thread: an event loop on its
// completion queue.
func (t *ibProc) progress(p Params) host.Program {
	return func(hp *host.Proc) {
		for {
			t.next++
			addr := ib.CQAddr(t.o.pid, t.next)
			c := hp.WaitFor(addr).(*ib.CQE)
			hp.Forget(addr)
			hp.Compute(p.OnloadRecord)
			t.completion(hp, p, c)
			c.Release()
		}
	}
}

func (t *ibProc) completion(hp *host.Proc, p Params, c *ib.CQE) {
	o := t.o
	w0 := o.lib.Work
	switch {
	case c.Recv:
		t.used++
		if t.used >= t.ip.SRQDepth/4 { // repost receive buffers in batches
			hp.MMIOWrite(ht.PPC, t.ip.WQEBytes, ib.NewPostRecv(ib.PostRecv{PID: o.pid, N: t.used}))
			t.used = 0
		}
		x := c.Payload.(*ibMsg)
		m, rdma, indirect := x.m, x.rdma, x.indirect
		ibMsgs.Release(x)
		switch {
		case m.Op.Response():
			o.lib.Complete(m)
			if !rdma {
				hp.MemcpyFromNIC(actors.Bytes(len(m.Data))) // inline reply data, out of the receive buffer
			}
			ptl4.DropMsg(m)
		case indirect: // read the payload from the initiator first
			t.post(hp, ib.PostSend{Op: ib.Read, Dst: c.Src, DstPID: m.Src.PID, Bytes: int64(len(m.Data) + len(m.Operand)), Signaled: true})
			t.reads[t.wrid] = m
		default:
			t.deliver(hp, p, m, true)
		}
	case c.Op == ib.Read:
		m := t.reads[c.WRID]
		delete(t.reads, c.WRID)
		t.deliver(hp, p, m, false)
	case c.Op == ib.Connect:
		peer := t.dials[c.WRID]
		delete(t.dials, c.WRID)
		t.conns[peer] = 2
		queued := t.waiting[peer]
		delete(t.waiting, peer)
		for _, m := range queued {
			t.send(hp, m)
		}
	case c.Op == ib.Send:
		m := t.sends[c.WRID]
		delete(t.sends, c.WRID)
		if m != nil {
			o.lib.Sent(m)
			ptl4.DropMsg(m)
		}
	}
	o.finish(hp, p, w0)
}

// deliver matches and delivers request m. copy says its payload is in a receive
// buffer and is copied into the matched one; an indirect payload was read straight
// into it (the target matched the header when it arrived; the model runs the match,
// and charges it once, when the read has completed).
func (t *ibProc) deliver(hp *host.Proc, p Params, m *ptl4.Msg, copy bool) {
	hp.Compute(p.OnloadMatch)
	if r := t.o.lib.Deliver(m); r != nil {
		t.o.lib.Outbox = append(t.o.lib.Outbox, r)
	}
	if copy {
		hp.MemcpyFromNIC(actors.Bytes(len(m.Data))) // out of the receive buffer the HCA wrote
	}
	ptl4.DropMsg(m)
}

// newIBJob builds an InfiniBand cluster (machine = ib) with a Portals 4 process per
// node: host, HCA on PCIe, the fat tree.
//
// With portals4.nic=ib on a SeaStar preset the cluster's hosts are those of the ib
// preset (the SeaStar preset's hosts belong to its machine); with machine=ib, host.*
// apply. The node count is the torus's.
func newIBJob(mp machine.Params, p Params) (*Job, error) {
	topo, err := mp.Topology()
	if err != nil {
		return nil, err
	}
	if err := p.Fits(mp); err != nil {
		return nil, err
	}
	if mp.Machine != "ib" {
		ibp, _ := machine.Preset("ib")
		mp.Host = ibp.Host
	}
	if err := mp.IB.Validate(); err != nil {
		return nil, fmt.Errorf("ib.%w", err)
	}
	if mp.Host.Cores < 2 {
		return nil, fmt.Errorf("machine=ib runs a progress thread per process on a core of its own: host.cores must be >= 2 (got %d)", mp.Host.Cores)
	}
	if p.IBSGEMax < int(mp.IB.InlineMax) {
		return nil, fmt.Errorf("portals4.ib_sge_max (%d) must be >= ib.inline_max (%s)", p.IBSGEMax, mp.IB.InlineMax)
	}
	size := topo.Nodes()
	j := &Job{g: actors.NewGraph(), M: &machine.Machine{Params: mp}}
	at, err := ib.BuildFabric(j.g, mp.IB, size)
	if err != nil {
		return nil, err
	}
	for rank := range size {
		name := fmt.Sprintf("node[%d]", rank)
		cpu := host.New(mp.Host)
		hr := j.g.Add(name+".host", cpu)
		hca := ib.NewHCA(mp.IB, rank, size)
		cr := j.g.Add(name+".hca", hca)
		j.g.Connect(hr.Port("bus"), cr.Port("pcie"), mp.IB.PCIeLatency)
		j.g.Connect(cr.Port("net"), at[rank], mp.IB.CableLatency)
		j.M.Nodes = append(j.M.Nodes, &machine.Node{Name: name, Host: cpu})
		r := &Rank{p: p, rank: rank, size: size, pid: uint32(p.PID), space: &ptl4.Space{}, sh: newShadow()}
		r.barrier = func(addr uint64) actors.Msg { return &ib.BarrierCall{Result: addr} }
		lib := ptl4.New(r.space, uint32(rank), uint32(p.PID), TestUID)
		o := &onloadProc{lib: lib, pid: r.pid, cpu: cpu}
		t := &ibProc{p: p, ip: mp.IB, o: o, node: rank, sends: map[uint64]*ptl4.Msg{}, reads: map[uint64]*ptl4.Msg{},
			conns: map[int]int{}, waiting: map[int][]*ptl4.Msg{}, dials: map[uint64]int{}}
		o.tx = t.send
		if _, err := cpu.Spawn(name+".progress", 1, func(hp *host.Proc) {
			hp.MMIOWrite(ht.PPC, mp.IB.WQEBytes, ib.NewPostRecv(ib.PostRecv{PID: o.pid, N: mp.IB.SRQDepth}))
			t.progress(p)(hp)
		}); err != nil {
			return nil, err
		}
		r.newAPI = func(hp *host.Proc) API { return o.newLib(r, hp) }
		j.Ranks = append(j.Ranks, r)
		j.g.Colocate(name+".host", name+".hca")
	}
	return j, nil
}

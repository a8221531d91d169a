package cci

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/host"
	"github.com/seastar-sim/seastar/ht"
	"github.com/seastar-sim/seastar/router"
)

// Stack is CCI on one node's host: the kernel driver (endpoints with their nonces,
// header tables, memory region registration) and the NIC command queue that the
// node's processes share through the host-side control page (Dillow & Atchley 2011
// s.IV.B).
type Stack struct {
	p    Params
	node router.NodeID
	cpu  *host.CPU
	eps  []*Endpoint // by endpoint id; nil if free

	produced uint64 // commands written into the queue
	seen     uint64 // the NIC's consumer index as last read from the control page

	mrs []*Region // by table slot

	Stats StackStats
}

// StackStats counts the kernel driver's and the command queue's activity.
type StackStats struct {
	Commands    int64 // user commands written
	CmdWaits    int64 // times a process found the command queue full
	KernelCalls int64
}

// NewStack installs CCI on a host. CCI needs no interrupt handler.
func NewStack(p Params, node router.NodeID, cpu *host.CPU) *Stack {
	return &Stack{p: p, node: node, cpu: cpu, eps: make([]*Endpoint, p.Endpoints), mrs: make([]*Region, p.MRs)}
}

// Node is the node the stack runs on.
func (s *Stack) Node() router.NodeID { return s.node }

// Endpoint returns the open endpoint with id i, or nil.
func (s *Stack) Endpoint(i int) *Endpoint {
	if i < 0 || i >= len(s.eps) {
		return nil
	}
	return s.eps[i]
}

// Process is a process using CCI: the library's per-process state.
type Process struct {
	s *Stack
	p *host.Proc
}

// Spawn starts a process on core of the host and runs prog in it.
func (s *Stack) Spawn(name string, core int, prog func(*Process)) error {
	pr := &Process{s: s}
	_, err := s.cpu.Spawn(name, core, func(hp *host.Proc) {
		pr.p = hp
		prog(pr)
	})
	return err
}

// Proc is the host process.
func (pr *Process) Proc() *host.Proc { return pr.p }

// Stack is the node's CCI.
func (pr *Process) Stack() *Stack { return pr.s }

// Now is the process's clock.
func (pr *Process) Now() actors.Time { return pr.p.Now() }

// cycles is n cycles of the host clock.
func (s *Stack) cycles(n int) actors.Duration { return s.cpu.Params().Clock.Cycles(int64(n)) }

// kernel enters the driver and does work there.
func (s *Stack) kernel(p *host.Proc, work actors.Duration) {
	s.Stats.KernelCalls++
	p.Compute(s.p.KernelCall + work)
	p.Sync()
}

// kernelCmd writes a command into the kernel's mailbox on the NIC.
func (s *Stack) kernelCmd(p *host.Proc, c *Command) {
	p.MMIOWrite(ht.PPC, s.p.CmdBytes, c)
}

// Open is cci_create_endpoint: the kernel picks a free endpoint id and a fresh 64-bit
// nonce, maps the endpoint's TX and RX areas, completion queue and the command queue,
// and tells the NIC where they are.
func (pr *Process) Open() (*Endpoint, error) {
	s := pr.s
	s.kernel(pr.p, 0)
	id := -1
	for i, e := range s.eps {
		if e == nil {
			id = i
			break
		}
	}
	if id < 0 {
		return nil, fmt.Errorf("cci: node %d has no free endpoint (%d open): %w", s.node, len(s.eps), ErrNoBuffers)
	}
	ep := newEndpoint(pr, id, pr.p.Rand().Uint64()|1)
	s.eps[id] = ep
	areas := make([]int, s.p.RxAreas)
	for i := range areas {
		areas[i] = i
	}
	s.kernelCmd(pr.p, &Command{Kind: CmdOpen, EP: id, Areas: areas})
	return ep, nil
}

// claim takes a command queue credit for endpoint ep: an atomic update of the shared
// control page. The last free entry is kept for commands that only return completion
// queue credits (credit), which would otherwise be stuck behind a transmit the NIC
// holds for want of them. When the queue is full, a waiting claim (wait) keeps the
// endpoint progressing while it polls the consumer index the NIC writes in the page:
// it takes in the completion entries that have arrived, so that their credits go back
// to the NIC; it gives up (false) when the application holds every event, so that
// nothing can move. A claim that does not wait gives up at once.
func (s *Stack) claim(ep *Endpoint, credit, wait bool) bool {
	p := ep.p
	p.Compute(s.cycles(s.p.LibAtomic))
	limit := uint64(s.p.CmdSlots)
	if !credit && limit > 1 {
		limit--
	}
	for s.produced-s.seen >= limit {
		if m, ok := p.Peek(ctrlAddr); ok && m.(*CmdIndex).Consumed > s.seen {
			s.seen = m.(*CmdIndex).Consumed
			continue
		}
		s.Stats.CmdWaits++
		switch {
		case !wait:
			return false
		case ep.absorb():
			continue
		case !ep.canTake():
			return false
		}
		p.Forget(ctrlAddr)
		if m, ok := p.WaitUntil(ctrlAddr, p.Now().Add(4*s.cpu.Params().CacheMiss)); ok {
			s.seen = max(s.seen, m.(*CmdIndex).Consumed)
		}
	}
	s.produced++
	s.Stats.Commands++
	return true
}

// unclaim gives back a credit claimed for a command that was not written.
func (s *Stack) unclaim() { s.produced-- }

// setRow has the kernel build (types != 0) or clear a header-table row of endpoint ep:
// the words for each message type, destination endpoint and length that the NIC DMAs
// in front of every message, in kernel memory the application cannot write (Dillow &
// Atchley 2011 s.IV.B). The NIC is told which rows are valid.
func (s *Stack) setRow(p *host.Proc, ep, row int, dstEP uint16, types uint16) {
	s.kernel(p, 0)
	s.kernelCmd(p, &Command{Kind: CmdRow, EP: ep, Row: row, RowEP: dstEP, RowTypes: types})
}

// rowTypes is the set of types the kernel builds words for in a connection's row.
func rowTypes(a Attr) uint16 {
	t := uint16(1)<<TypeConnReq | uint16(1)<<TypeConnReply
	if a.Reliable() {
		return t | 1<<TypeMsgRel | 1<<TypeRMAWrite | 1<<TypeReadReq
	}
	return t | 1<<TypeMsg
}

// Register is cci_rma_register: the kernel pins the pages of a region of n bytes of
// the endpoint's memory and enters it in the NIC's region table under a handle with a
// random key. data, if not nil, holds the region's bytes (len(data) == n).
func (ep *Endpoint) Register(n int64, data []byte, acc Access) (Handle, error) {
	s := ep.s
	if ep.closed {
		return Handle{}, ErrClosed
	}
	if n < 1 || (data != nil && int64(len(data)) != n) {
		return Handle{}, fmt.Errorf("cci: register %dB with %d bytes of data: %w", n, len(data), ErrInvalid)
	}
	pages := (n + int64(s.p.PageBytes) - 1) / int64(s.p.PageBytes)
	if fail := ep.p.CPU().Params().PinFailRate; fail != (actors.Prob{}) { // fault injection
		for pg := range pages {
			if fail.Sample(ep.p.Rand().Uint64()) {
				s.kernel(ep.p, s.p.PinPage*actors.Duration(pg+1)) // the pages pinned so far, then undone
				ep.Stats.PinFailures++
				return Handle{}, fmt.Errorf("cci: register %dB: page %d of %d could not be pinned: %w", n, pg, pages, ErrNoMem)
			}
		}
	}
	s.kernel(ep.p, s.p.PinPage*actors.Duration(pages))
	idx := -1
	for i, r := range s.mrs {
		if r == nil {
			idx = i
			break
		}
	}
	if idx < 0 {
		return Handle{}, fmt.Errorf("cci: node %d region table full (%d): %w", s.node, len(s.mrs), ErrNoBuffers)
	}
	r := &Region{EP: ep.ID, Handle: Handle{Index: uint32(idx), Key: uint32(ep.p.Rand().Uint64()) | 1},
		Addr: mrBase + uint64(idx)<<32, Len: n, Access: acc, Data: data}
	s.mrs[idx] = r
	ep.mrs[r.Handle] = r
	s.kernelCmd(ep.p, &Command{Kind: CmdRegister, EP: ep.ID, MR: r})
	return r.Handle, nil
}

// Deregister is cci_rma_deregister.
func (ep *Endpoint) Deregister(h Handle) error {
	s := ep.s
	r := ep.mrs[h]
	if r == nil {
		return fmt.Errorf("cci: deregister unknown region %s: %w", h, ErrInvalid)
	}
	s.kernel(ep.p, 0)
	delete(ep.mrs, h)
	s.mrs[h.Index] = nil
	s.kernelCmd(ep.p, &Command{Kind: CmdRegister, EP: ep.ID, MR: &Region{Handle: h, Len: -1}})
	return nil
}

// Region returns the bytes of one of the endpoint's regions, after applying the RMA
// writes the NIC has placed so far.
func (ep *Endpoint) Region(h Handle) ([]byte, error) {
	r := ep.mrs[h]
	if r == nil {
		return nil, fmt.Errorf("cci: unknown region %s: %w", h, ErrInvalid)
	}
	ep.applyLanded()
	return r.Data, nil
}

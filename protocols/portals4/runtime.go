package portals4

import (
	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/host"
	"github.com/seastar-sim/seastar/ht"
	"github.com/seastar-sim/seastar/protocols/portals4/conform"
	"github.com/seastar-sim/seastar/protocols/portals4/ptl4"
)

// API is a thread's Portals 4 library, whichever NIC implementation is behind it:
// the conformance environment plus the host process it runs as.
type API interface {
	conform.Env
	Proc() *host.Proc
}

// env is the part of a thread's library that does not depend on the NIC: the
// process's memory and the job runtime (rank, barrier, sleep, threads).
type env struct {
	r   *Rank
	p   *host.Proc
	seq uint64 // mailbox results of this thread
}

// mailbox writes a command into the process's firmware mailbox (Rank.readHead: after
// reading its head pointer).
func (l *env) mailbox(m actors.Msg) {
	if l.r.readHead {
		l.p.MMIORead(8)
	}
	l.p.MMIOWrite(ht.PPC, l.r.p.CmdBytes, m)
}

// Proc implements API.
func (l *env) Proc() *host.Proc { return l.p }

// Memory implements conform.Env.
func (l *env) Memory() *ptl4.Space { return l.r.space }

// Rank implements conform.Env.
func (l *env) Rank() int { return l.r.rank }

// Size implements conform.Env.
func (l *env) Size() int { return l.r.size }

// Mapping implements conform.Env: rank i is process pid on node i.
func (l *env) Mapping(ptl4.Handle) []ptl4.ProcessID {
	m := make([]ptl4.ProcessID, l.r.size)
	for i := range m {
		m[i] = ptl4.ProcessID{NID: uint32(i), PID: l.r.pid}
	}
	return m
}

// Barrier implements conform.Env: through the NIC, to node 0 and back.
func (l *env) Barrier() {
	l.seq++
	addr := resultAddr(l.p.ID, l.seq)
	var m actors.Msg = &BarrierCall{Result: addr}
	if l.r.barrier != nil {
		m = l.r.barrier(addr)
	}
	l.mailbox(m)
	l.p.WaitFor(addr)
	l.p.Forget(addr)
}

// Sleep implements conform.Env; 0 yields for a microsecond (sched_yield).
func (l *env) Sleep(ms int64) {
	d := actors.Duration(ms) * actors.Millisecond
	if ms <= 0 {
		d = actors.Microsecond
	}
	l.p.Compute(d)
	l.p.Sync()
}

// job is a body handed to a helper thread.
type job struct {
	addr uint64
	body func(tid int, e conform.Env)
	tid  int
}

func (j *job) String() string  { return "portals4.job" }
func (j *job) Address() uint64 { return j.addr }

func jobAddr(rank, k int, gen uint64) uint64 {
	return 0x5000<<32 | uint64(rank)<<28 | uint64(k)<<20 | gen&0xfffff
}
func doneAddr(rank, k int, gen uint64) uint64 {
	return 0x6000<<32 | uint64(rank)<<28 | uint64(k)<<20 | gen&0xfffff
}

// Threads implements conform.Env on the rank's helper processes.
func (l *env) Threads(n int, body func(tid int, e conform.Env)) {
	r := l.r
	if n > len(r.helpers) {
		l.p.Fatalf("portals4: %d threads asked for, %d helper processes spawned", n, len(r.helpers))
	}
	gen := r.gen
	r.gen++
	for k := range r.helpers {
		j := &job{addr: jobAddr(r.rank, k, gen), tid: k}
		if k < n {
			j.body = body
		}
		l.p.Store(j.addr, j)
	}
	for k := range n {
		a := doneAddr(r.rank, k, gen)
		l.p.WaitFor(a)
		l.p.Forget(a)
	}
}

// helper is the program of helper thread k of rank r.
func (r *Rank) helper(k int) host.Program {
	return func(p *host.Proc) {
		l := r.newAPI(p)
		for gen := uint64(0); ; gen++ {
			a := jobAddr(r.rank, k, gen)
			j := p.WaitFor(a).(*job)
			p.Forget(a)
			if j.body != nil {
				j.body(j.tid, l)
				p.Store(doneAddr(r.rank, k, gen), &job{addr: doneAddr(r.rank, k, gen)})
			}
		}
	}
}

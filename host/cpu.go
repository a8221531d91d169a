package host

import (
	"fmt"
	"iter"
	"slices"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/ht"
)

// PortBus is the CPU's only port, to the I/O bus that leads to its NIC: HyperTransport
// on a SeaStar node (package ht), PCI on a StarT-JR node (package startjr/pci),
// PCIe to an InfiniBand HCA.
const PortBus actors.Port = 0

// ReadCompletion is a bus's answer to a read the host issued (BusRead): it carries the
// tag the read was issued with.
type ReadCompletion interface {
	actors.Msg
	ReadTag() uint64
}

// InterruptRequest is an interrupt a bus delivers to the host.
type InterruptRequest interface {
	actors.Msg
	IRQVector() int
}

// Addressed is a payload the NIC writes into host memory: it lands at Address, where
// processes and the interrupt handler find it.
type Addressed interface {
	actors.Msg
	Address() uint64
}

// Superseded is a payload that host memory recycles once it no longer holds it: a
// later write to its address replaced it, or a process forgot the address. A reader
// takes what it needs from such a payload before it lets time pass (a consumer index
// the NIC rewrites, read at once by whoever polls it).
type Superseded interface {
	Superseded()
}

// IRQHandler is the operating system's interrupt handler, run on core 0. Each call
// handles one pending item (an event the NIC wrote into host memory) and reports
// whether there was one: the CPU calls it again, at the handler's clock, until there is
// none, so that an item that lands while the handler runs is taken by the same pass,
// as a handler that loops until its queue is empty does (Pedretti & Hudson 2005 s.5.2:
// the handler processes all new events each time). An interrupt raised while the
// handler runs stays pending and runs the handler once more when it returns (one
// pending interrupt per vector), finding what is left.
type IRQHandler func(k *Kernel, vector int) (handled bool)

// CPU is the host actor of one node: its cores, processes, memory as the NIC wrote it,
// and the interrupt path.
type CPU struct {
	p       Params
	procs   []*Proc
	mem     map[uint64]actors.Msg
	waiters map[uint64][]*Proc
	spare   [][]*Proc // waiter lists of addresses written, for the next addresses waited on
	reads   map[uint64]*Proc
	readTag uint64
	irq     IRQHandler

	inIRQ      bool                         // the handler is running (its end is not known yet)
	irqVector  int                          // the vector it runs for
	irqStart   actors.Time                  // when it took the interrupt
	irqItems   int                          // items the pass has handled so far
	irqPending []int                        // vectors raised while it runs, in order, once each
	deferred   []deferral                   // core-0 processes due while it runs
	kern       Kernel                       // the handler's view of the current step (stepIRQ)
	resumes    actors.FreeList[resume]      // resumes delivered: the CPU sends them to itself, so it reuses them
	stores     actors.FreeList[kernelStore] // stores landed, likewise

	Stats Stats
}

// Stats counts the host's activity.
type Stats struct {
	Interrupts    int64
	InterruptTime actors.Duration
	Notices       int64 // NIC writes that landed at an address
	MMIOWrites    int64
	MMIOReads     int64
}

// resume ends a process's wait: the wait numbered tok (a resume for an earlier wait is
// stale and ignored). A timer resume (timer; tok the number of the WaitUntil whose
// place it holds, Proc.timer) ends a WaitUntil at its deadline unless a write has
// already woken the process.
type resume struct {
	proc  *Proc // (not its index: a resume then reads no array of processes)
	tok   uint64
	timer bool
}

func (r resume) String() string { return fmt.Sprintf("host.resume(%d)", r.proc.ID) }

// sendResume sends r to the CPU itself after d, in a record it reuses once delivered
// (no allocation per wait).
func (c *CPU) sendResume(ctx actors.Context, r resume, d actors.Duration) {
	ctx.SendSelf(c.resumes.New(r), d)
}

// irqStep runs the interrupt handler's next item.
type irqStep struct{}

func (irqStep) String() string { return "host.irqStep" }

// deferral is a core-0 process due at at while the interrupt handler runs.
type deferral struct {
	p  *Proc
	at actors.Time
}

// New returns a CPU. p must be valid.
func New(p Params) *CPU {
	return &CPU{p: p, mem: map[uint64]actors.Msg{}, waiters: map[uint64][]*Proc{}, reads: map[uint64]*Proc{}}
}

// Params returns the CPU's parameters.
func (c *CPU) Params() Params { return c.p }

// Ports implements actors.Ported.
func (c *CPU) Ports() []string { return []string{"bus"} }

// Spawn adds a process running prog on core (before the run starts). Processes start
// at time zero in spawn order.
func (c *CPU) Spawn(name string, core int, prog Program) (*Proc, error) {
	if core < 0 || core >= c.p.Cores {
		return nil, fmt.Errorf("host: process %s on core %d, but the host has %d cores", name, core, c.p.Cores)
	}
	p := &Proc{cpu: c, ID: len(c.procs), Core: core, Name: name, prog: prog}
	c.procs = append(c.procs, p)
	return p, nil
}

// Procs returns the processes.
func (c *CPU) Procs() []*Proc { return c.procs }

// HandleInterrupts installs the operating system's interrupt handler.
func (c *CPU) HandleInterrupts(h IRQHandler) { c.irq = h }

// Entries returns the number of addresses written (by the NIC, the kernel or a
// process) and not forgotten since: what host_entries_pending reports.
func (c *CPU) Entries() int { return len(c.mem) }

// Memory returns what the NIC (or the kernel) last wrote at addr.
func (c *CPU) Memory(addr uint64) (actors.Msg, bool) {
	m, ok := c.mem[addr]
	return m, ok
}

// Start implements actors.Starter: every process runs until it first waits. It names
// the lines of the first process that a resume reads (Proc) for the engine to prefetch
// with the CPU's struct (actors.Prefetch).
func (c *CPU) Start(ctx actors.Context) {
	for _, p := range c.procs {
		p.begin()
		c.activate(ctx, p)
	}
	if len(c.procs) > 0 {
		actors.Prefetch(ctx, c.procs[0], &c.procs[0].expired)
	}
}

// Finish implements actors.Finisher: it releases the coroutines of processes that did
// not return.
func (c *CPU) Finish() {
	for _, p := range c.procs {
		if p.stop != nil {
			p.stop()
		}
	}
}

// Receive implements actors.Actor.
func (c *CPU) Receive(ctx actors.Context, m actors.Msg) {
	switch m := m.(type) {
	case *resume:
		r := c.resumes.Take(m)
		p := r.proc
		if r.timer {
			if !c.onTimer(ctx, p, r.tok) {
				return
			}
		} else if r.tok != p.tok {
			return
		}
		c.activate(ctx, p)
	case irqStep:
		c.stepIRQ(ctx)
	case *kernelStore:
		s := c.stores.Take(m)
		c.store(ctx, s.addr, s.m)
	case Addressed:
		c.store(ctx, m.Address(), m)
		c.Stats.Notices++
	case ReadCompletion:
		c.onReadDone(ctx, m.ReadTag())
		if r, ok := m.(actors.Releaser); ok {
			r.Release() // a completion the bus made from a pool
		}
	case InterruptRequest:
		c.onInterrupt(ctx, m.IRQVector())
	default:
		ctx.Fatalf("host: unexpected %T (%s)", m, m)
	}
}

// activate runs p's coroutine until it waits again or returns. Nothing runs on core 0
// while the interrupt handler does: a wake-up that falls inside the handler (it was
// due before the interrupt came) is put off until the handler ends.
func (c *CPU) activate(ctx actors.Context, p *Proc) {
	if p.done {
		return
	}
	if p.Core == 0 && c.inIRQ {
		c.wake(ctx, p, ctx.Now())
		return
	}
	p.ctx = ctx
	p.now = max(p.now, ctx.Now())
	if _, ok := p.next(); !ok {
		p.done = true
		p.stop = nil
	}
	p.ctx = nil
}

// wake schedules p to run at time at, after any interrupt work on its core.
func (c *CPU) wake(ctx actors.Context, p *Proc, at actors.Time) {
	if p.Core == 0 && c.inIRQ {
		c.deferred = append(c.deferred, deferral{p: p, at: at}) // woken when the handler returns
		return
	}
	c.sendResume(ctx, resume{proc: p, tok: p.tok}, max(0, at.Sub(ctx.Now())))
}

// expire ends p's WaitUntil at its deadline: false if a write has already woken it
// (its resume is on the way), else p leaves the waiters of its address.
func (c *CPU) expire(p *Proc) bool {
	if !p.listed {
		return false
	}
	ws := c.waiters[p.waitAddr]
	ws = slices.DeleteFunc(ws, func(q *Proc) bool { return q == p })
	if len(ws) == 0 {
		delete(c.waiters, p.waitAddr)
		c.spareList(ws)
	} else {
		c.waiters[p.waitAddr] = ws
	}
	p.listed, p.expired = false, true
	return true
}

// store lands m at addr and wakes the processes waiting for that address; each sees it
// after a cache miss, the poll that brings the new line in.
func (c *CPU) store(ctx actors.Context, addr uint64, m actors.Msg) {
	c.let(addr, m)
	c.mem[addr] = m
	c.gaugeMem(ctx, ctx.Now())
	ws := c.waiters[addr]
	if len(ws) == 0 {
		return
	}
	delete(c.waiters, addr)
	for _, p := range ws {
		p.listed = false
		c.wake(ctx, p, ctx.Now().Add(c.p.CacheMiss))
	}
	c.spareList(ws)
}

// let lets go of what host memory holds at addr, about to be replaced by m (nil: forgotten):
// a Superseded payload is recycled.
func (c *CPU) let(addr uint64, m actors.Msg) {
	if old, ok := c.mem[addr]; ok && old != m {
		if s, ok := old.(Superseded); ok {
			s.Superseded()
		}
	}
}

// spareList keeps the array of a waiter list no address uses any more, emptied, for
// the next address waited on (listWaiter).
func (c *CPU) spareList(ws []*Proc) {
	clear(ws)
	c.spare = append(c.spare, ws[:0])
}

// listWaiter adds p to the waiters of addr, in a list kept from an earlier address if
// it is the first (a new list for every wait was an allocation per message).
func (c *CPU) listWaiter(addr uint64, p *Proc) {
	ws, ok := c.waiters[addr]
	if n := len(c.spare); !ok && n > 0 {
		ws, c.spare = c.spare[n-1], c.spare[:n-1]
	}
	c.waiters[addr] = append(ws, p)
}

func (c *CPU) onReadDone(ctx actors.Context, tag uint64) {
	p := c.reads[tag]
	if p == nil {
		ctx.Fatalf("host: bus read #%d completed twice or never issued", tag)
	}
	delete(c.reads, tag)
	c.wake(ctx, p, ctx.Now())
}

// onInterrupt takes an interrupt on core 0: the handler starts after the interrupt's
// cost (host.interrupt_cost) unless it is running, in which case the interrupt stays
// pending until it returns.
func (c *CPU) onInterrupt(ctx actors.Context, vector int) {
	if c.irq == nil {
		ctx.Fatalf("host: interrupt %d with no handler installed", vector)
	}
	if c.inIRQ {
		if !slices.Contains(c.irqPending, vector) {
			c.irqPending = append(c.irqPending, vector)
		}
		return
	}
	c.beginIRQ(ctx, vector)
}

// beginIRQ enters the handler for vector: its first item runs once the interrupt's
// cost is paid.
func (c *CPU) beginIRQ(ctx actors.Context, vector int) {
	c.inIRQ, c.irqVector, c.irqStart, c.irqItems = true, vector, ctx.Now(), 0
	ctx.SendSelf(irqStep{}, c.p.InterruptCost)
}

// stepIRQ runs the handler's items from now on: while they take no time, at once; else
// the next one when the handler's clock gets there (so that what lands meanwhile is
// seen). With nothing left the handler returns.
func (c *CPU) stepIRQ(ctx actors.Context) {
	k := &c.kern // one per CPU: the handler's view for this step only
	*k = Kernel{cpu: c, ctx: ctx, now: ctx.Now()}
	for c.irq(k, c.irqVector) {
		c.irqItems++
		if k.now > ctx.Now() {
			ctx.SendSelf(irqStep{}, k.now.Sub(ctx.Now()))
			return
		}
	}
	c.endIRQ(ctx)
}

// endIRQ returns from the handler: a process computing on core 0 lost the handler's
// time, the processes due meanwhile run, and a pending interrupt enters it again.
func (c *CPU) endIRQ(ctx actors.Context) {
	end := ctx.Now()
	c.inIRQ = false
	c.Stats.Interrupts++
	c.Stats.InterruptTime += end.Sub(c.irqStart)
	for _, p := range c.procs {
		// A process whose clock was ahead of simulated time when the interrupt came was
		// computing (waiting in sync for time to catch up): the handler delays it.
		if p.Core == 0 && !p.done && p.now > c.irqStart {
			p.now = p.now.Add(end.Sub(c.irqStart))
		}
	}
	for _, d := range c.deferred { // not in the handler any more: wake sends the resumes
		c.wake(ctx, d.p, max(d.at, end))
	}
	c.deferred = c.deferred[:0]
	if len(c.irqPending) > 0 {
		v := c.irqPending[0]
		c.irqPending = slices.Delete(c.irqPending, 0, 1)
		c.beginIRQ(ctx, v)
	}
}

// Program is a workload: straight-line code run by a process.
type Program func(p *Proc)

// Proc is a process: a coroutine with its own clock, pinned to a core.
//
// Its first fields are those a resume reads (CPU.Receive, activate), side by side: on a
// large machine a process is resumed long after it last ran, and the CPU names them
// for the engine to prefetch (Start).
type Proc struct {
	tok     uint64         // number of the current (or next) wait; resumes carry it
	now     actors.Time    // the process's own clock
	ctx     actors.Context // valid while the process runs
	next    func() (struct{}, bool)
	yield   func(struct{}) bool
	Core    int
	done    bool
	listed  bool // the process is among the waiters of waitAddr
	expired bool // the last WaitUntil ended at its deadline

	cpu      *CPU
	ID       int
	Name     string
	prog     Program
	stop     func()
	got      actors.Msg // what a wait returned
	waitAddr uint64     // the address a WaitFor or WaitUntil is listed on
	timer    procTimer
}

// procTimer is a process's deadline timer. A WaitUntil ends at its deadline by a timer
// resume the CPU sends itself; when a write ends the wait first, that resume is stale.
// Sent at every WaitUntil, the stale ones piled up until their deadlines: a library
// polling with a retransmission deadline (CCI's WaitEvent, streaming) kept hundreds of
// them pending, far ahead of everything else (BENCHMARKS.md, twenty-eighth session).
// Instead a process keeps one armed timer resume: a WaitUntil whose deadline comes
// before the armed one's time arms a new one; else the armed one, when it comes, is
// sent again for the deadline of the WaitUntil then in progress. Each WaitUntil
// reserves the place its own timer resume had among the CPU's events (Context.Reserve),
// and the resume that ends it at its deadline is sent in that place, so the process
// wakes exactly as it did with a resume per wait: the same events in the same order,
// less the stale resumes.
type procTimer struct {
	armed   bool
	at      actors.Time        // the armed resume's time
	tok     uint64             // the armed resume's tok
	waiting bool               // a WaitUntil is in progress (its number is the Proc's tok)
	place   actors.Reservation // its timer resume's place
	due     actors.Time        // its deadline
}

// onTimer handles p's timer resume numbered tok and reports whether it ends p's
// WaitUntil: it does if it is that wait's own, at its deadline, and no write has woken
// p; the armed resume, come before the wait's deadline, is sent again for it.
func (c *CPU) onTimer(ctx actors.Context, p *Proc, tok uint64) bool {
	t := &p.timer
	if !t.armed || tok != t.tok {
		return false // superseded by an earlier one
	}
	t.armed = false
	switch {
	case !t.waiting:
		return false
	case tok == p.tok:
		return c.expire(p)
	}
	c.armTimer(ctx, p)
	return false
}

// armTimer sends p's timer resume for the WaitUntil in progress, in its place.
func (c *CPU) armTimer(ctx actors.Context, p *Proc) {
	t := &p.timer
	ctx.SendSelfAt(t.place, c.resumes.New(resume{proc: p, tok: p.tok, timer: true}), t.due)
	t.armed, t.at, t.tok = true, t.due, p.tok
}

// stopped unwinds a coroutine that is stopped at the end of a run.
type stopped struct{}

func (p *Proc) begin() {
	seq := func(yield func(struct{}) bool) {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(stopped); !ok {
					panic(r) // a Fatalf or a bug: let the engine report it
				}
			}
		}()
		p.yield = yield
		p.prog(p)
	}
	p.next, p.stop = iter.Pull(seq)
}

// wait suspends the process until the CPU resumes it. Every resume sent for this wait
// is stale once it returns.
func (p *Proc) wait() {
	if !p.yield(struct{}{}) {
		panic(stopped{})
	}
	p.tok++
}

// sync lets simulated time catch up with the process's clock before it observes
// anything. It loops because an interrupt may push the clock further meanwhile.
func (p *Proc) sync() {
	for p.now > p.ctx.Now() {
		p.cpu.wake(p.ctx, p, p.now)
		p.wait()
	}
}

// Now is the process's clock.
func (p *Proc) Now() actors.Time { return p.now }

// Sync lets simulated time catch up with the process's clock: a process must call it
// before it reads state that other blocks update (a library's tables in host memory),
// or it would observe them as they were when it last waited.
func (p *Proc) Sync() { p.sync() }

// CPU returns the process's host.
func (p *Proc) CPU() *CPU { return p.cpu }

// Rand is the host's random stream.
func (p *Proc) Rand() *actors.Rand { return p.ctx.Rand() }

// Fatalf ends the run with an error naming the host and the time.
func (p *Proc) Fatalf(format string, args ...any) {
	p.ctx.Fatalf("%s: "+format, append([]any{p.Name}, args...)...)
}

// Compute spends d of CPU time.
func (p *Proc) Compute(d actors.Duration) {
	if d < 0 {
		p.Fatalf("negative compute time %s", d)
	}
	p.now = p.now.Add(d)
}

// Trap enters the kernel and returns: TrapCost plus work d done inside.
func (p *Proc) Trap(work actors.Duration) { p.Compute(p.cpu.p.TrapCost + work) }

// Memcpy copies n bytes the host wrote itself: from the cache when source and
// destination fit in it (Params.CopyTime).
func (p *Proc) Memcpy(n actors.Bytes) { p.Compute(p.cpu.p.CopyTime(n)) }

// MemcpyFromNIC copies n bytes the NIC wrote into host memory (not in the cache).
func (p *Proc) MemcpyFromNIC(n actors.Bytes) { p.Compute(p.cpu.p.CopyFromNICTime(n)) }

// MMIOWrite stores bytes into the SeaStar unit to (posted) over HyperTransport:
// payload, if not nil, is delivered to it when the store lands. The core is busy for
// MMIOWriteCost.
func (p *Proc) MMIOWrite(to ht.Unit, bytes actors.Bytes, payload actors.Msg) {
	p.BusWrite(ht.NewWrite(to, bytes, payload))
}

// BusWrite issues an uncached posted store on the I/O bus: w is the bus's own write
// message (an *ht.Write, a PCI write). The core is busy for MMIOWriteCost; the bus
// models the rest.
func (p *Proc) BusWrite(w actors.Msg) {
	p.ctx.Send(PortBus, w, p.now.Sub(p.ctx.Now()))
	p.now = p.now.Add(p.cpu.p.MMIOWriteCost)
	p.cpu.Stats.MMIOWrites++
}

// MMIORead reads bytes of SeaStar SRAM or registers (uncached): a full round trip over
// HyperTransport, during which the core stalls.
func (p *Proc) MMIORead(bytes actors.Bytes) {
	p.BusRead(func(tag uint64) actors.Msg { return ht.Read{Bytes: bytes, Tag: tag} })
}

// BusRead issues an uncached read on the I/O bus and stalls the core until the bus
// answers with a ReadCompletion carrying the same tag: request builds the bus's read
// message for that tag.
func (p *Proc) BusRead(request func(tag uint64) actors.Msg) {
	p.sync()
	c := p.cpu
	c.readTag++
	c.reads[c.readTag] = p
	c.Stats.MMIOReads++
	p.ctx.Send(PortBus, request(c.readTag), 0)
	p.wait()
}

// WaitFor busy-waits until something has been written at addr and returns it. The
// process sees a new write one cache miss after it lands.
func (p *Proc) WaitFor(addr uint64) actors.Msg {
	p.sync()
	c := p.cpu
	if m, ok := c.mem[addr]; ok {
		p.now = p.now.Add(c.p.CacheMiss)
		return m
	}
	c.listWaiter(addr, p)
	p.waitAddr, p.listed = addr, true
	p.wait()
	return c.mem[addr]
}

// WaitUntil is WaitFor with a deadline: it returns what is written at addr, or false
// when simulated time reaches deadline first (a library's retransmission timer while
// it polls for completions). A write landing before the deadline wins.
func (p *Proc) WaitUntil(addr uint64, deadline actors.Time) (actors.Msg, bool) {
	p.sync()
	c := p.cpu
	if m, ok := c.mem[addr]; ok {
		p.now = p.now.Add(c.p.CacheMiss)
		return m, true
	}
	if deadline <= p.now {
		return nil, false
	}
	c.listWaiter(addr, p)
	p.waitAddr, p.listed = addr, true
	t := &p.timer
	t.waiting, t.place, t.due = true, p.ctx.Reserve(), deadline
	if !t.armed || t.at > deadline {
		c.armTimer(p.ctx, p)
	}
	p.wait()
	t.waiting = false
	if p.expired {
		p.expired = false
		return nil, false
	}
	return c.mem[addr], true
}

// Peek returns what is at addr without waiting (one cache miss if something is there).
func (p *Proc) Peek(addr uint64) (actors.Msg, bool) {
	p.sync()
	m, ok := p.cpu.mem[addr]
	if ok {
		p.now = p.now.Add(p.cpu.p.CacheMiss)
	}
	return m, ok
}

// Forget clears addr, so that the next WaitFor waits for a new write (the process
// zeroing a completion slot after consuming it).
func (p *Proc) Forget(addr uint64) { p.cpu.forget(p.ctx, p.now, addr) }

// forget clears addr at time at, letting go of what it held (let); ctx is the
// process's or the interrupt handler's.
func (c *CPU) forget(ctx actors.Context, at actors.Time, addr uint64) {
	c.let(addr, nil)
	delete(c.mem, addr)
	c.gaugeMem(ctx, at)
}

// gaugeMem reports to a timeline the entries written into host memory (events,
// records, completions, results) that nothing has consumed yet: the fill of the event
// queues the NIC writes.
func (c *CPU) gaugeMem(ctx actors.Context, at actors.Time) {
	if ctx == nil {
		return
	}
	if g := actors.GaugeOf(ctx); g != nil {
		g.Gauge(actors.Gauge{Actor: ctx.Self(), Name: "host_entries_pending", At: at, Value: int64(c.Entries())})
	}
}

// Store writes m at addr in host memory at the process's time; processes waiting on
// addr wake a cache miss later.
func (p *Proc) Store(addr uint64, m actors.Msg) {
	p.cpu.sendStore(p.ctx, addr, m, p.now.Sub(p.ctx.Now()))
}

// Kernel is the interrupt handler's view of the host: its own clock on core 0, host
// memory, and MMIO stores to the NIC.
type Kernel struct {
	cpu *CPU
	ctx actors.Context
	now actors.Time
}

// Now is the handler's clock.
func (k *Kernel) Now() actors.Time { return k.now }

// Charge spends d of handler time.
func (k *Kernel) Charge(d actors.Duration) { k.now = k.now.Add(d) }

// Memory returns what is at addr.
func (k *Kernel) Memory(addr uint64) (actors.Msg, bool) { return k.cpu.Memory(addr) }

// Fatalf ends the run with an error naming the host and the time.
func (k *Kernel) Fatalf(format string, args ...any) { k.ctx.Fatalf(format, args...) }

// Forget clears addr (the handler consumed the entry there).
func (k *Kernel) Forget(addr uint64) { k.cpu.forget(k.ctx, k.now, addr) }

// Memcpy copies n bytes the host wrote itself (Params.CopyTime), like Proc.Memcpy.
func (k *Kernel) Memcpy(n actors.Bytes) { k.Charge(k.cpu.p.CopyTime(n)) }

// MemcpyFromNIC copies n bytes the NIC wrote into host memory (not in the cache).
func (k *Kernel) MemcpyFromNIC(n actors.Bytes) { k.Charge(k.cpu.p.CopyFromNICTime(n)) }

// CPU returns the host.
func (k *Kernel) CPU() *CPU { return k.cpu }

// Store writes m at addr in host memory at the handler's current time (an event for a
// process): waiting processes wake a cache miss later.
func (k *Kernel) Store(addr uint64, m actors.Msg) {
	k.cpu.sendStore(k.ctx, addr, m, k.now.Sub(k.ctx.Now()))
}

// MMIOWrite stores into the SeaStar (posted), like Proc.MMIOWrite.
func (k *Kernel) MMIOWrite(to ht.Unit, bytes actors.Bytes, payload actors.Msg) {
	k.ctx.Send(PortBus, ht.NewWrite(to, bytes, payload), k.now.Sub(k.ctx.Now()))
	k.now = k.now.Add(k.cpu.p.MMIOWriteCost)
	k.cpu.Stats.MMIOWrites++
}

// sendStore sends the CPU itself the store of m at addr, due after d, in a record it
// reuses once landed (no allocation per store).
func (c *CPU) sendStore(ctx actors.Context, addr uint64, m actors.Msg, d actors.Duration) {
	ctx.SendSelf(c.stores.New(kernelStore{addr: addr, m: m}), d)
}

// kernelStore lands a kernel write in host memory at its time.
type kernelStore struct {
	addr uint64
	m    actors.Msg
}

func (s *kernelStore) String() string { return fmt.Sprintf("host.kernelStore(%#x %s)", s.addr, s.m) }

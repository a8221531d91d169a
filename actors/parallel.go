package actors

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// The conservative parallel engine.
//
// Actors are grouped into partitions. Each partition is a protoactor-go actor that owns
// an event heap and calls its actors directly. A coordinator actor runs windows
// [T, T+L): T is the earliest pending event anywhere (skip-ahead), L the lookahead, the
// minimum latency of any link crossing partitions. No event sent in a window can reach
// another partition before T+L, so partitions execute a window independently. Events
// for other partitions are batched and handed over once per window; partitions report
// back and the coordinator starts the next window when all have: a barrier.
//
// Batches travel through a lock-free stack per destination and per window parity. A
// batch written in window w is drained by its destination at the start of window w+1
// (the coordinator activates every partition with pending input) and reused by its
// source in window w+2; the protoactor messages of the barrier order these accesses.

// windowStart tells a partition to run one window. One per partition, reused.
type windowStart struct {
	w          uint64
	start, end Time
}

// windowDone is a partition's report at the end of a window. One per partition, reused.
type windowDone struct {
	p      int32
	next   Time // earliest event left in the partition's heap
	minOut Time // earliest event sent to other partitions in this window
	err    *SimError
}

// batch is a run of events for one destination partition.
type batch struct {
	ev   []event
	next *batch
}

// partition executes the actors it owns.
type partition struct {
	runner
	id       int32
	owner    []int32 // partition of every actor (shared, read-only)
	parts    []*partition
	actors   []ActorID
	heap     eventHeap
	winStart Time
	winEnd   Time // current window end, exclusive
	inbox    [2]atomic.Pointer[batch]
	out      outbox

	startMsg windowStart
	doneMsg  windowDone

	events      uint64
	activations uint64
	busy        time.Duration
}

// outbox collects the events a partition sends to other partitions during a window.
type outbox struct {
	pool    [2][]*batch // batches per window parity
	used    int
	parity  int
	dense   []*batch         // by destination, when partitions are few
	sparse  map[int32]*batch // by destination, otherwise
	touched []int32
	minTime Time
}

// denseOutboxMax is the partition count up to which an outbox indexes destinations by
// a slice (P pointers per partition) rather than a map.
const denseOutboxMax = 64

func (o *outbox) init(parts int) {
	if parts <= denseOutboxMax {
		o.dense = make([]*batch, parts)
	} else {
		o.sparse = map[int32]*batch{}
	}
}

// begin starts a window; batches of this parity were drained two windows ago.
func (o *outbox) begin(parity int) {
	o.parity, o.used, o.minTime = parity, 0, MaxTime
	o.touched = o.touched[:0]
}

func (o *outbox) add(dst int32, e event) {
	var b *batch
	if o.dense != nil {
		b = o.dense[dst]
	} else {
		b = o.sparse[dst]
	}
	if b == nil {
		b = o.fresh()
		if o.dense != nil {
			o.dense[dst] = b
		} else {
			o.sparse[dst] = b
		}
		o.touched = append(o.touched, dst)
	}
	b.ev = append(b.ev, e)
	o.minTime = min(o.minTime, e.at)
}

func (o *outbox) fresh() *batch {
	pool := &o.pool[o.parity]
	if o.used == len(*pool) {
		*pool = append(*pool, &batch{})
	}
	b := (*pool)[o.used]
	o.used++
	clear(b.ev)
	b.ev, b.next = b.ev[:0], nil
	return b
}

// publish hands every batch of the window to its destination.
func (o *outbox) publish(parts []*partition) {
	for _, dst := range o.touched {
		var b *batch
		if o.dense != nil {
			b, o.dense[dst] = o.dense[dst], nil
		} else {
			b = o.sparse[dst]
			delete(o.sparse, dst)
		}
		in := &parts[dst].inbox[o.parity]
		for {
			b.next = in.Load()
			if in.CompareAndSwap(b.next, b) {
				break
			}
		}
	}
}

func (p *partition) enqueue(e event) {
	dp := p.owner[e.dst()]
	if dp == p.id {
		p.heap.push(e)
		return
	}
	if e.at < p.winEnd {
		p.Fatalf("kernel: lookahead violated: event for %s at %s is inside the current window (ends %s)",
			p.m.names[e.dst()], e.at, p.winEnd)
	}
	p.out.add(dp, e)
}

// runWindow executes one window and fills p.doneMsg.
func (p *partition) runWindow(w *windowStart) {
	t0 := time.Now()
	p.activations++
	parity := int(w.w & 1)
	p.winStart, p.winEnd = w.start, w.end
	p.out.begin(parity)
	var err *SimError
	if w.w == 0 {
		err = p.protect(p.startActors)
	} else {
		p.drain(1 - parity)
		err = p.protect(p.execute)
	}
	p.out.publish(p.parts)
	p.doneMsg = windowDone{p: p.id, next: p.heap.minTime(), minOut: p.out.minTime, err: err}
	p.busy += time.Since(t0)
}

func (p *partition) startActors() {
	for _, id := range p.actors {
		p.start(id)
	}
}

// drain moves the events other partitions sent last window into the heap.
func (p *partition) drain(parity int) {
	for b := p.inbox[parity].Swap(nil); b != nil; b = b.next {
		for i := range b.ev {
			p.heap.push(b.ev[i])
		}
	}
}

// execute delivers every local event before the window end, in key order.
func (p *partition) execute() {
	var e event
	for len(p.heap.ev) > 0 && p.heap.ev[0].at < p.winEnd {
		p.heap.pop(&e)
		if e.at < p.winStart {
			p.cur = e.dst()
			p.Fatalf("kernel: event at %s is before the window start %s", e.at, p.winStart)
		}
		p.events++
		p.deliver(&e)
	}
}

// partitionActor is the protoactor face of a partition.
type partitionActor struct {
	p     *partition
	coord *actor.PID
}

func (a *partitionActor) Receive(c actor.Context) {
	if w, ok := c.Message().(*windowStart); ok {
		a.p.runWindow(w)
		c.Send(a.coord, &a.p.doneMsg)
	}
}

// coordinator runs the window barrier.
type coordinator struct {
	ctx       context.Context
	parts     []*partition
	pids      []*actor.PID
	next      []Time
	lookahead Duration
	end       Time

	w           uint64
	outstanding int
	minOut      Time
	err         *SimError
	finished    chan error

	windows  uint64
	widthSum float64 // seconds
	progress *progressTicker
}

type runBegin struct{}

func (c *coordinator) Receive(ac actor.Context) {
	switch m := ac.Message().(type) {
	case runBegin:
		c.minOut = MaxTime
		for i := range c.parts {
			c.activate(ac, i, 0, 0)
		}
	case *windowDone:
		c.onDone(ac, m)
	}
}

func (c *coordinator) activate(ac actor.Context, i int, start, end Time) {
	s := &c.parts[i].startMsg
	s.w, s.start, s.end = c.w, start, end
	c.outstanding++
	ac.Send(c.pids[i], s)
}

func (c *coordinator) onDone(ac actor.Context, d *windowDone) {
	c.next[d.p] = d.next
	c.minOut = min(c.minOut, d.minOut)
	if d.err != nil && (c.err == nil || d.err.key.less(c.err.key)) {
		c.err = d.err
	}
	if c.outstanding--; c.outstanding > 0 {
		return
	}
	if c.err != nil {
		c.finished <- c.err
		return
	}
	t := c.minOut
	for _, n := range c.next {
		t = min(t, n)
	}
	if t >= c.end {
		c.finished <- nil
		return
	}
	if err := c.ctx.Err(); err != nil {
		c.finished <- fmt.Errorf("parallel engine at t=%s: %w (%v)", t, ErrInterrupted, err)
		return
	}
	c.progress.tick(t, c.eventsSoFar())
	c.nextWindow(ac, t)
}

func (c *coordinator) nextWindow(ac actor.Context, t Time) {
	end := min(t.Add(c.lookahead), c.end)
	prev := int(c.w & 1)
	c.w++
	c.windows++
	c.widthSum += end.Sub(t).Seconds()
	c.minOut = MaxTime
	for i, p := range c.parts {
		if c.next[i] < end || p.inbox[prev].Load() != nil {
			c.activate(ac, i, t, end)
		}
	}
}

// eventsSoFar sums partition counters; only called between windows, when no
// partition is running.
func (c *coordinator) eventsSoFar() uint64 {
	var n uint64
	for _, p := range c.parts {
		n += p.events
	}
	return n
}

func runParallel(ctx context.Context, m *Model, opts *Options) (*Report, error) {
	of, err := opts.Partitioner.Partition(m, opts.Workers)
	if err != nil {
		return nil, err
	}
	info, err := checkPartitioning(m, of, opts.Partitioner.Name())
	if err != nil {
		return nil, err
	}
	of = compactPartitions(of)
	info.parts = 0
	for _, p := range of {
		info.parts = max(info.parts, int(p)+1)
	}
	st := newActorStates(m, opts.Seed)
	parts := newPartitions(m, st, of, info.parts, opts)

	pool := newWorkerPool(opts.Workers, len(parts)+8)
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}))
	wall := time.Now()
	c := &coordinator{ctx: ctx, parts: parts, next: make([]Time, len(parts)), lookahead: info.lookahead,
		end: opts.End, finished: make(chan error, 1), progress: newProgressTicker(opts, wall)}
	coordPID := sys.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return c }, actor.WithDispatcher(pool)))
	c.pids = make([]*actor.PID, len(parts))
	for i, p := range parts {
		pa := &partitionActor{p: p, coord: coordPID}
		c.pids[i] = sys.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return pa }, actor.WithDispatcher(pool)))
	}
	sys.Root.Send(coordPID, runBegin{})
	runErr := <-c.finished
	elapsed := time.Since(wall)
	for _, pid := range append(c.pids, coordPID) {
		sys.Root.Stop(pid)
	}
	pool.stop()
	sys.Shutdown()
	if runErr != nil {
		return nil, runErr
	}
	rep := &Report{Engine: Parallel, Workers: opts.Workers, Partitioning: opts.Partitioner.Name(),
		Partitions: len(parts), End: opts.End, Wall: elapsed, Windows: c.windows, Lookahead: info.lookahead,
		CutLinks: info.cut}
	pending := false
	for _, p := range parts {
		rep.Events += p.events
		pending = pending || p.heap.len() > 0
		rep.Parts = append(rep.Parts, PartitionStats{Name: m.names[p.actors[0]], Actors: len(p.actors),
			Events: p.events, Activations: p.activations, Busy: p.busy})
	}
	if c.windows > 0 {
		rep.MeanWindow = Duration(c.widthSum / float64(c.windows) * float64(Second))
	}
	rep.SimTime = simTimeCovered(st, pending, opts.End)
	rep.finish(st)
	return rep, nil
}

func newPartitions(m *Model, st []actorState, of []int32, n int, opts *Options) []*partition {
	parts := make([]*partition, n)
	for i := range parts {
		p := &partition{id: int32(i), owner: of, parts: parts}
		p.runner = runner{m: m, st: st, sink: p}
		if opts.Tracer != nil {
			p.tracer = opts.Tracer(i)
		}
		p.out.init(n)
		parts[i] = p
	}
	for id, pi := range of {
		parts[pi].actors = append(parts[pi].actors, ActorID(id))
	}
	return parts
}

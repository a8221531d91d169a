package actors

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// The conservative parallel engine.
//
// Actors are grouped into partitions. Each partition is a protoactor-go actor that owns
// a pending-event queue and calls its actors directly; partitions run on a protoactor
// dispatcher with exactly Options.Workers goroutines. The lookahead between two
// partitions is the minimum latency of the links from one to the other (and of direct
// sends). Events for other partitions are batched and handed over through lock-free
// inboxes. A coordinator actor runs windows [T, T+W): T is the earliest pending event
// anywhere (skip-ahead); the partitions with work execute the window and the last one
// to finish notifies the coordinator: a barrier per window. Two synchronization modes
// give identical results:
//
//   - window (the baseline): W is the global lookahead L, the minimum latency of any
//     link crossing partitions. No event sent inside a window can reach another
//     partition before T+L, so partitions execute a window independently. When only
//     one partition has events before T+L, it runs a solo window, longer than L, until
//     an event it sends could be answered (see leaders.window): a ping-pong costs a
//     window per crossing rather than one per lookahead of its duration.
//   - horizon (per-neighbour horizons): W is horizonEpoch lookaheads, and inside such an
//     epoch partitions synchronize asynchronously through published clocks (see
//     horizon.go). A partition that finishes a stretch early runs on as far as its
//     neighbours' progress allows, which absorbs load imbalance and jitter and removes
//     most barriers. Partitions wait by polling, so this mode needs a worker per
//     partition.
//
// Either way each partition delivers its events in key order and only once every event
// with a smaller time has reached it, which is what makes results independent of
// partitioning, workers and mode.

// SyncMode selects how the parallel engine synchronizes partitions.
type SyncMode string

// Synchronization modes.
const (
	// SyncAuto picks SyncHorizon when every partition can have its own worker and the
	// workers do not outnumber the CPUs, SyncWindow otherwise.
	SyncAuto SyncMode = ""
	// SyncWindow is barrier-synchronized windows with skip-ahead.
	SyncWindow SyncMode = "window"
	// SyncHorizon is epochs of asynchronous per-neighbour horizons.
	SyncHorizon SyncMode = "horizon"
)

// ParseSyncMode parses "auto", "window" or "horizon".
func ParseSyncMode(s string) (SyncMode, error) {
	switch s {
	case "auto", "":
		return SyncAuto, nil
	case string(SyncWindow), string(SyncHorizon):
		return SyncMode(s), nil
	}
	return "", configErrorf("unknown synchronization %q (want auto, window or horizon)", s)
}

// prun is the state of one parallel run shared by its partitions and coordinator.
type prun struct {
	m         *Model
	st        []actorState
	owner     []int32 // partition of every actor
	parts     []*partition
	end       Time
	lookahead Duration
	mode      SyncMode

	startMallocs uint64 // the runtime's allocation count when window 0 (Start) was done

	remaining atomic.Int32 // partitions still running the current window
	coord     *actor.PID
	// local is the window coordinator of a run in one process: the partition that
	// finishes a window last runs it (partitionActor) instead of messaging it, which
	// saves a hop through a mailbox and a worker per window. nil across processes,
	// whose coordination is messages between them.
	local    *coordinator
	pids     []*actor.PID // partition actors
	active   []int32      // partitions running the current window, written by the coordinator
	abort    atomic.Bool  // the run was cancelled
	finished chan error

	dist         *distRun      // the share of a multi-process run, nil in one process
	remoteEvents atomic.Uint64 // events of the other processes, for progress reports
	// The window in progress, for progress reports: its start (every event before it
	// was delivered everywhere), its solo partition (-1: none) and, for a solo window,
	// the earliest event of the other partitions.
	progStart, progSolo, progBound atomic.Int64
}

// partition executes the actors it owns.
type partition struct {
	runner
	r      *prun
	id     int32
	actors []ActorID
	queue  pendingQueue // its pending events (a sorted run or a calendar queue)
	// What other partitions write (their sends' batches, the batches they give back)
	// is on lines of its own: on a line with the queue's fields, which every event
	// reads, each of those writes took the line from this partition's CPU.
	_     [cacheLine]byte
	inbox stack        // batches sent to this partition
	inMin atomic.Int64 // earliest event in the inbox (a lower bound)
	free  stack        // this partition's batches, drained by their destinations
	_     [cacheLine]byte
	out   outbox
	floor Time // events for other partitions must not be earlier (lookahead check)
	solo  bool // running a solo window, which each send to another partition shortens
	// The actors lo to lo+span-1 are this partition's (its longest run of consecutive
	// ids: all of them, as the automatic and block partitionings cut): an event for one
	// of them is local without a look at the owner table, whose lines a large machine's
	// sends otherwise miss.
	lo, span ActorID

	winStart, winEnd Time
	startMsg         windowStart
	aheadMsg         windowStart // running ahead, across processes (exchange.runAhead)
	done             windowDone
	failed           *SimError // the partition stopped at this failure (it ends the run)
	// horizon mode
	clock *atomic.Int64 // published promise, in the run's clock array
	in    []inEdge      // partitions that can send here, with their lookahead
	idle  uint64        // polling rounds spent waiting for neighbours

	events      uint64
	progEvents  atomic.Uint64 // events, published for progress reports
	progNow     atomic.Int64  // simulated time reached, published for progress reports
	activations uint64        // windows or epochs executed
	busy        time.Duration
}

type inEdge struct {
	from      int32
	lookahead Duration
}

func (p *partition) enqueue(k eventKey, port Port, m Msg) {
	if k.dst()-p.lo < p.span { // lo <= dst < lo+span, in unsigned arithmetic
		p.queue.push(k, port, m)
		return
	}
	p.enqueueOther(k, port, m)
}

// enqueueOther is enqueue for an event outside the partition's run of ids: to one of
// its other actors, or to another partition.
func (p *partition) enqueueOther(k eventKey, port Port, m Msg) {
	dp := p.r.owner[k.dst()]
	if dp == p.id {
		p.queue.push(k, port, m)
		return
	}
	if k.at < p.floor {
		p.Fatalf("kernel: lookahead violated: event for %s at %s, but other partitions may already be at %s",
			p.m.names[k.dst()], k.at, p.floor)
	}
	if p.solo { // the receiver may answer from k.at on (see leaders.window)
		p.winEnd = min(p.winEnd, k.at.Add(p.r.lookahead))
	}
	p.out.add(dp, k, port, m)
}

func (p *partition) startActors() {
	for _, id := range p.actors {
		p.start(id)
	}
}

// drain moves the events other partitions sent into the pending queue and returns the
// batches.
func (p *partition) drain() {
	p.inMin.Store(int64(MaxTime))
	for b := p.inbox.takeAll(); b != nil; {
		next := b.next
		for i := range b.ev {
			if b.ev[i].at < p.winStart {
				p.cur = b.ev[i].dst()
				p.Fatalf("kernel: event from another partition at %s arrived after %s", b.ev[i].at, p.winStart)
			}
			p.queue.push(b.ev[i].eventKey, b.ev[i].port, b.ev[i].msg)
		}
		b.owner.free.push(b)
		b = next
	}
}

// publishProgress makes the partition's counters visible to progress reports.
func (p *partition) publishProgress(now Time) {
	p.progEvents.Store(p.events)
	p.progNow.Store(int64(now))
}

// partitionActor is the protoactor face of a partition.
type partitionActor struct{ p *partition }

func (a *partitionActor) Receive(c actor.Context) {
	if w, ok := c.Message().(*windowStart); ok {
		a.p.runWindow(w)
		if r := a.p.r; r.remaining.Add(-1) == 0 {
			// The last of the window: every other partition's report is written
			// (the countdown orders the accesses), and nothing else runs the
			// coordinator until this launches the next window.
			if r.local != nil {
				r.local.onWindowsDone(c)
			} else {
				c.Send(r.coord, windowsDone{})
			}
		}
	}
}

func runParallel(ctx context.Context, m *Model, opts *Options) (*Report, error) {
	procs := 1
	if opts.Cluster != nil {
		procs = opts.Cluster.Processes()
	}
	of, err := opts.Partitioner.Partition(m, opts.Workers*procs)
	if err != nil {
		return nil, err
	}
	of = colocated(m, of)
	info, err := checkPartitioning(m, of, opts.Partitioner.Name())
	if err != nil {
		return nil, err
	}
	of = compactPartitions(of)
	info.parts = 0
	for _, p := range of {
		info.parts = max(info.parts, int(p)+1)
	}
	mode, err := chooseSync(opts, info.parts)
	if err != nil {
		return nil, err
	}
	r := &prun{m: m, st: newActorStates(m, opts.Seed), owner: of, end: opts.End, lookahead: info.lookahead,
		mode: mode, finished: make(chan error, 1)}
	r.progSolo.Store(-1)
	r.parts = newPartitions(r, info.parts, opts)
	if opts.OnLayout != nil {
		opts.OnLayout(r.layout(opts, info, procs))
	}
	if opts.Cluster != nil {
		return runDistributed(ctx, r, opts, info)
	}
	if mode == SyncHorizon {
		wireHorizons(r)
	}

	pool := newWorkerPool(opts.Workers, len(r.parts)+8, true, opts.LowPriority)
	sys := actorSystem()
	c := &coordinator{r: r, next: make([]Time, len(r.parts)), solo: -1}
	r.local = c
	r.coord = sys.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return c }, actor.WithDispatcher(pool.Dispatcher(0)), actor.WithMailbox(newEngineMailbox)))
	r.pids = make([]*actor.PID, len(r.parts))
	homes := make([]int, len(r.parts))
	for i, p := range r.parts {
		pa := &partitionActor{p: p}
		homes[i] = i * opts.Workers / len(r.parts) // contiguous ranges; one partition per worker when P <= W
		r.pids[i] = sys.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return pa }, actor.WithDispatcher(pool.Dispatcher(homes[i])), actor.WithMailbox(newEngineMailbox)))
	}
	wall := time.Now()
	sys.Root.Send(r.coord, runBegin{})
	runErr := r.wait(ctx, opts, wall)
	elapsed := time.Since(wall)
	if pool.low {
		pool.finish(r.m, r.parts, homes)
	}
	for _, pid := range append(r.pids, r.coord) {
		sys.Root.Stop(pid)
	}
	pool.stop()
	if runErr != nil && !errors.Is(runErr, ErrInterrupted) {
		return nil, runErr
	}
	// On an interruption, what ran before it: the simulated time reached, the events.
	return r.report(opts, info, c.windows, c.epochs, c.widthSum, elapsed), runErr
}

// sharedSystem is the protoactor actor system every run in the process uses: building
// one costs about 3 MB and tens of thousands of allocations, too much for sweeps and
// tests of many small runs. Each run spawns and stops its own actors on its own
// dispatcher, so runs share nothing but the process registry, which is concurrent.
var (
	systemOnce   sync.Once
	sharedSystem *actor.ActorSystem
)

func actorSystem() *actor.ActorSystem {
	systemOnce.Do(func() {
		sharedSystem = actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
			return slog.New(slog.NewTextHandler(io.Discard, nil))
		}))
	})
	return sharedSystem
}

// chooseSync resolves the synchronization mode for a run with parts partitions.
func chooseSync(opts *Options, parts int) (SyncMode, error) {
	fits := parts <= opts.Workers
	if opts.Cluster != nil {
		if opts.Sync == SyncHorizon {
			return "", configErrorf("synchronization horizon is not available across processes (use window or auto)")
		}
		return SyncWindow, nil
	}
	switch opts.Sync {
	case SyncWindow:
		return SyncWindow, nil
	case SyncHorizon:
		if !fits {
			return "", configErrorf("synchronization horizon needs a worker per partition: %d partitions, %d workers "+
				"(use more workers, fewer partitions, or window synchronization)", parts, opts.Workers)
		}
		return SyncHorizon, nil
	}
	if parts > 1 && fits && opts.Workers <= runtime.GOMAXPROCS(0) {
		return SyncHorizon, nil
	}
	return SyncWindow, nil
}

func newPartitions(r *prun, n int, opts *Options) []*partition {
	parts := make([]*partition, n)
	// The partitions prefetch (runner.pf set) when the model's state outgrows a
	// core's caches and the CPU has a prefetch instruction the engine uses.
	var pf []prefetchRec
	if havePrefetch && r.m.NumActors() >= prefetchMinActors {
		pf = newPrefetchRecs(r.m, r.st)
	}
	for i := range parts {
		p := &partition{r: r, id: int32(i)}
		p.inMin.Store(int64(MaxTime))
		p.runner = runner{m: r.m, st: r.st, pf: pf, sink: p}
		p.setTracer(newTracer(opts, r.m, i))
		p.out.init(p, n)
		parts[i] = p
	}
	for id, pi := range r.owner {
		parts[pi].actors = append(parts[pi].actors, ActorID(id))
	}
	for _, p := range parts {
		p.lo, p.span = longestRun(p.actors)
	}
	return parts
}

// longestRun returns the first and the length of the longest run of consecutive ids
// in ids (ascending), the earliest of equal ones; 0, 0 if ids is empty.
func longestRun(ids []ActorID) (lo, n ActorID) {
	for i := 0; i < len(ids); {
		j := i + 1
		for j < len(ids) && ids[j] == ids[j-1]+1 {
			j++
		}
		if k := ActorID(j - i); k > n {
			lo, n = ids[i], k
		}
		i = j
	}
	return lo, n
}

// wait blocks until the run ends, reporting progress and passing on cancellation.
func (r *prun) wait(ctx context.Context, opts *Options, start time.Time) error {
	var tick <-chan time.Time
	if opts.Progress != nil {
		t := time.NewTicker(opts.ProgressEvery)
		defer t.Stop()
		tick = t.C
	}
	done := ctx.Done()
	var failed <-chan struct{}
	if r.dist != nil {
		failed = r.dist.cl.Failed()
	}
	for {
		select {
		case err := <-r.finished:
			if r.abort.Load() && ctx.Err() != nil {
				return fmt.Errorf("parallel engine at t=%s: %w (%v)", r.progressNow(), ErrInterrupted, ctx.Err())
			}
			if r.abort.Load() && r.dist == nil {
				return fmt.Errorf("parallel engine at t=%s: %w (%v)", r.progressNow(), ErrInterrupted, ctx.Err())
			}
			return err
		case <-failed:
			// The controller handles what arrived before the failure first: if that
			// completes the run, the run succeeds.
			failed = nil
			r.abort.Store(true)
			r.dist.cl.ep.sys.Root.Send(r.dist.ctl, sessionLost{})
		case <-tick:
			var events uint64
			for _, p := range r.parts {
				events += p.progEvents.Load()
			}
			events += r.remoteEvents.Load()
			opts.Progress(Progress{Now: r.progressNow(), End: r.end, Events: events, Wall: time.Since(start), Fraction: opts.Work.Fraction()})
		case <-done:
			r.abort.Store(true)
			done = nil
			if r.dist != nil { // the peers may be in a long window: do not wait for them
				return fmt.Errorf("parallel engine at t=%s: %w (%v)", r.progressNow(), ErrInterrupted, ctx.Err())
			}
		}
	}
}

// layout describes the partitioning for Options.OnLayout.
func (r *prun) layout(opts *Options, info cutInfo, procs int) Layout {
	l := Layout{Partitioning: opts.Partitioner.Name(), CutLinks: info.cut, Lookahead: info.lookahead, Sync: r.mode,
		Processes: procs}
	for _, p := range r.parts {
		l.Partitions = append(l.Partitions, len(p.actors))
	}
	if procs > 1 {
		l.ProcessParts = make([]int, procs)
		for i := range r.parts {
			l.ProcessParts[i*procs/len(r.parts)]++
		}
	}
	return l
}

// progressNow is the simulated time every partition has reached: the earliest any
// reported, and at least the start of the window in progress, since a partition with
// no event in recent windows reported nothing since. In a solo window only its
// partition advances, up to the other partitions' earliest event.
func (r *prun) progressNow() Time {
	start := Time(r.progStart.Load())
	if solo := r.progSolo.Load(); solo >= 0 {
		if at := Time(r.parts[solo].progNow.Load()); at < MaxTime { // MaxTime: another process's
			return max(start, min(at, Time(r.progBound.Load())))
		}
		return start
	}
	now := MaxTime
	for _, p := range r.parts {
		now = min(now, max(start, Time(p.progNow.Load())))
	}
	return now
}

// windowDone records, once window w is done in this process, what the run's setup
// allocated: window 0 runs the actors' Start and no event.
func (r *prun) windowDone(w uint64) {
	if w == 0 {
		r.startMallocs = mallocs()
	}
}

// report is the run's report: windows barriers, epochs of them horizon epochs, of
// widths summing to widthSum, in wall time wall.
func (r *prun) report(opts *Options, info cutInfo, windows, epochs uint64, widthSum float64, wall time.Duration) *Report {
	rep := &Report{Engine: Parallel, Workers: opts.Workers, Partitioning: opts.Partitioner.Name(), Sync: r.mode,
		Partitions: len(r.parts), End: r.end, Wall: wall, Lookahead: info.lookahead, CutLinks: info.cut}
	pending := r.dist != nil && r.dist.pending
	for _, p := range r.parts {
		rep.Events += p.events
		pending = pending || p.queue.len() > 0
		rep.Parts = append(rep.Parts, PartitionStats{Name: r.m.names[p.actors[0]], Actors: len(p.actors),
			Events: p.events, Activations: p.activations, Busy: p.busy})
	}
	rep.Windows, rep.Epochs = windows, epochs
	rep.startMallocs = r.startMallocs
	if w := widthSum / float64(windows) * float64(Second); windows > 0 && w < float64(MaxTime) {
		rep.MeanWindow = Duration(w) // unbounded windows (no lookahead: one partition) leave it 0
	}
	rep.SimTime = simTimeCovered(r.st, pending, r.end)
	rep.finish(r.st)
	return rep
}
